#!/usr/bin/env bash
# The test command: installs dependencies, then builds and runs every test.
#   0. the structure checks (scripts/checks/run.sh, docs/LAYERING.md): which folder may include which,
#      and no function over 100 lines beyond the recorded exceptions (measured from the tokens as
#      clang-tidy counts them, a couple of CPU seconds: it runs first, in the foreground)
#   1. the optimised build ('release' preset): the main-job program runs, each benchmark runs briefly
#   2. every unit and integration test under ASan + UBSan ('asan' preset, clang)
#   3. every libFuzzer target, linked from the same clang objects as the tests, run briefly from its seeds
# The function-size check used to run clang-tidy over the tree in the background at idle priority
# (about 500 CPU seconds, most of them added after the tests); it now reads tokens and takes about a
# second, so it runs in turn with the layering check. A summary of every step ends the output. Any
# failure fails.
# FUZZ_SECONDS (default 5) sets the per-target fuzz smoke time (longer runs are scripts/fuzz.sh's job).
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
./scripts/install-deps.sh
deps_took=$(($(date +%s) - t0))

JOBS="${JOBS:-$(nproc)}"
FUZZ_SECONDS="${FUZZ_SECONDS:-5}"
PY=/usr/bin/python3
start=$(date +%s)
stamp() { echo "[$(($(date +%s) - start)) s] $*"; }
since() { echo "$(($(date +%s) - $1)) s"; }
results=("install-deps: ok ($deps_took s)")

stamp "== structure checks: layering and function size =="
t_step=$(date +%s)
"$PY" scripts/checks/layering.py --self-test
"$PY" scripts/checks/layering.py
"$PY" scripts/checks/function_size.py --self-test
"$PY" scripts/checks/function_size.py
results+=("structure checks: ok ($(since "$t_step"))")

stamp "== release build: main-job program and benchmark smoke =="
t_step=$(date +%s)
cmake --preset release >/dev/null
cmake --build --preset release -j "$JOBS"
build/release/tools/wire-demo/conflux-wire-demo >/dev/null
echo "ok: conflux-wire-demo"
for b in build/release/bench/bench_*; do
  [ -x "$b" ] || continue
  "$b" --benchmark_min_time=0.01 >/dev/null 2>&1 || { echo "benchmark failed: $b"; exit 1; }
  echo "ok: $(basename "$b")"
done
results+=("release build and benchmark smoke: ok ($(since "$t_step"))")

stamp "== unit and integration tests (ASan + UBSan) =="
t_step=$(date +%s)
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$JOBS"
results+=("asan build: ok ($(since "$t_step"))")
t_step=$(date +%s)
# Twice the cores: the process tests spend most of their time waiting on rate-limited bridges and
# deadlines, not computing.
# Each finished test's line ends with when it finished ("[N s]" of the run), so a log shows the timeline.
stamp_finished() {
  local line now
  while IFS= read -r line; do
    if [[ $line == *" Test "*"#"*" sec" ]]; then
      printf -v now '%(%s)T' -1
      printf '%s  [%d s]\n' "$line" "$((now - start))"
    else
      printf '%s\n' "$line"
    fi
  done
}
tests_ok=1
ctest_log=$(mktemp)
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --preset asan -j "$((JOBS * 2))" 2>&1 | stamp_finished | tee "$ctest_log" || tests_ok=0
[ "${PIPESTATUS[0]}" = 0 ] || tests_ok=0
[ $tests_ok = 1 ] && results+=("unit and integration tests: ok ($(since "$t_step"))") ||
  results+=("unit and integration tests: FAILED ($(since "$t_step"))")
# The slowest tests, for the summary (CI shows only the end of the output).
while read -r line; do results+=("  slow test: $line"); done < <(
  sed -nE 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: (.*[^. ]) \.*[ *]*([A-Za-z][A-Za-z ]*[A-Za-z]) +([0-9.]+) sec  \[([0-9]+) s\]$/\3 s \1 (\2, finished at \4 s)/p' "$ctest_log" |
    sort -rn | head -8)
# The end of each failed test's output (ctest prints it after the test's line), at most 3 tests, so that a
# failure in CI can be read from the summary alone.
failed_tails=$(mktemp)
awk '
  /^ *[0-9]+\/[0-9]+ Test +#[0-9]+: / {
    if (grab) flush()
    grab = ($0 ~ /(Failed|Timeout|Exception|Not Run)/) && ++n <= 3
    if (grab) { name = $0; lines = 0 }
    next
  }
  /^ *Start +[0-9]+: / || /tests passed, / { if (grab) flush(); grab = 0; next }
  grab { buf[lines++ % 40] = $0 }
  function flush(  i, from) {
    print "  failed: " name
    from = lines > 40 ? lines - 40 : 0
    for (i = from; i < lines; i++) print "    | " buf[i % 40]
  }
  END { if (grab) flush() }
' "$ctest_log" > "$failed_tails" || true
while IFS= read -r line; do results+=("$line"); done < "$failed_tails"
rm -f "$ctest_log" "$failed_tails"

# After the tests, at normal priority: each target runs for FUZZ_SECONDS of wall time, which at idle
# priority beside ctest would be almost no executions.
stamp "== fuzz smoke (${FUZZ_SECONDS}s per target) =="
t_step=$(date +%s)
fuzz_ok=1
FUZZ_BIN=build/asan/tests/fuzz ./scripts/fuzz.sh --smoke "$FUZZ_SECONDS" || fuzz_ok=0
[ $fuzz_ok = 1 ] && results+=("fuzz smoke: ok ($(since "$t_step"))") || results+=("fuzz smoke: FAILED ($(since "$t_step"))")

stamp "== summary =="
printf '%s\n' "${results[@]}"
[ $tests_ok = 1 ] && [ $fuzz_ok = 1 ]
