#!/usr/bin/env bash
# Runs the libFuzzer targets built by the 'fuzz' preset (optimised), or those of another tree:
# FUZZ_BIN=build/asan/tests/fuzz (the asan preset with clang makes them too; CI's smoke uses those).
#   scripts/fuzz.sh --smoke SECONDS       every target for SECONDS each (CI), JOBS (default: the cores) at once
#   scripts/fuzz.sh TARGET SECONDS         one target, e.g. fuzz_relay_msg 600
# Corpora live in fuzz-corpus/TARGET (ignored by git); seeds in tests/fuzz/seeds/TARGET if present.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="${FUZZ_BIN:-build/fuzz/tests/fuzz}"

run_one() {
  local name=$1 secs=$2
  local corpus="fuzz-corpus/$name"
  mkdir -p "$corpus"
  local seeds=()
  [ -d "tests/fuzz/seeds/$name" ] && seeds=("tests/fuzz/seeds/$name")
  echo "-- $name for ${secs}s"
  local log rc=0
  log=$(mktemp)
  "$BIN/$name" -max_total_time="$secs" -print_final_stats=1 -artifact_prefix="fuzz-corpus/$name-" \
    "$corpus" "${seeds[@]}" >"$log" 2>&1 || rc=$?
  grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|==|SUMMARY|INFO: Running)" "$log" || true
  # On a crash, what a reader needs to reproduce it without the corpus: the stack, the failing input
  # in hex (CI keeps no artifacts) and where it was written.
  if [ "$rc" != 0 ]; then
    grep -E "^ +#[0-9]+ |artifact_prefix|Test unit written|^0x|Base64" "$log" | head -60 || true
  fi
  rm -f "$log"
  return "$rc"
}

if [ "${1:-}" = "--smoke" ]; then
  # One target per core at once (each libFuzzer run is single-threaded); each one's lines are printed
  # together, in the targets' order, once all have run.
  secs=${2:-15}
  jobs="${JOBS:-$(nproc)}"
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
  names=()
  for t in "$BIN"/fuzz_*; do
    [ -x "$t" ] && names+=("$(basename "$t")")
  done
  [ ${#names[@]} -gt 0 ] || { echo "no fuzz targets in $BIN (build the 'fuzz' preset)" >&2; exit 1; }
  export -f run_one
  export BIN
  printf '%s\n' "${names[@]}" |
    xargs -P "$jobs" -I{} bash -c 'run_one "$1" "$2" > "$3/$1.log" 2>&1; echo $? > "$3/$1.rc"' _ {} "$secs" "$out"
  status=0
  for n in "${names[@]}"; do
    cat "$out/$n.log"
    rc=$(cat "$out/$n.rc" 2>/dev/null || echo 1)
    [ "$rc" = 0 ] || { echo "FAILED: $n (exit status $rc)"; status=1; }
  done
  exit $status
fi

[ $# -eq 2 ] || { echo "usage: $0 --smoke SECONDS | $0 TARGET SECONDS" >&2; exit 2; }
run_one "$1" "$2"
