#!/usr/bin/python3
"""System test (issue 14): congestion control against fixed SENDME windows at a slow relay.

Usage: bottleneck_cc.py PATH/TO/conflux-net [--bin-dir DIR] [--report] [--json OUT]
           [--single S] [--pair S] [--queue-ratio R] [--streams N] [--second-channel]
           [--relay-option LINE ...]

Starts a conflux-net network on loopback whose every path must cross one
slow relay: the proxies use a single bridge, `bneck`, at BandwidthRate (and
burst) 1 MByte, and the network has one middle relay and one exit. The
bridge writes at most 1 MiB/s towards the proxy, so it is the bottleneck and
the downloads' cells queue in it. Two proxies of the test's own
(ConfluxEnabled 0, same bridge): `fixed` with `OverrideConsensusParams
cc_alg=0` (fixed SENDME windows: a stream holds up to 500 cells in flight, a
circuit 1000) and `cc` with the consensus's congestion control (tor's Vegas;
the exit's parameters alpha 186, beta 248 cells). For each, one phase:

1. one bulk download of 50MiB.bin (SOCKS username P-1: its own circuit;
   --streams N: N downloads at once on it); from SINGLE/4 s to SINGLE s
   every relay traces its scheduler (SchedulerTraceFile by SIGHUP,
   SchedulerSampleCells 10): each sampled cell's time from entering its
   circuit queue to going to the kernel. The bridge's is the queue time.
2. at SINGLE s a second bulk download on another username (P-2: another
   circuit through the same bridge, on the same channel; --second-channel:
   through a second proxy of the same mode, so on another channel); for PAIR
   s both circuits' bytes are counted per second (our own SOCKS client).

Checks, issue 14's "Done when": the single download reached a bottleneck
rate (at least 0.7 MiB/s); CC's mean queue time in the bridge over step 1
is at most 1/QUEUE_RATIO (default 5) of fixed windows'; with CC, within 10
s of the second download's start there is a second from which, in every
1-s interval to the end, each circuit carries within 20% of half the
capacity (the single download's rate in step 1). The fixed-window phase's
fairness is printed, not checked. With --report the figures are printed
and only the downloads, the traces, the bottleneck rate and that CC's queue
is below fixed windows' are checked (docs/BENCHMARKS.md has why issue 14's
thresholds do not hold with tor's parameters). Always: each proxy ran its
mode (MetricsPort: the CC proxy's circuits agreed on congestion control
with the exit, the fixed one's none).

Every process is stopped, also on failure; sanitizer reports in any
process's output fail the test. Exit status: 0 passed; 1 a check failed; 2 usage.
Environment: CONFLUX_SYSTEM_KEEP=1 keeps the temporary directory.
"""

import argparse
import asyncio
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from chromium_through_proxy import Report  # noqa: E402
import netload  # noqa: E402

BRIDGE = "bneck"
RATE = "1 MByte"
CAPACITY_FLOOR = 0.7 * 2**20      # the single download must reach this (bytes/s) for the rest to mean anything
FIXED_QUEUE_FLOOR_MS = 20          # fixed windows' mean wait at the bridge (130-170 ms measured) when it is the bottleneck
FAIR_TOLERANCE = 0.2              # each circuit within 20% of half the capacity
FAIR_WITHIN_S = 10                # ... from some second within 10 s of the second's start
BULK = "50MiB.bin"
PHASES = [("fixed", ["OverrideConsensusParams cc_alg=0"]), ("cc", [])]
SPEC = {"relays": 2, "exits": 1, "bridges": [{"name": BRIDGE, "bandwidth_rate": RATE}],
        "relay_options": ["SchedulerSampleCells 10"],
        "proxies": [{"name": "template", "start": False, "use_bridges": True, "conflux": False}],
        "files": [{"name": BULK, "size": 50 << 20}]}


# --- figures -----------------------------------------------------------------------------------

def percentile(values, q):
    s = sorted(values)
    if not s:
        return float("nan")
    return s[min(len(s) - 1, max(0, int(round(q * (len(s) - 1)))))]


def per_second(events, start, seconds):
    """Bytes in each 1-s interval [start+i, start+i+1) from (time, bytes) events."""
    out = [0] * seconds
    for t, n in events:
        i = math.floor(t - start)
        if 0 <= i < seconds:
            out[i] += n
    return out


def fair_from(rates_a, rates_b, capacity, within=FAIR_WITHIN_S, tolerance=FAIR_TOLERANCE):
    """The first second s <= `within` from which every 1-s interval to the end has both rates
    within `tolerance` of capacity/2 (at least two intervals), or None."""
    half = capacity / 2
    n = min(len(rates_a), len(rates_b))
    for s in range(0, min(within, n - 2) + 1):
        if all(abs(rates_a[i] - half) <= tolerance * half and abs(rates_b[i] - half) <= tolerance * half
               for i in range(s, n)):
            return s
    return None


def queue_times_ms(path, kind="cell"):
    """Sampled cells' time in the relay (ms) on its busiest channel (the one towards the proxy:
    the downloads' cells; the other direction carries only SENDMEs). Cells queued before the
    trace began (QUEUED clamps to 0) are left out. kind "kernel": the sampled writes' time
    until the peer acknowledged them."""
    by_channel = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                parts = line.split()
                if len(parts) == 6 and parts[0] == kind and int(parts[4]) > 0 and int(parts[5]) > 0:
                    by_channel.setdefault(parts[1], []).append((int(parts[5]) - int(parts[4])) / 1e6)
    except OSError:
        return []
    return max(by_channel.values(), key=len) if by_channel else []


def stats(values):
    return {"n": len(values), "mean": statistics.mean(values) if values else float("nan"),
            "p50": percentile(values, 0.5), "p90": percentile(values, 0.9), "p99": percentile(values, 0.99)}


def self_checks(report):
    cap = 1000.0
    report.add(fair_from([500] * 12, [500] * 12, cap) == 0, "self-check: equal halves are fair from second 0")
    report.add(fair_from([900, 800, 700, 550, 500] + [480] * 7, [100, 200, 300, 450, 500] + [520] * 7, cap) == 3,
               "self-check: a second circuit that catches up in 3 s is fair from second 3")
    report.add(fair_from([900] * 12, [100] * 12, cap) is None, "self-check: 90/10 is never fair")
    report.add(fair_from([500] * 11 + [900], [500] * 11 + [100], cap) is None,
               "self-check: unfair at the end is not fair")
    report.add(per_second([(9.5, 3), (10.2, 5), (10.9, 5), (11.5, 7), (13.0, 1)], 10.0, 3) == [10, 7, 0],
               "self-check: per-second bytes")


# --- processes ---------------------------------------------------------------------------------

def wait_for_text(path, text, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                if text in f.read():
                    return True
        except FileNotFoundError:
            pass
        time.sleep(0.2)
    return False


class Proxy:
    """A conflux-proxy of the test's own: the template's torrc with its own ports, directory and options."""

    def __init__(self, name, exe, template_torrc, netdir, options):
        self.name = name
        self.dir = os.path.join(netdir, "test-" + name)
        os.makedirs(self.dir, exist_ok=True)
        self.socks = "127.0.0.1:%d" % netload.free_port()
        self.metrics = "http://127.0.0.1:%d/metrics" % netload.free_port()
        self.log = os.path.join(self.dir, "notice.log")
        self.output = os.path.join(self.dir, "output.log")
        keep = ("TestingTorNetwork", "DirAuthority", "UseBridges", "Bridge", "EnforceDistinctSubnets", "ConfluxEnabled")
        lines = [l for l in open(template_torrc, encoding="utf-8").read().splitlines() if l.startswith(keep)]
        lines += ["DataDirectory " + os.path.join(self.dir, "data"), "Log notice file " + self.log,
                  "SocksPort " + self.socks, "MetricsPort " + self.metrics[len("http://"):-len("/metrics")]] + options
        with open(os.path.join(self.dir, "torrc"), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        with open(self.output, "wb") as out:
            self.proc = subprocess.Popen([exe, "-f", os.path.join(self.dir, "torrc")], stdout=out, stderr=out,
                                         stdin=subprocess.DEVNULL, start_new_session=True)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def proxy_exe(net_bin, bin_dir):
    candidates = []
    for d in [bin_dir, os.environ.get("CONFLUX_BIN_DIR")]:
        if d:
            candidates += [os.path.join(d, "conflux-proxy"), os.path.join(d, "client/app/conflux-proxy")]
    build = os.path.dirname(os.path.dirname(os.path.dirname(net_bin)))  # build/X/tools/conflux-net/conflux-net
    candidates += [os.path.join(os.path.dirname(net_bin), "conflux-proxy"),
                   os.path.join(build, "client/app/conflux-proxy")]
    for c in candidates:
        if os.access(c, os.X_OK):
            return c
    raise netload.NetError("no conflux-proxy (looked at %s)" % ", ".join(candidates))


def set_traces(relays, path):
    """SchedulerTraceFile `path` % relay name (None: none) in each relay's torrc, then SIGHUP."""
    for relay in relays:
        lines = [l for l in open(relay["torrc"], encoding="utf-8").read().splitlines()
                 if not l.startswith("SchedulerTraceFile")]
        if path:
            lines.append("SchedulerTraceFile " + path % relay["name"])
        with open(relay["torrc"], "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        os.kill(relay["pid"], signal.SIGHUP)


# --- one phase ---------------------------------------------------------------------------------

async def phase(net, relays, proxy, proxy2, work, single_s, pair_s, streams):
    host, port = netload.file_server_address(net)
    size, sha, path = netload.file_table(net)[BULK]
    events = {1: [], 2: []}
    results = []

    def start(k, n=1, via=proxy):
        """`n` downloads at once on username k of proxy `via`: one circuit."""
        progress = lambda got: events[k].append((time.monotonic(), got))  # noqa: E731
        tasks = []
        for i in range(n):
            r = netload.Result("%s download %d.%d" % (proxy.name, k, i), "%s-%d" % (proxy.name, k), "GET", path,
                               size, sha)
            results.append(r)
            tasks.append(asyncio.ensure_future(netload.http_request(r, via.socks, r.user, host, port, path, 60,
                                                                    progress=progress)))
        return tasks

    traces = {w: os.path.join(work, "trace-%s-%s-%%s.txt" % (proxy.name, w)) for w in ("single", "pair")}
    tasks = start(1, streams)
    # The clock starts with the first body bytes (the circuit is built by then).
    deadline = time.monotonic() + 60
    while not events[1] and not all(t.done() for t in tasks) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    t0 = time.monotonic()
    await asyncio.sleep(single_s / 4)
    set_traces(relays, traces["single"])
    await asyncio.sleep(single_s - single_s / 4)
    set_traces(relays, traces["pair"])
    tasks += start(2, via=proxy2)
    t2 = time.monotonic()
    await asyncio.sleep(pair_s)
    set_traces(relays, None)
    # Cancelled again until done: Python 3.11's wait_for can swallow a cancellation that arrives as its
    # read completes (the download would then go on), so one cancel() is not always enough.
    pending = set(tasks)
    for _ in range(50):
        for t in pending:
            t.cancel()
        _, pending = await asyncio.wait(pending, timeout=0.2)
        if not pending:
            break
    single = per_second(events[1], t0, int(single_s))
    steady = single[int(single_s / 4):]
    # The second download's clock: its first body bytes.
    first2 = events[2][0][0] if events[2] else t2
    return {
        "single_rates": single,
        "capacity": statistics.mean(steady) if steady else 0.0,
        "pair_start_delay": first2 - t2,
        "rates_1": per_second(events[1], first2, int(pair_s - (first2 - t2))),
        "rates_2": per_second(events[2], first2, int(pair_s - (first2 - t2))),
        # Circuit 1's bytes per 100 ms from 1 s before the second download's SOCKS request to 2 s after.
        "fine_1": [sum(n for t, n in events[1] if t2 - 1 + i / 10 <= t < t2 - 1 + (i + 1) / 10) for i in range(30)],
        "errors": [r.describe() for r in results if r.error and "cancelled" not in r.error],
        "traces": {w: {r["name"]: t % r["name"] for r in relays} for w, t in traces.items()},
    }


def summarise(name, res):
    res["queue_ms"] = {w: stats(queue_times_ms(t[BRIDGE])) for w, t in res["traces"].items()}
    res["relays_single_ms"] = {r: {"queue": stats(queue_times_ms(path)), "kernel": stats(queue_times_ms(path, "kernel"))}
                               for r, path in res["traces"]["single"].items()}
    res["fair_from"] = fair_from(res["rates_1"], res["rates_2"], res["capacity"])
    mib = 2**20
    print("  %s: single download %.3f MiB/s (steady part); per second: %s" % (
        name, res["capacity"] / mib, " ".join("%.2f" % (r / mib) for r in res["single_rates"])))
    for w in ("single", "pair"):
        s = res["queue_ms"][w]
        print("  %s: bridge queue time, %s: %d sampled cells, mean %.1f ms, p50 %.1f, p90 %.1f, p99 %.1f" % (
            name, "one circuit" if w == "single" else "two circuits", s["n"], s["mean"], s["p50"], s["p90"], s["p99"]))
    for r, both in sorted(res["relays_single_ms"].items()):
        q, k = both["queue"], both["kernel"]
        if not q["n"]:
            continue  # not on the path (the middle is any of the relays and the authority)
        print("    one circuit, %-8s circuit queue to kernel: %5d cells, mean %6.1f ms, p50 %6.1f, p99 %6.1f; "
              "kernel until acked: %5d writes, mean %5.1f ms, p99 %5.1f" % (
                  r, q["n"], q["mean"], q["p50"], q["p99"], k["n"], k["mean"], k["p99"]))
    print("  %s: second download's first bytes %.2f s after it started; MiB/s per second since then:" % (
        name, res["pair_start_delay"]))
    print("    circuit 1: " + " ".join("%.2f" % (r / mib) for r in res["rates_1"]))
    print("    circuit 2: " + " ".join("%.2f" % (r / mib) for r in res["rates_2"]))
    print("  %s: fair (each within %d%% of %.3f MiB/s) from second %s" % (
        name, FAIR_TOLERANCE * 100, res["capacity"] / 2 / mib, res["fair_from"]), flush=True)


# --- the test ----------------------------------------------------------------------------------

def check(report, figures, args):
    for name, res in figures.items():
        report.add(not res["errors"], "%s: downloads ran until cancelled%s" % (
            name, "" if not res["errors"] else ": " + "; ".join(res["errors"])))
        report.add(res["capacity"] >= CAPACITY_FLOOR, "%s: the single download reached %.3f MiB/s (>= %.2f: the "
                   "bridge is the bottleneck)" % (name, res["capacity"] / 2**20, CAPACITY_FLOOR / 2**20))
        report.add(res["queue_ms"]["single"]["n"] >= 100, "%s: %d sampled cells in the bridge's trace (>= 100)" % (
            name, res["queue_ms"]["single"]["n"]))
    fixed, cc = figures["fixed"]["queue_ms"]["single"], figures["cc"]["queue_ms"]["single"]
    # Fixed windows put up to a stream window of cells in flight; if they do not wait at the bridge,
    # something else (a CPU-starved relay) was the bottleneck and no queue figure below means anything.
    report.add(fixed["mean"] >= FIXED_QUEUE_FLOOR_MS, "fixed windows queue at the bridge (mean %.1f ms >= %d ms): "
               "the bridge's bucket is the bottleneck" % (fixed["mean"], FIXED_QUEUE_FLOOR_MS))
    if args.report:
        # Congestion control in effect at all: the queue differs from fixed windows'. (The issue's
        # thresholds are checked without --report.)
        report.add(cc["mean"] < fixed["mean"], "CC's mean queue time in the bottleneck is below fixed windows' "
                   "(%.1f ms vs %.1f ms: ratio %.2f)" % (cc["mean"], fixed["mean"], cc["mean"] / fixed["mean"]))
        return
    report.add(cc["mean"] * args.queue_ratio <= fixed["mean"],
               "CC's mean queue time in the bottleneck is at most 1/%g of fixed windows' (%.1f ms vs %.1f ms: "
               "ratio %.2f)" % (args.queue_ratio, cc["mean"], fixed["mean"], cc["mean"] / fixed["mean"]))
    f = figures["cc"]["fair_from"]
    report.add(f is not None, "CC: a second circuit reaches a fair share within %d s (from second %s)" % (
        FAIR_WITHIN_S, f))


def check_mode(report, proxy):
    """Each proxy ran its mode: the CC one's circuits agreed on congestion control with the exit, the
    fixed-window one's never did (it does not ask)."""
    try:
        agreed = netload.metric(netload.metrics(proxy.metrics), "conflux_proxy_cc_circuits_total",
                                'mode="congestion_control"')
    except OSError as e:
        report.add(False, "proxy %s: no metrics (%s)" % (proxy.name, e))
        return
    if proxy.name.startswith("cc"):
        report.add(agreed >= 1, "proxy %s: %d circuits on congestion control (>= 1)" % (proxy.name, agreed))
    else:
        report.add(agreed == 0, "proxy %s: %d circuits on congestion control (0: fixed windows)" % (proxy.name, agreed))


def run(report, net_bin, netdir, work, args):
    spec = dict(SPEC, relay_options=SPEC["relay_options"] + args.relay_option)
    net = netload.net_up(net_bin, netdir, spec, args.bin_dir)
    report.add(True, "conflux-net up in %.1f s" % net["_up_seconds"])
    procs = {p["name"]: p for p in net["processes"]}
    relays = [p for p in net["processes"] if p["role"] in ("authority", "relay", "exit", "bridge")]
    exe = proxy_exe(os.path.abspath(net_bin), args.bin_dir)
    proxies = []
    try:
        for name, options in PHASES:
            proxies.append(Proxy(name, exe, procs["template"]["torrc"], netdir, options))
            if args.second_channel:
                proxies.append(Proxy(name + "-b", exe, procs["template"]["torrc"], netdir, options))
        started = time.monotonic()
        for p in proxies:
            if not report.add(wait_for_text(p.log, "Bootstrapped 100%", 60), "proxy %s bootstrapped (%.1f s after "
                              "the proxies started)" % (p.name, time.monotonic() - started)):
                print(netload.tail_file(p.log, 20))
                return None
        figures = {}
        by_name = {p.name: p for p in proxies}
        for name, _ in PHASES:
            p = by_name[name]
            time.sleep(2)  # the bridge's bucket refills (burst = one second of its rate)
            started = time.monotonic()
            figures[p.name] = asyncio.run(phase(net, relays, p, by_name.get(name + "-b", p), work, args.single,
                                                args.pair, args.streams))
            print("  %s: phase took %.1f s" % (p.name, time.monotonic() - started))
            summarise(p.name, figures[p.name])
        check(report, figures, args)
        for p in proxies:
            check_mode(report, p)
        return figures
    finally:
        started = time.monotonic()
        for p in proxies:  # their output.log is under netdir: tear_down looks for sanitizer reports there
            p.stop()
        print("  proxies stopped in %.1f s" % (time.monotonic() - started), flush=True)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("net_bin")
    ap.add_argument("--bin-dir")
    ap.add_argument("--report", action="store_true", help="print the figures; check that everything ran and CC's queue is below fixed windows', "
                    "not issue 14's thresholds")
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--single", type=float, default=16.0, help="seconds of the single download")
    ap.add_argument("--pair", type=float, default=13.0, help="seconds of both downloads")
    ap.add_argument("--queue-ratio", type=float, default=5.0)
    ap.add_argument("--streams", type=int, default=1, choices=(1, 2, 3, 4),
                    help="downloads at once on the first circuit (fixed windows: 500 cells per stream, 1000 per circuit)")
    ap.add_argument("--second-channel", action="store_true",
                    help="the second download through another proxy of the same mode: another channel at the "
                         "bridge (default: the same proxy, so the same channel)")
    ap.add_argument("--relay-option", action="append", default=[],
                    help="an extra torrc line for every relay (experiments: \"CircuitPriorityHalflife 0\")")
    args = ap.parse_args(argv[1:])
    if not 4 <= args.single <= 120 or not FAIR_WITHIN_S + 2 <= args.pair <= 120:
        ap.error("--single 4 to 120, --pair %d to 120" % (FAIR_WITHIN_S + 2))
    net_bin = os.path.abspath(args.net_bin)
    t0 = time.monotonic()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    signal.signal(signal.SIGHUP, lambda *_: sys.exit(129))
    report = Report()
    self_checks(report)
    tmp = tempfile.mkdtemp(prefix="conflux-bottleneck-")
    netdir = os.path.join(tmp, "net")
    try:
        figures = run(report, net_bin, netdir, tmp, args)
        if figures and args.json:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump(figures, f, indent=1)
    except netload.NetError as e:
        report.add(False, str(e))
    except Exception as e:  # any surprise is a failed check, and the network still goes down
        report.add(False, "unexpected error: %s: %s" % (type(e).__name__, e))
    finally:
        netload.tear_down(report, net_bin, netdir, tmp)
    return netload.summary(report, t0)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
