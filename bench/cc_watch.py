#!/usr/bin/python3
"""Watch one circuit's congestion control during a download (issue 14).

Usage: bench/cc_watch.py [--size 50MiB] [--runs 1] [--interval 0.1] [--build-dir build/release]
                         [--relay-option LINE ...] [--conflux] [--perf] [--out cc_watch.json] [--keep]

Starts `conflux-net up` (1 authority, 6 relays of which 2 exits, no bridges, one proxy `cfx0` with
ConfluxEnabled 0, or 1 with --conflux), every relay with `MetricsPort auto` (its port read from its notice.log) plus the
--relay-option lines. For each run: a fresh SOCKS username, a `prime` request on it (the circuit is
built), 0.5 s, then the measured curl of the file while the proxy's and both exits' MetricsPorts are
scraped every --interval seconds: the proxy's conflux_proxy_cc_* and stream-flow counters, the
exits' conflux_relay_cc_* and exit stream-flow counters. Prints, per run, MiB/s, CPU s/MiB of every
network process (as bench/vs_tor.py counts it) and of each one, and a summary of the exit circuit's
Vegas state (cwnd, inflight, BDP, RTT, min RTT, slow start, XOFF/XON): with --conflux, of both legs
(the two circuits with the most cells in flight); --out keeps every sample.
--perf also runs `perf record -g` on the exit, the guard, the middle and the proxy during the first
run (perf.data.NAME in the network directory; `perf report -i ...` to read them).

Only 127.0.0.1. Everything started is stopped (`conflux-net down`, perf by its pid).
"""

import argparse
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MiB = 1 << 20
SIZE_BYTES = {"320KiB": 320 << 10, "1MiB": MiB, "5MiB": 5 * MiB, "50MiB": 50 * MiB}
CLK_TCK = os.sysconf("SC_CLK_TCK")
SAMPLE_RE = re.compile(r'^([a-z_]+)(\{[^}]*\})? (\S+)$')
WATCH = ("conflux_proxy_cc_", "conflux_proxy_stream_flow", "conflux_relay_cc_", "conflux_relay_exit_stream_flow",
         "conflux_relay_exit_bytes_total")


def log(msg):
    print("[cc_watch %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def scrape(url):
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            text = r.read().decode()
    except OSError:
        return {}
    out = {}
    for line in text.splitlines():
        m = SAMPLE_RE.match(line)
        if m and m.group(1).startswith(WATCH):
            out[m.group(1) + (m.group(2) or "")] = float(m.group(3))
    return out


def cpu(pid):
    try:
        with open("/proc/%d/stat" % pid, encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except OSError:
        return 0


def metrics_port(notice_log):
    try:
        with open(notice_log, encoding="utf-8", errors="replace") as f:
            m = re.search(r"Opened Metrics listener on 127\.0\.0\.1:(\d+)", f.read())
    except OSError:
        return None
    return int(m.group(1)) if m else None


def curl_cmd(socks, user, url, dest, max_time):
    return ["curl", "-s", "-o", dest, "--max-time", str(max_time), "--socks5-hostname", socks, "--proxy-user",
            user + ":x", "-w", "%{json}", url]


def circuit_series(samples, family):
    """{circuit: value} of one per-circuit family in one scrape."""
    out = {}
    for key, v in samples.items():
        if key.startswith(family + "{circuit="):
            out[key[len(family) + len('{circuit="'):-2]] = v
    return out


def summarize(timeline, legs=1):
    """The exit circuits of the download (its one circuit, or a Conflux set's `legs`): cwnd, RTT etc.
    over the run (percentiles of the samples), the busiest circuit first."""
    series = {}
    for t, per in timeline:
        for name, samples in per.items():
            if not name.startswith("exit"):
                continue
            for fam in ("cwnd_cells", "inflight_cells", "bdp_cells", "rtt_seconds", "min_rtt_seconds", "slow_start"):
                for circ, v in circuit_series(samples, "conflux_relay_cc_" + fam).items():
                    series.setdefault((name, circ), {}).setdefault(fam, []).append((t, v))
    if not series:
        return None
    # The download's circuits: the ones that had the most cells in flight.
    keys = sorted(series, key=lambda k: -max((v for _, v in series[k].get("inflight_cells", [])), default=0))
    return [summarize_circuit(k, series[k]) for k in keys[:legs]]


def summarize_circuit(key, s):
    def pct(fam, q):
        vals = sorted(v for _, v in s.get(fam, []))
        return vals[min(len(vals) - 1, int(q * len(vals)))] if vals else None

    ss = s.get("slow_start", [])
    left = next((t for t, v in ss if v == 0), None)
    return {"exit": key[0], "circuit": key[1], "samples": len(s.get("cwnd_cells", [])),
            "slow_start_left_at_s": left,
            **{"%s_p%d" % (fam, int(q * 100)): pct(fam, q)
               for fam in ("cwnd_cells", "inflight_cells", "bdp_cells", "rtt_seconds", "min_rtt_seconds")
               for q in (0.1, 0.5, 0.9)}}


def counters_delta(first, last, prefix):
    return {k: last.get(k, 0) - first.get(k, 0) for k in last if k.startswith(prefix)}


def run_once(args, ctx, rep, perf):
    user = "ccw-%s-%d" % (ctx["nonce"], rep)
    dest = ctx["dest"]
    subprocess.run(curl_cmd(ctx["socks"], user, ctx["prime_url"], dest, 60), stdout=subprocess.DEVNULL, check=False)
    time.sleep(0.5)
    urls = ctx["scrape"]
    first = {n: scrape(u) for n, u in urls.items()}
    perfs = []
    if perf:
        for name, pid in ctx["perf_pids"].items():
            out = os.path.join(ctx["net_dir"], "perf.data." + name)
            perfs.append(subprocess.Popen(["perf", "record", "-g", "-q", "-o", out, "-p", str(pid)],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        time.sleep(0.3)
    c0 = {n: cpu(p) for n, p in ctx["pids"].items()}
    t0 = time.monotonic()
    proc = subprocess.Popen(curl_cmd(ctx["socks"], user, ctx["file_url"], dest, 300), stdout=subprocess.PIPE, text=True)
    timeline = []
    while proc.poll() is None:
        t = time.monotonic() - t0
        timeline.append((t, {n: scrape(u) for n, u in urls.items()}))
        time.sleep(args.interval)
    wall = time.monotonic() - t0
    c1 = {n: cpu(p) for n, p in ctx["pids"].items()}
    for p in perfs:
        p.send_signal(signal.SIGINT)
    for p in perfs:
        p.wait(timeout=60)
    res = json.loads(proc.stdout.read() or "{}")
    last = {n: scrape(u) for n, u in urls.items()}
    mib = ctx["size"] / MiB
    per = {n: (c1[n] - c0[n]) / CLK_TCK for n in c0}
    out = {"rep": rep, "ok": res.get("size_download") == ctx["size"], "wall_s": wall,
           "mib_s": ctx["size"] / MiB / res["time_total"] if res.get("time_total") else None,
           "ttfb_s": res.get("time_starttransfer"),
           "cpu_s_per_mib": sum(per.values()) / mib, "cpu_s_per_mib_by_process": {n: v / mib for n, v in per.items()},
           "flow": {n: counters_delta(first[n], last[n], ("conflux_proxy_stream_flow", "conflux_relay_exit_stream_flow",
                                                          "conflux_relay_cc_slow_start_exits"))
                    for n in urls},
           "exit_circuits": summarize(timeline, 2 if args.conflux else 1), "timeline": timeline}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", default="50MiB", choices=sorted(SIZE_BYTES))
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--interval", type=float, default=0.1)
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build", "release"))
    ap.add_argument("--relay-option", action="append", default=[], help="extra torrc line for every relay")
    ap.add_argument("--conflux", action="store_true", help="the proxy runs Conflux (ConfluxEnabled 1)")
    ap.add_argument("--perf", action="store_true", help="perf record the exit, guard, middle and proxy (first run)")
    ap.add_argument("--out", default="cc_watch.json")
    ap.add_argument("--keep", action="store_true", help="keep the network directory")
    args = ap.parse_args()
    net_exe = os.path.join(args.build_dir, "tools", "conflux-net", "conflux-net")
    work = tempfile.mkdtemp(prefix="cc-watch-")
    net_dir = os.path.join(work, "net")
    spec = {"bridges": [], "proxies": [{"name": "cfx0", "conflux": args.conflux}],
            "relay_options": ["MetricsPort auto"] + args.relay_option,
            "files": [{"name": "prime", "size": 13}, {"name": args.size + ".bin", "size": SIZE_BYTES[args.size]}]}
    with open(os.path.join(work, "spec.json"), "w", encoding="utf-8") as f:
        json.dump(spec, f)
    results = {"spec": spec, "runs": []}
    rc = 1
    try:
        up = subprocess.run([net_exe, "up", "--dir", net_dir, "--spec", os.path.join(work, "spec.json"),
                             "--bin-dir", args.build_dir], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, check=False)
        if up.returncode != 0:
            sys.stderr.write(up.stdout)
            return 1
        with open(os.path.join(net_dir, "network.json"), encoding="utf-8") as f:
            net = json.load(f)
        procs = [p for p in net["processes"] if p.get("started") and p["role"] in
                 ("authority", "relay", "exit", "proxy")]
        files = {f["name"]: f for f in net["files"]}
        proxy = next(p for p in procs if p["role"] == "proxy")
        scrape_urls = {"proxy": "http://127.0.0.1:%d/metrics" % proxy["ports"]["metrics"]}
        for p in procs:
            if p["role"] == "exit":
                port = metrics_port(p["log"])
                if port:
                    scrape_urls[p["name"]] = "http://127.0.0.1:%d/metrics" % port
        ctx = {"nonce": secrets.token_hex(3), "socks": "127.0.0.1:%d" % proxy["ports"]["socks"],
               "prime_url": files["prime"]["url"], "file_url": files[args.size + ".bin"]["url"],
               "size": SIZE_BYTES[args.size], "scrape": scrape_urls, "net_dir": net_dir,
               "pids": {p["name"]: p["pid"] for p in procs},
               "dest": os.path.join("/dev/shm" if os.access("/dev/shm", os.W_OK) else work, "ccw-%d" % os.getpid())}
        log("network up; scraping %s" % sorted(scrape_urls))
        subprocess.run(curl_cmd(ctx["socks"], "warm-" + ctx["nonce"], ctx["prime_url"], ctx["dest"], 60),
                       stdout=subprocess.DEVNULL, check=False)
        for rep in range(args.runs):
            perf = args.perf and rep == 0
            if perf:
                ctx["perf_pids"] = {p["name"]: p["pid"] for p in procs if p["role"] in ("relay", "exit", "proxy")}
            r = run_once(args, ctx, rep, perf)
            results["runs"].append(r)
            log("run %d: ok=%s %.2f MiB/s, CPU %.4f s/MiB %s" % (
                rep, r["ok"], r["mib_s"] or 0, r["cpu_s_per_mib"],
                {n: round(v, 4) for n, v in r["cpu_s_per_mib_by_process"].items() if v > 0}))
            for c in r["exit_circuits"] or []:
                log("  exit circuit: %s" % json.dumps(c))
            log("  flow: %s" % json.dumps({n: {k: v for k, v in d.items() if v} for n, d in r["flow"].items()}))
        rc = 0
    finally:
        subprocess.run([net_exe, "down", "--dir", net_dir], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=False)
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(results, f)
        if args.keep:
            log("kept %s" % net_dir)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
