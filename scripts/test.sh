#!/usr/bin/env bash
# The test command: installs dependencies, then builds and runs every test.
#   0. the structure checks (scripts/checks/run.sh, docs/LAYERING.md): which folder may include which,
#      and no function over 100 lines (clang-tidy) beyond the recorded exceptions
#   1. the optimised build ('release' preset): the main-job program runs, each benchmark runs briefly
#   2. every unit and integration test under ASan + UBSan ('asan' preset, clang)
#   3. every libFuzzer target, linked from the same clang objects as the tests, run briefly from its seeds
# The function-size check runs from the start in the background at idle CPU priority (SCHED_IDLE: it
# gets only the time the builds and the tests leave unused), so it costs the tests' timing nothing. On
# 2 cores that is little time before the tests end (ctest keeps both cores busy: 6% idle measured), so
# most of its CPU time is added after the tests; what the run waited for it is in the summary. Its
# output follows the tests'; then a summary of every step. Any failure fails.
# FUZZ_SECONDS (default 5) sets the per-target fuzz smoke time (longer runs are scripts/fuzz.sh's job).
# CONFLUX_TEST_FOREGROUND=1 runs every step in turn at normal priority instead.
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

stamp "== structure checks: layering =="
"$PY" scripts/checks/layering.py --self-test
"$PY" scripts/checks/layering.py

# The background part: the function-size check (clang-tidy over the tree). Each step checked
# explicitly: errexit does not hold inside a function called from a condition.
background_log=$(mktemp)
background_rc=$(mktemp)
background_pid=""
cleanup() {
  [ -n "$background_pid" ] && kill -- "-$background_pid" 2>/dev/null
  rm -f "$background_log" "$background_rc"
}
trap cleanup EXIT
background() {
  local t0
  t0=$(date +%s)
  echo "== structure checks: function size =="
  "$PY" scripts/checks/function_size.py --self-test || return 1
  "$PY" scripts/checks/function_size.py -j "$JOBS" || return 1
  echo "(function size done after $(($(date +%s) - t0)) s, at $(($(date +%s) - start)) s of the run)"
}
export -f background
export PY JOBS start
if [ "${CONFLUX_TEST_FOREGROUND:-0}" = 1 ]; then
  if background; then echo 0 > "$background_rc"; else echo 1 > "$background_rc"; fi
else
  idle=(nice -n 19)
  chrt --idle 0 true 2>/dev/null && idle=(chrt --idle 0)
  # Its own process group (setsid), so that an early exit stops all of it.
  setsid "${idle[@]}" bash -c 'if background; then echo 0 > "$1"; else echo 1 > "$1"; fi' _ "$background_rc" \
    >"$background_log" 2>&1 &
  background_pid=$!
fi

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

stamp "== function size (background) =="
t_step=$(date +%s)
[ -n "$background_pid" ] && { wait "$background_pid" || true; }
background_pid=""
cat "$background_log"
background_ok=$([ "$(cat "$background_rc" 2>/dev/null)" = 0 ] && echo 1 || echo 0)
# The wait is what the background part added to the run's time; its own time goes in the summary too.
while read -r line; do results+=("  background: $line"); done < <(
  grep -E "^\(function size done" "$background_log" || true)
[ "$background_ok" = 1 ] && results+=("function size: ok (waited $(since "$t_step"))") ||
  results+=("function size: FAILED (waited $(since "$t_step"))")

stamp "== summary =="
printf '%s\n' "${results[@]}"
[ $tests_ok = 1 ] && [ $fuzz_ok = 1 ] && [ "$background_ok" = 1 ]
