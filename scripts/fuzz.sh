#!/usr/bin/env bash
# Runs the libFuzzer targets built by the 'fuzz' preset.
#   scripts/fuzz.sh --smoke SECONDS       every target for SECONDS each (CI)
#   scripts/fuzz.sh TARGET SECONDS         one target, e.g. fuzz_relay_msg 600
# Corpora live in fuzz-corpus/TARGET (ignored by git); seeds in tests/fuzz/seeds/TARGET if present.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=build/fuzz/tests/fuzz

run_one() {
  local name=$1 secs=$2
  local corpus="fuzz-corpus/$name"
  mkdir -p "$corpus"
  local seeds=()
  [ -d "tests/fuzz/seeds/$name" ] && seeds=("tests/fuzz/seeds/$name")
  echo "-- $name for ${secs}s"
  "$BIN/$name" -max_total_time="$secs" -print_final_stats=1 -artifact_prefix="fuzz-corpus/$name-" \
    "$corpus" "${seeds[@]}" 2>&1 | grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|==|SUMMARY|INFO: Running)" || true
  # libFuzzer exits non-zero on a crash; PIPESTATUS keeps that visible.
  return "${PIPESTATUS[0]}"
}

if [ "${1:-}" = "--smoke" ]; then
  secs=${2:-15}
  status=0
  for t in "$BIN"/fuzz_*; do
    [ -x "$t" ] || continue
    run_one "$(basename "$t")" "$secs" || status=1
  done
  exit $status
fi

[ $# -eq 2 ] || { echo "usage: $0 --smoke SECONDS | $0 TARGET SECONDS" >&2; exit 2; }
run_one "$1" "$2"
