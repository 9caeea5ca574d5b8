#!/usr/bin/env python3
"""Time cells spend inside a relay under KIST and under Vanilla (seeds-digest K12; "Never Been KIST" Fig. 6b,
"Tor's Been KIST" 5.2): with KIST the queue-time distribution has an elbow at the run interval (a cell waits
for the next run, at most one interval when the relay keeps up), with Vanilla it stays near zero.

Usage: bench/kist_queue_time.py --bin-dir BUILD_DIR [--seconds 20] [--rate 2M] [--json OUT]

For each mode (KIST every 10 ms, KIST every 2 ms, Vanilla) it starts a fresh conflux-net network with no
bandwidth limit on the relays and SchedulerSampleCells 10, starts a scheduler trace on every relay
(SchedulerTraceFile, SIGHUP), and has the network's proxy download 50MiB.bin with curl limited to RATE per
second, so that the relays keep up and nothing queues for bandwidth. Prints, per mode and relay, the
percentiles of the sampled cells' time from entering a circuit queue to going to the kernel. Exit status 0
when in every KIST mode the exit's median is at least a tenth of the interval and its p90 at most 1.5
intervals, and Vanilla's median is below every KIST median; 1 when not (or a download failed); 2 usage.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from conflux_bridges import binary, net_up  # noqa: E402
from relay_trace import read_trace, start_traces, stop_traces  # noqa: E402

MODES = [("kist_10ms", ["Schedulers KIST", "KISTSchedRunInterval 10 msec"], 10.0),
         ("kist_2ms", ["Schedulers KIST", "KISTSchedRunInterval 2 msec"], 2.0),
         ("vanilla", ["Schedulers Vanilla"], None)]


def percentile(sorted_values, q):
    if not sorted_values:
        return 0.0
    i = min(len(sorted_values) - 1, max(0, int(round(q * (len(sorted_values) - 1)))))
    return sorted_values[i]


def run_mode(args, net_exe, options):
    work = tempfile.mkdtemp(prefix="conflux-kistq-")
    net_dir, net = net_up(net_exe, args.bin_dir, work,
                          {"relays": 3, "exits": 1, "relay_options": options + ["SchedulerSampleCells 10"],
                           "proxies": [{"name": "proxy", "conflux": False}],
                           "files": [{"name": "50MiB.bin", "size": 50 << 20}]})
    try:
        relays = [p for p in net["processes"] if p["role"] in ("authority", "relay", "exit")]
        traces = start_traces(relays, work)
        url = [f for f in net["files"] if f["name"] == "50MiB.bin"][0]["url"]
        r = subprocess.run(["curl", "-s", "--max-time", str(args.seconds), "--limit-rate", args.rate,
                            "--socks5-hostname", net["proxy"]["socks"], "-o", os.devnull, "-w", "%{size_download}",
                            url], stdout=subprocess.PIPE, text=True, check=False)
        got = int(float(r.stdout or "0"))
        stop_traces(relays)
        waits = {}
        for name, path in traces.items():
            cells = read_trace(path)
            waits[name] = sorted((left - queued) / 1e6 for v in cells.values() for queued, left in v)
        return got, waits
    finally:
        subprocess.run([net_exe, "down", "--dir", net_dir], stdout=subprocess.DEVNULL, check=False)
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin-dir", required=True, help="a build directory (e.g. build/release)")
    ap.add_argument("--seconds", type=int, default=20, help="length of the download")
    ap.add_argument("--rate", default="2M", help="curl --limit-rate for the download")
    ap.add_argument("--json", help="write the percentiles here")
    args = ap.parse_args()
    net_exe = binary(args.bin_dir, "tools/conflux-net/conflux-net")
    out, ok = {}, True
    for name, options, interval in MODES:
        got, waits = run_mode(args, net_exe, options)
        if got == 0:
            ok = False
        print("%s: downloaded %.1f MiB" % (name, got / 1048576), flush=True)
        out[name] = {}
        for relay, w in sorted(waits.items()):
            if len(w) < 20:
                continue
            row = {q: percentile(w, q / 100) for q in (10, 50, 90, 99)}
            row["n"] = len(w)
            out[name][relay] = row
            print("  %-8s n=%5d  p10 %6.2f ms  p50 %6.2f ms  p90 %6.2f ms  p99 %6.2f ms" %
                  (relay, len(w), row[10], row[50], row[90], row[99]), flush=True)
        exit_row = next((row for relay, row in out[name].items() if relay.startswith("exit")), None)
        if exit_row is None:
            ok = False
        elif interval is not None:
            ok = ok and exit_row[50] >= interval / 10 and exit_row[90] <= 1.5 * interval
        out[name]["interval_ms"] = interval
    vanilla = next((row for relay, row in out["vanilla"].items() if relay.startswith("exit")), None)
    for name, _, interval in MODES:
        if interval is None or vanilla is None:
            continue
        kist = next((row for relay, row in out[name].items() if relay.startswith("exit")), None)
        ok = ok and kist is not None and vanilla[50] < kist[50]
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
    print("elbow at the run interval under KIST, near zero under Vanilla: %s" % ("yes" if ok else "NO"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
