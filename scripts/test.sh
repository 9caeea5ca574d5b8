#!/usr/bin/env bash
# The test command: installs dependencies, then builds and runs every test.
#   1. unit tests under ASan + UBSan (gcc, 'asan' preset)
#   2. every libFuzzer target built with clang and run briefly ('fuzz' preset)
#   3. the optimised build with benchmarks, each benchmark run once briefly ('release' preset)
# FUZZ_SECONDS (default 15) sets the per-target fuzz smoke time.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh

JOBS="${JOBS:-$(nproc)}"
FUZZ_SECONDS="${FUZZ_SECONDS:-15}"

echo "== unit tests (ASan + UBSan) =="
cmake --preset asan >/dev/null
cmake --build --preset asan -j "$JOBS"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --preset asan -j "$JOBS"

echo "== fuzz smoke (${FUZZ_SECONDS}s per target) =="
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$JOBS"
./scripts/fuzz.sh --smoke "$FUZZ_SECONDS"

echo "== release build and benchmark smoke =="
cmake --preset release >/dev/null
cmake --build --preset release -j "$JOBS"
for b in build/release/bench/bench_*; do
  [ -x "$b" ] || continue
  "$b" --benchmark_min_time=0.01 >/dev/null || { echo "benchmark failed: $b"; exit 1; }
  echo "ok: $(basename "$b")"
done
ctest --preset release -j "$JOBS"
