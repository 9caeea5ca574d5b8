#!/usr/bin/env bash
# The test command: installs dependencies, then builds and runs every test.
#   0. the structure checks (scripts/checks/run.sh, docs/LAYERING.md): which folder may include which,
#      and no function over 100 lines (clang-tidy) beyond the recorded exceptions
#   1. the optimised build ('release' preset): the main-job program runs, each benchmark runs briefly
#   2. every libFuzzer target built with clang and run briefly from its seeds ('fuzz' preset)
#   3. every unit and integration test under ASan + UBSan ('asan' preset), last, so that ctest's
#      summary is the closing line
# FUZZ_SECONDS (default 5) sets the per-target fuzz smoke time (22 targets: longer runs are scripts/fuzz.sh's job).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh

JOBS="${JOBS:-$(nproc)}"
FUZZ_SECONDS="${FUZZ_SECONDS:-5}"

echo "== structure checks: layering and function size =="
JOBS="$JOBS" ./scripts/checks/run.sh

echo "== release build: main-job program and benchmark smoke =="
cmake --preset release >/dev/null
cmake --build --preset release -j "$JOBS"
build/release/tools/wire-demo/conflux-wire-demo >/dev/null
echo "ok: conflux-wire-demo"
for b in build/release/bench/bench_*; do
  [ -x "$b" ] || continue
  "$b" --benchmark_min_time=0.01 >/dev/null 2>&1 || { echo "benchmark failed: $b"; exit 1; }
  echo "ok: $(basename "$b")"
done

echo "== fuzz smoke (${FUZZ_SECONDS}s per target) =="
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$JOBS"
./scripts/fuzz.sh --smoke "$FUZZ_SECONDS"

echo "== unit and integration tests (ASan + UBSan) =="
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$JOBS"
# Twice the cores: the process tests spend most of their time waiting on rate-limited bridges and
# deadlines, not computing.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --preset asan -j "$((JOBS * 2))"
