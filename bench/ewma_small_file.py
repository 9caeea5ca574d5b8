#!/usr/bin/env python3
"""The EWMA small-file experiment (seeds-digest T8, Tang & Goldberg 2010, Figure 2),
with the half-life sweep (T10), bulk throughput (T11) and the circuit queue wait at the
bottleneck (T9) from the same runs.

Usage: bench/ewma_small_file.py --bin-dir BUILD_DIR [--downloads 25] [--pause 1] [--rate "200 KBytes"]
                                [--halflives 30,0] [--bulk-window 20] [--json OUT]

For each mode (a CircuitPriorityHalflife from --halflives; the default is 30 =
EWMA, then 0 = round robin) it starts a fresh conflux-net network: one authority, one middle relay and one
exit, both at BandwidthRate RATE (the slow part of the path; the exit's
channel towards the middle is where all circuits' cells queue), and one
unlimited bridge as the entry. Then three proxies of its own, each with its
own circuit through the bridge: two bulk clients downloading 50MiB.bin back
to back for the whole run, and one web client fetching 300KiB.bin DOWNLOADS
times with PAUSE seconds (default 1) between them. Every relay runs the default socket
scheduler (KIST where available). The bulk clients fetch in windows of
BULK_WINDOW seconds (curl --max-time), and each whole window while the web
client measures is one bulk throughput sample. Prints each mode's web
download quartiles and bulk throughput, and the two-sample Kolmogorov-Smirnov
distance between each mode's bulk samples and round robin's (T11: EWMA should
not change bulk throughput). The middle and the exit write a scheduler trace
(SchedulerTraceFile, started with SIGHUP once the network is up): the web
circuit is the one whose sampled cells fall inside the web downloads, and its
cells' time in the relay is reported per relay (T9). Exit status 0 when the first EWMA mode's median web
download is lower than round robin's (when both ran; otherwise when nothing
failed), 1 when not (or a download failed), 2 usage. Everything
it started is stopped.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from conflux_bridges import Proxy, binary, fetch, net_up, wait_for  # noqa: E402
from relay_trace import read_trace, start_traces, stop_traces  # noqa: E402


def web_circuit_wait(cells, web_spans):
    """Queue times (s) of the circuit whose cells lie inside the web downloads, and of all the others."""
    def inside(t):
        return any(a <= t <= b for a, b in web_spans)
    best, best_share = None, 0.0
    for key, v in cells.items():
        if len(v) < 10:
            continue
        share = sum(1 for q, _ in v if inside(q)) / len(v)
        if share > best_share:
            best, best_share = key, share
    web = [(l - q) / 1e9 for q, l in cells.get(best, [])]
    rest = [(l - q) / 1e9 for k, v in cells.items() if k != best for q, l in v]
    return web, rest, best_share


def run_mode(args, net_exe, proxy_exe, halflife):
    work = tempfile.mkdtemp(prefix="conflux-ewma-")
    net_dir, net = net_up(net_exe, args.bin_dir, work,
                          {"relays": 2, "exits": 1, "relay_bandwidth_rate": args.rate,
                           "relay_options": ["CircuitPriorityHalflife %s" % halflife],
                           "bridges": [{"name": "entry", "bandwidth_rate": ""}],
                           "proxies": [{"name": "template", "start": False, "use_bridges": True, "conflux": False}],
                           "files": [{"name": "300KiB.bin", "size": 300 * 1024},
                                     {"name": "50MiB.bin", "size": 50 << 20}]})
    proxies = []
    stop = threading.Event()
    try:
        procs = {p["name"]: p for p in net["processes"]}
        template = open(procs["template"]["torrc"], encoding="utf-8").read().splitlines()
        dir_lines = [l for l in template if l.startswith("DirAuthority")]
        b = procs["entry"]
        bridge = ["Bridge 127.0.0.1:%d %s" % (b["ports"]["or"], b["rsa_fingerprint"])]
        files = {f["name"]: f for f in net["files"]}
        web = Proxy("web", proxy_exe, net_dir, dir_lines, bridge, False)
        bulk = [Proxy("bulk%d" % i, proxy_exe, net_dir, dir_lines, bridge, False) for i in (1, 2)]
        proxies = [web] + bulk
        for p in proxies:
            if not wait_for(p.log, "Bootstrapped 100%", 60):
                sys.exit("proxy %s did not bootstrap; see %s" % (p.name, p.log))
        small = files["300KiB.bin"]
        big = files["50MiB.bin"]
        traced = [p for p in net["processes"] if p["role"] in ("authority", "relay", "exit")]
        trace_t0 = time.monotonic()
        traces = start_traces(traced, work)

        measuring = threading.Event()
        bulk_rates = []
        rates_lock = threading.Lock()

        def bulk_loop(p):
            while not stop.is_set():
                counted = measuring.is_set()
                r = subprocess.run(["curl", "-s", "--max-time", str(args.bulk_window), "--socks5-hostname", p.socks,
                                    "-o", os.devnull, "-w", "%{size_download} %{time_total}", big["url"]],
                                   stdout=subprocess.PIPE, text=True, check=False)
                try:
                    size, took = (float(x) for x in r.stdout.split())
                except ValueError:
                    continue
                # A whole window inside the measurement: started while
                # measuring and still measuring at its end.
                if counted and measuring.is_set() and took >= args.bulk_window - 1 and size > 0:
                    with rates_lock:
                        bulk_rates.append(size / took)

        threads = [threading.Thread(target=bulk_loop, args=(p,), daemon=True) for p in bulk]
        for t in threads:
            t.start()
        time.sleep(5)  # the bulk circuits fill the slow link
        measuring.set()
        times, failed, spans = [], 0, []
        for i in range(args.downloads):
            time.sleep(args.pause)
            began = time.monotonic()
            took = fetch(web, small["url"], small["sha256"], 120)
            spans.append(((began - trace_t0) * 1e9, (time.monotonic() - trace_t0) * 1e9))
            if took is None:
                failed += 1
                print("  halflife %s download %d FAILED" % (halflife, i + 1), flush=True)
            else:
                times.append(took)
                print("  halflife %s download %d %6.2f s" % (halflife, i + 1, took), flush=True)
        # Let the bulk windows running now finish inside the measurement.
        time.sleep(args.bulk_window + 1)
        measuring.clear()
        stopped = stop_traces(traced)
        waits = {}
        for name, path in traces.items():
            web_wait, rest, share = web_circuit_wait(read_trace(path), spans)
            waits[name] = {"web": web_wait, "others": rest, "web_share_inside": share, "stopped": stopped[name]}
        with rates_lock:
            return times, failed, list(bulk_rates), waits
    finally:
        stop.set()
        for p in proxies:
            p.stop()
        subprocess.run([net_exe, "down", "--dir", net_dir], stdout=subprocess.DEVNULL, check=False)
        shutil.rmtree(work, ignore_errors=True)


def ks_distance(a, b):
    """Two-sample Kolmogorov-Smirnov statistic D: the largest gap between the empirical CDFs."""
    a, b = sorted(a), sorted(b)
    i = j = 0
    d = 0.0
    while i < len(a) and j < len(b):
        x = min(a[i], b[j])
        while i < len(a) and a[i] <= x:
            i += 1
        while j < len(b) and b[j] <= x:
            j += 1
        d = max(d, abs(i / len(a) - j / len(b)))
    return d


def ks_critical(n, m, c_alpha=1.358):
    """The distance above which two samples differ at the 5% level (c(0.05) = 1.358)."""
    return c_alpha * ((n + m) / (n * m)) ** 0.5


def mode_name(halflife):
    return "round_robin" if float(halflife) <= 0 else "ewma_h%s" % halflife


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin-dir", required=True, help="a build directory (e.g. build/release)")
    ap.add_argument("--downloads", type=int, default=25)
    ap.add_argument("--rate", default="200 KBytes", help="BandwidthRate of the middle and the exit")
    ap.add_argument("--pause", type=float, default=1.0, help="seconds between web downloads")
    ap.add_argument("--halflives", default="30,0",
                    help="CircuitPriorityHalflife values, one mode each (0 or -1: round robin)")
    ap.add_argument("--bulk-window", type=int, default=20, help="seconds per bulk throughput sample")
    ap.add_argument("--json", help="write the raw times here")
    args = ap.parse_args()
    net_exe = binary(args.bin_dir, "tools/conflux-net/conflux-net")
    proxy_exe = binary(args.bin_dir, "client/app/conflux-proxy")
    halflives = [h.strip() for h in args.halflives.split(",") if h.strip()]
    try:
        for h in halflives:
            float(h)
    except ValueError:
        ap.error("--halflives: numbers separated by commas")
    results = {}
    for halflife in halflives:
        name = mode_name(halflife)
        print("mode %s (CircuitPriorityHalflife %s)" % (name, halflife), flush=True)
        results[name] = run_mode(args, net_exe, proxy_exe, halflife)
    med = {k: statistics.median(v[0]) for k, v in results.items() if v[0]}
    failed = sum(v[1] for v in results.values())
    rr = results.get("round_robin")
    ks = {}
    for k, v in results.items():
        line = "%-14s" % k
        if v[0]:
            q = statistics.quantiles(v[0], n=4) if len(v[0]) >= 2 else [v[0][0]] * 3
            line += " web n=%d  p25 %.2f s  median %.2f s  p75 %.2f s" % (len(v[0]), q[0], q[1], q[2])
        rates = v[2]
        if rates:
            line += " | bulk n=%d  mean %.1f KiB/s" % (len(rates), statistics.mean(rates) / 1024)
            if len(rates) >= 2:
                line += " (sd %.1f)" % (statistics.stdev(rates) / 1024)
        if rr is not None and k != "round_robin" and rates and rr[2]:
            d = ks_distance(rates, rr[2])
            crit = ks_critical(len(rates), len(rr[2]))
            ks[k] = {"d": d, "critical_5pct": crit}
            line += "  KS D vs round robin %.3f (5%% critical %.3f)" % (d, crit)
        print(line)
        for relay, w in sorted(v[3].items()):
            if not w["web"]:
                print("%14s %s: no web circuit in the trace (%d other sampled cells, trace %s)" %
                      ("", relay, len(w["others"]), "closed" if w["stopped"] else "NOT closed"))
            else:
                print("%14s %s: web circuit's cells in the relay: n=%d mean %.0f ms median %.0f ms | other cells: "
                      "n=%d mean %.0f ms" % ("", relay, len(w["web"]), 1000 * statistics.mean(w["web"]),
                                             1000 * statistics.median(w["web"]), len(w["others"]),
                                             1000 * statistics.mean(w["others"]) if w["others"] else 0.0))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"rate": args.rate, "downloads": args.downloads, "pause": args.pause,
                       "bulk_window": args.bulk_window, "times": {k: v[0] for k, v in results.items()},
                       "bulk_bytes_per_second": {k: v[2] for k, v in results.items()}, "medians": med,
                       "bulk_ks": ks, "failed": failed,
                       "relay_queue_seconds": {k: v[3] for k, v in results.items()}}, f, indent=1)
    ok = failed == 0
    first_ewma = next((mode_name(h) for h in halflives if float(h) > 0), None)
    if "round_robin" in med and first_ewma in med:
        ok = ok and med[first_ewma] < med["round_robin"]
        print("%s median < round robin median: %s" % (first_ewma, "yes" if ok else "NO"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
