#!/usr/bin/python3
"""KIST's cost to a lone bulk flow (issue 14): KIST vs Vanilla, one circuit and Conflux, CC on.

Usage: bench/kist_cost.py [--runs 3] [--rounds 2] [--size 50MiB] [--build-dir build/release] [--out kist_cost.json]

Runs bench/cc_watch.py (a conflux-net network of our relays, congestion control negotiated as tor's
defaults, the exits' Vegas state scraped every 100 ms) for each of the four cases, `Schedulers KIST` or
`Schedulers Vanilla` on every relay, the proxy with ConfluxEnabled 0 or 1. The cases take turns
(--rounds times, --runs downloads each turn) so that the machine's load falls on all of them alike.
Prints per case the median [min, max] MiB/s, the exit circuit's RTT (EWMA) and min RTT at the median
sample, its cwnd, and CPU s/MiB of every network process. With Conflux the RTT is the busier leg's.

Only 127.0.0.1, as cc_watch.py.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = [("KIST", False), ("Vanilla", False), ("KIST", True), ("Vanilla", True)]


def run_case(args, sched, conflux, out):
    cmd = [sys.executable, os.path.join(REPO, "bench", "cc_watch.py"), "--size", args.size, "--runs", str(args.runs),
           "--build-dir", args.build_dir, "--relay-option", "Schedulers " + sched, "--out", out]
    if conflux:
        cmd.append("--conflux")
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(out, encoding="utf-8") as f:
        return json.load(f)["runs"]


def spread(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "-"
    return "%.3g [%.3g, %.3g]" % (statistics.median(vals), min(vals), max(vals))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--size", default="50MiB")
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build", "release"))
    ap.add_argument("--out", default="kist_cost.json")
    args = ap.parse_args()
    results = {"%s/%s" % (s, "conflux" if c else "single"): [] for s, c in CASES}
    with tempfile.TemporaryDirectory(prefix="kist-cost-") as tmp:
        for rnd in range(args.rounds):
            for sched, conflux in CASES:
                key = "%s/%s" % (sched, "conflux" if conflux else "single")
                print("round %d: %s" % (rnd, key), file=sys.stderr, flush=True)
                for r in run_case(args, sched, conflux, os.path.join(tmp, "run.json")):
                    r.pop("timeline", None)
                    results[key].append(r)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)
    print("| %s, %d downloads per case | MiB/s | exit RTT EWMA p50 (ms) | exit min RTT (ms) | exit cwnd p50 | "
          "CPU s/MiB |" % (args.size, args.runs * args.rounds))
    print("|---|---|---|---|---|---|")
    for key, runs in results.items():
        ok = [r for r in runs if r["ok"]]
        legs = [(r.get("exit_circuits") or [None])[0] for r in ok]
        ms = lambda fam: [c[fam] * 1000 if c and c.get(fam) is not None else None for c in legs]  # noqa: E731
        print("| %s (%d/%d intact) | %s | %s | %s | %s | %s |" % (
            key, len(ok), len(runs), spread([r["mib_s"] for r in ok]), spread(ms("rtt_seconds_p50")),
            spread(ms("min_rtt_seconds_p50")), spread([c["cwnd_cells_p50"] if c else None for c in legs]),
            spread([r["cpu_s_per_mib"] for r in ok])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
