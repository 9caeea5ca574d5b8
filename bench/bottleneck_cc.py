#!/usr/bin/env python3
"""Issue 14's bottleneck figures: fixed SENDME windows against congestion control through a relay limited to
1 MiB/s (tests/system/bottleneck_cc.py does the work; this runs it in --report mode, RUNS times, and sums up).

Usage: bench/bottleneck_cc.py --bin-dir BUILD_DIR [--runs 1] [--streams 1] [--second-channel]
           [--relay-option LINE ...] [--json OUT]

Per run and mode (fixed windows, CC): the bridge's per-cell queue time (mean, p50, p99) while one bulk circuit
runs, CC's mean over fixed windows' mean (issue 14 wants <= 0.2), and after a second circuit starts each
circuit's MiB/s per second and the first second from which both stay within 20% of half the capacity (issue 14
wants one within 10 s). --relay-option adds a torrc line to every relay (e.g. "CircuitPriorityHalflife 0": round
robin instead of EWMA at the bottleneck); --streams N puts N downloads on the first circuit; --second-channel
starts the second circuit from a second proxy (another channel at the bottleneck, where EWMA does not compare it
with the first).
Exit status: 0 when every run's downloads ran (the figures are not judged); 1 otherwise; 2 usage.
"""

import argparse
import json
import os
import statistics
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "system"))
import bottleneck_cc  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--bin-dir", required=True, help="a build directory (e.g. build/release)")
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--streams", type=int, default=1)
    ap.add_argument("--relay-option", action="append", default=[])
    ap.add_argument("--second-channel", action="store_true", help="the second circuit through a second proxy")
    ap.add_argument("--json", help="every run's figures")
    args = ap.parse_args()
    net_bin = os.path.join(args.bin_dir, "tools/conflux-net/conflux-net")
    runs, status = [], 0
    for i in range(args.runs):
        print("== run %d of %d" % (i + 1, args.runs), flush=True)
        with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
            out = f.name
        argv = ["bottleneck_cc.py", net_bin, "--bin-dir", args.bin_dir, "--report", "--json", out,
                "--streams", str(args.streams)] + (["--second-channel"] if args.second_channel else []) + [x for o in args.relay_option for x in ("--relay-option", o)]
        if bottleneck_cc.main(argv) != 0:
            status = 1
        try:
            with open(out, encoding="utf-8") as f:
                runs.append(json.load(f))
        except (OSError, ValueError):
            status = 1
        finally:
            os.unlink(out)
    print("\n== summary: %d run(s), %d stream(s) on the first circuit, second circuit on %s channel%s" % (
        len(runs), args.streams, "another" if args.second_channel else "the same",
        "".join("; relays: " + o for o in args.relay_option)))
    for mode in ("fixed", "cc"):
        q = [r[mode]["queue_ms"]["single"] for r in runs]
        if q:
            print("  %-5s bridge queue, one circuit: mean %s ms; p50 %s; p99 %s" % (
                mode, " ".join("%.1f" % x["mean"] for x in q), " ".join("%.1f" % x["p50"] for x in q),
                " ".join("%.1f" % x["p99"] for x in q)))
    ratios = [r["cc"]["queue_ms"]["single"]["mean"] / r["fixed"]["queue_ms"]["single"]["mean"] for r in runs]
    if ratios:
        print("  CC / fixed (mean queue time): %s; median %.3f (issue 14: <= 0.2)" % (
            " ".join("%.3f" % x for x in ratios), statistics.median(ratios)))
    for i, r in enumerate(runs):
        for mode in ("fixed", "cc"):
            for c in ("1", "2"):
                print("  run %d %-5s circuit %s MiB/s per second after the second started: %s" % (
                    i + 1, mode, c, " ".join("%.2f" % (x / 2**20) for x in r[mode]["rates_" + c])))
    for mode in ("fixed", "cc"):
        print("  %-5s fair from second: %s (issue 14: <= 10 with CC)" % (
            mode, " ".join(str(r[mode]["fair_from"]) for r in runs)))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(runs, f, indent=1)
    return status


if __name__ == "__main__":
    sys.exit(main())
