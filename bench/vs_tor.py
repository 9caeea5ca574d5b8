#!/usr/bin/python3
"""Side by side with stock tor (issue 14): one circuit, Conflux with 2 legs, CPU per MiB, TTFB.

Usage: bench/vs_tor.py [--runs 5] [--sizes 5MiB,50MiB] [--build-dir build/release]
                       [--out vs_tor.json] [--skip-tor] [--skip-ours] [--tor-arg ARG ...]

Both networks run on 127.0.0.1 only, one after the other, in one sitting:

1. stock tor: tools/tornet/run.sh (N=--runs, SIZES=--sizes, TORNET_NETNS=0, so the host's
   loopback like ours; default consensus params "live"). Its client `clientcfx0`
   (ConfluxEnabled 0) is "one circuit", `clientcfx1` (ConfluxEnabled 1, checked per stream
   to be on a linked 2-leg set) is "Conflux, 2 legs". Its JSON is embedded in ours.
2. ours: `conflux-net up` with one authority, 6 relays (2 exits), no bridges and TWO proxies:
   `cfx1` (ConfluxEnabled 1) and `cfx0` (ConfluxEnabled 0); its file server serves a 13-byte
   `prime` and the seeded random test files. For each size, --runs times, both proxies in
   alternating order, the same procedure as tornet: a fresh SOCKS username (a fresh circuit
   or Conflux set), a `prime` request on it, 0.5 s pause, then the measured
   `curl --socks5-hostname --proxy-user USER:x -w '%{json}'` on the same username. The body's
   SHA-256 is checked against network.json.

Definitions (the same on both sides):
  MiB/s     bytes / curl's time_total, 1 MiB = 2^20 B
  TTFB      curl's time_starttransfer for the measured request (on an already-built circuit)
  CPU s/MiB utime+stime (/proc/PID/stat, 10 ms ticks) of EVERY process of the network (tor: all
            11 tors; ours: the authority, every relay and both proxies), after minus before
            the measured transfer, divided by the MiB delivered. Not counted on either side:
            the file server and curl (recorded separately).

The table's CPU and TTFB rows pool both clients' runs of that size (2 x runs values); the per-client
figures are printed below it. Ratios are ours / stock tor. Targets (issue 14): one circuit >= 5x
tor's; our Conflux >= 1.8x our one circuit; CPU <= 0.25x; TTFB <= 0.5x.

Exit status: 0 ran (targets met or not), 1 a side failed or a download failed its check, 2 usage.
Every process started here is stopped again (run.sh by its pid, which stops its tors; our network
by `conflux-net down`, which stops the pids it recorded).
"""

import argparse
import hashlib
import json
import os
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MiB = 1 << 20
SIZE_BYTES = {"320KiB": 320 << 10, "1MiB": MiB, "5MiB": 5 * MiB, "50MiB": 50 * MiB}
CLK_TCK = os.sysconf("SC_CLK_TCK")
PRIME = "prime"
TARGETS = {"one_circuit": 5.0, "conflux_vs_own_single": 1.8, "cpu": 0.25, "ttfb": 0.5}


class Interrupted(Exception):
    pass


def on_signal(signum, _frame):
    raise Interrupted("signal %d" % signum)


def log(msg):
    print("[vs_tor %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def stats(values):
    values = [v for v in values if v is not None]
    if not values:
        return {"n": 0, "median": None, "min": None, "max": None}
    return {"n": len(values), "median": statistics.median(values), "min": min(values), "max": max(values)}


# ---- stock tor -----------------------------------------------------------------------------------

def run_tor(args, sizes, out_dir):
    out = os.path.join(out_dir, "tornet.json")
    env = dict(os.environ, N=str(args.runs), SIZES=",".join(sizes), TORNET_NETNS="0",
               BASE_PORT=str(args.tor_base_port))
    argv = [os.path.join(REPO, "tools", "tornet", "run.sh"), out] + args.tor_arg
    log("stock tor: %s (N=%d SIZES=%s TORNET_NETNS=0 BASE_PORT=%d)" %
        (" ".join(argv), args.runs, ",".join(sizes), args.tor_base_port))
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=None, text=True)
    try:
        stdout, _ = proc.communicate()
    finally:
        if proc.poll() is None:  # interrupted: run.sh's trap stops every tor it started
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    log("stock tor: run.sh exit %d after %.0f s" % (proc.returncode, time.monotonic() - t0))
    sys.stderr.write(stdout)
    if not os.path.exists(out):
        return {"ok": False, "rc": proc.returncode, "error": "run.sh wrote no JSON"}
    with open(out, encoding="utf-8") as f:
        raw = json.load(f)
    res = {"ok": proc.returncode == 0, "rc": proc.returncode, "raw": raw, "cells": {}}
    for client, key in (("clientcfx0", "single"), ("clientcfx1", "conflux")):
        for size in sizes:
            runs = [r for r in raw.get("runs", []) if r["client"] == client and r["size"] == size]
            ok = [r for r in runs if r.get("ok")]
            mib = SIZE_BYTES[size] / MiB
            res["cells"].setdefault(key, {})[size] = {
                "runs": len(runs), "ok": len(ok),
                "on_2leg_conflux_set": sum(1 for r in ok if r.get("circ_purpose") == "CONFLUX_LINKED"),
                "MiBps": [r["goodput_MiBps"] for r in ok],
                "ttfb_s": [r["ttfb_s"] for r in ok],
                "cpu_s_per_MiB": [r["cpu"]["tor_total_s"] / mib for r in ok if "cpu" in r],
                "fileserver_cpu_s_per_MiB": [r["cpu"]["http_server_s"] / mib for r in ok if "cpu" in r],
            }
    return res


# ---- ours ----------------------------------------------------------------------------------------

def proc_stat(pid):
    """(utime+stime ticks, start time) of pid, or None when it is gone."""
    try:
        with open("/proc/%d/stat" % pid, encoding="ascii", errors="replace") as f:
            s = f.read()
    except OSError:
        return None
    fields = s[s.rindex(")") + 2:].split()  # fields from 3 on
    return int(fields[11]) + int(fields[12]), int(fields[19])


def cpu_snapshot(procs):
    snap = {}
    for p in procs:
        st = proc_stat(p["pid"])
        if st is None or st[1] != p["start_time"]:
            raise RuntimeError("%s (pid %d) is gone" % (p["name"], p["pid"]))
        snap[p["name"]] = st[0]
    return snap


def curl(socks, user, url, dest, max_time):
    argv = ["curl", "-sS", "-o", dest, "--max-time", str(int(max_time)), "--connect-timeout", "60",
            "--socks5-hostname", socks, "--proxy-user", "%s:x" % user, "-w", "%{json}", url]
    try:
        r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=max_time + 15,
                           check=False)
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": "curl hung past --max-time"}
    try:
        j = json.loads(r.stdout.decode(errors="replace"))
    except ValueError:
        return {"ok": False, "error": "curl rc=%d %s" % (r.returncode, r.stderr.decode(errors="replace")[-300:])}
    out = {k: j.get(k) for k in ("time_connect", "time_starttransfer", "time_total", "size_download",
                                 "http_code")}
    out["ok"] = r.returncode == 0 and j.get("http_code") == 200
    if not out["ok"]:
        out["error"] = "curl rc=%d http=%s %s" % (r.returncode, j.get("http_code"),
                                                 r.stderr.decode(errors="replace")[-300:])
    return out


NO_PROXY_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # ignore *_proxy variables


def scrape(url):
    """{(name, labels): value} from a Prometheus text page on 127.0.0.1, or {} when it cannot be read."""
    if not url.startswith("http://127.0.0.1:"):
        return {}
    try:
        with NO_PROXY_OPENER.open(url, timeout=5) as r:
            text = r.read().decode(errors="replace")
    except OSError:
        return {}
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        key, _, value = line.rpartition(" ")
        try:
            out[key] = float(value)
        except ValueError:
            pass
    return out


def leg_evidence(before, after):
    """Which Conflux legs carried the measured transfer, from the proxy's metrics before and after it."""
    name = "conflux_proxy_conflux_leg_cells_received_total"
    deltas = {k: v - before.get(k, 0) for k, v in after.items() if k.startswith(name + "{")}
    total = sum(d for d in deltas.values() if d > 0)
    carrying = {k: d for k, d in deltas.items() if total and d > 0.01 * total}

    def set_of(key):
        return key.split('set="', 1)[1].split('"', 1)[0] if 'set="' in key else "?"

    sets = {set_of(k) for k in carrying}
    legs_in_sets = sum(1 for k in after if k.startswith(name + "{") and set_of(k) in sets)
    fb = "conflux_proxy_conflux_streams_fallback_total"
    return {"cells_received": total, "legs_carrying_data": len(carrying), "legs_in_set": legs_in_sets,
            "sets_used": len(sets),
            "split": sorted((round(d / total, 3) for d in carrying.values()), reverse=True) if total else [],
            "streams_fell_back": after.get(fb, 0) - before.get(fb, 0),
            "on_2leg_set": len(sets) == 1 and legs_in_sets >= 2 and after.get(fb, 0) == before.get(fb, 0)}


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def run_ours(args, sizes, out_dir):
    net_exe = os.path.join(args.build_dir, "tools", "conflux-net", "conflux-net")
    for rel in ("tools/conflux-net/conflux-net", "client/app/conflux-proxy"):
        if not os.access(os.path.join(args.build_dir, rel), os.X_OK):
            return {"ok": False, "error": "no %s/%s (cmake --preset release && cmake --build --preset release -j2)"
                    % (args.build_dir, rel)}
    work = tempfile.mkdtemp(prefix="vs-tor-")
    net_dir = os.path.join(work, "net")
    spec = {"bridges": [],
            "proxies": [{"name": "cfx1", "conflux": True}, {"name": "cfx0", "conflux": False}],
            "files": [{"name": PRIME, "size": 13}] + [{"name": s + ".bin", "size": SIZE_BYTES[s]} for s in sizes]}
    spec_path = os.path.join(work, "spec.json")
    with open(spec_path, "w", encoding="utf-8") as f:
        json.dump(spec, f)
    res = {"ok": False, "spec": spec, "build_dir": args.build_dir, "runs": [], "cells": {}}
    dl_dir = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else work
    dest = os.path.join(dl_dir, "vs-tor-%d.body" % os.getpid())
    started = False
    try:
        log("ours: conflux-net up --dir %s --spec %s --bin-dir %s" % (net_dir, spec_path, args.build_dir))
        started = True
        t0 = time.monotonic()
        up = subprocess.run([net_exe, "up", "--dir", net_dir, "--spec", spec_path, "--bin-dir", args.build_dir],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
        res["up_s"] = time.monotonic() - t0
        if up.returncode != 0:
            sys.stderr.write(up.stdout)
            res["error"] = "conflux-net up failed (exit %d)" % up.returncode
            return res
        with open(os.path.join(net_dir, "network.json"), encoding="utf-8") as f:
            net = json.load(f)
        procs = [p for p in net["processes"] if p.get("started") and p.get("pid", 0) > 1]
        network = [p for p in procs if p["role"] in ("authority", "relay", "exit", "bridge", "proxy")]
        fileserver = [p for p in procs if p["role"] == "fileserver"]
        res["processes"] = [{k: p.get(k) for k in ("name", "role", "pid", "binary")} for p in procs]
        proxies = {p["name"]: "127.0.0.1:%d" % p["ports"]["socks"] for p in network if p["role"] == "proxy"}
        metrics = {p["name"]: "http://127.0.0.1:%d/metrics" % p["ports"]["metrics"]
                   for p in network if p["role"] == "proxy" and p["ports"].get("metrics")}
        files = {f["name"]: f for f in net["files"]}
        log("ours: ready in %.0f s; %d network processes (CPU counted), proxies %s"
            % (res["up_s"], len(network), proxies))
        nonce = secrets.token_hex(3)
        for name, socks in proxies.items():  # warm-up: first circuits built, files in the page cache
            curl(socks, "warm-%s-%s" % (nonce, name), files[PRIME]["url"], dest, 60)
        order = [("cfx0", "single"), ("cfx1", "conflux")]
        seq = 0
        failed = 0
        for size in sizes:
            f = files[size + ".bin"]
            mib = f["size"] / MiB
            max_time = max(60, int(f["size"] / (200 << 10)) + 30)
            for rep in range(args.runs):
                for name, key in (order if rep % 2 == 0 else order[::-1]):
                    seq += 1
                    user = "vt-%s-%s-%s-%d-%d" % (nonce, name, size, rep, seq)
                    rec = {"proxy": name, "kind": key, "size": size, "rep": rep, "user": user}
                    prime = curl(proxies[name], user, files[PRIME]["url"], dest, 60)
                    rec["prime_ok"] = prime["ok"]
                    rec["prime_ttfb_s"] = prime.get("time_starttransfer")
                    m0 = scrape(metrics.get(name, "")) if key == "conflux" else None
                    time.sleep(args.pause)
                    c0, fs0 = cpu_snapshot(network), cpu_snapshot(fileserver)
                    t0 = time.monotonic()
                    r = curl(proxies[name], user, f["url"], dest, max_time)
                    wall = time.monotonic() - t0
                    c1, fs1 = cpu_snapshot(network), cpu_snapshot(fileserver)
                    if m0 is not None:  # outside the CPU window: a scrape costs the proxy CPU
                        rec["conflux"] = leg_evidence(m0, scrape(metrics.get(name, "")))
                    rec.update({k: r.get(k) for k in ("ok", "error", "time_starttransfer", "time_total",
                                                      "size_download")})
                    if rec["ok"]:
                        digest = sha256_file(dest)
                        if digest != f["sha256"]:
                            rec["ok"] = False
                            rec["error"] = "SHA-256 %s, expected %s" % (digest, f["sha256"])
                    if os.path.exists(dest):
                        os.unlink(dest)
                    per = {n: (c1[n] - c0[n]) / CLK_TCK for n in c0}
                    rec["cpu"] = {"wall_s": wall, "per_process_s": per, "network_total_s": sum(per.values()),
                                  "fileserver_s": sum(fs1[n] - fs0[n] for n in fs0) / CLK_TCK}
                    if rec["ok"]:
                        rec["ttfb_s"] = r["time_starttransfer"]
                        rec["goodput_MiBps"] = mib / r["time_total"]
                        cfx = rec.get("conflux")
                        log("ours: %-4s %-6s rep %d: ttfb %.3f s, %.2f MiB/s, CPU %.4f s/MiB%s"
                            % (name, size, rep + 1, rec["ttfb_s"], rec["goodput_MiBps"],
                               rec["cpu"]["network_total_s"] / mib,
                               "" if cfx is None else ", legs in set %d, carrying data %d, split %s, fell back %d"
                               % (cfx["legs_in_set"], cfx["legs_carrying_data"], cfx["split"],
                                  cfx["streams_fell_back"])))
                    else:
                        failed += 1
                        log("ours: %-4s %-6s rep %d FAILED: %s" % (name, size, rep + 1, rec.get("error")))
                    res["runs"].append(rec)
        for name, key in order:
            for size in sizes:
                mib = SIZE_BYTES[size] / MiB
                ok = [r for r in res["runs"] if r["proxy"] == name and r["size"] == size and r["ok"]]
                res["cells"].setdefault(key, {})[size] = {
                    "runs": args.runs, "ok": len(ok),
                    "on_2leg_conflux_set": sum(1 for r in ok if r.get("conflux", {}).get("on_2leg_set")),
                    "MiBps": [r["goodput_MiBps"] for r in ok],
                    "ttfb_s": [r["ttfb_s"] for r in ok],
                    "cpu_s_per_MiB": [r["cpu"]["network_total_s"] / mib for r in ok],
                    "fileserver_cpu_s_per_MiB": [r["cpu"]["fileserver_s"] / mib for r in ok],
                }
        res["ok"] = failed == 0
        return res
    finally:
        if os.path.exists(dest):
            os.unlink(dest)
        if started:
            down = subprocess.run([net_exe, "down", "--dir", net_dir], stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, check=False)
            if down.returncode != 0:
                sys.stderr.write(down.stdout)
        if args.keep:
            log("ours: kept %s" % work)
        else:
            shutil.rmtree(work, ignore_errors=True)


# ---- the table -----------------------------------------------------------------------------------

def fmt(st, f):
    if st["median"] is None:
        return "-"
    return (f + " [" + f + ", " + f + "]") % (st["median"], st["min"], st["max"])


def ratio(a, b):
    if a["median"] is None or b["median"] is None or b["median"] == 0:
        return None
    return a["median"] / b["median"]


def table(tor, ours, sizes):
    """Prints the markdown tables; returns the summary (medians, ratios, targets) for the JSON."""
    summary = {}
    empty = {"MiBps": [], "ttfb_s": [], "cpu_s_per_MiB": []}

    def cell(side, key, size):
        return (side or {}).get("cells", {}).get(key, {}).get(size, empty)

    for size in sizes:
        t1, t2 = cell(tor, "single", size), cell(tor, "conflux", size)
        o1, o2 = cell(ours, "single", size), cell(ours, "conflux", size)
        rows = [
            ("one circuit (MiB/s)", stats(t1["MiBps"]), stats(o1["MiBps"]), "%.2f"),
            ("Conflux, 2 legs (MiB/s)", stats(t2["MiBps"]), stats(o2["MiBps"]), "%.2f"),
            ("CPU s per MiB, every process of the network", stats(t1["cpu_s_per_MiB"] + t2["cpu_s_per_MiB"]),
             stats(o1["cpu_s_per_MiB"] + o2["cpu_s_per_MiB"]), "%.4f"),
            ("time to first byte (ms)", stats([v * 1000 for v in t1["ttfb_s"] + t2["ttfb_s"]]),
             stats([v * 1000 for v in o1["ttfb_s"] + o2["ttfb_s"]]), "%.1f"),
        ]
        detail = [
            ("  CPU s/MiB, one circuit", stats(t1["cpu_s_per_MiB"]), stats(o1["cpu_s_per_MiB"]), "%.4f"),
            ("  CPU s/MiB, Conflux", stats(t2["cpu_s_per_MiB"]), stats(o2["cpu_s_per_MiB"]), "%.4f"),
            ("  TTFB ms, one circuit", stats([v * 1000 for v in t1["ttfb_s"]]),
             stats([v * 1000 for v in o1["ttfb_s"]]), "%.1f"),
            ("  TTFB ms, Conflux", stats([v * 1000 for v in t2["ttfb_s"]]),
             stats([v * 1000 for v in o2["ttfb_s"]]), "%.1f"),
        ]
        n = max(len(t1["MiBps"]), len(o1["MiBps"]), 1)
        print()
        print("### %s (median [min, max]; throughput rows n<=%d per cell, CPU/TTFB rows pool both clients)"
              % (size, n))
        print()
        print("| %s | stock tor | ours | ratio |" % size)
        print("|---|---|---|---|")
        s = {}
        for label, a, b, f in rows + detail:
            r = ratio(b, a)
            print("| %s | %s | %s | %s |" % (label, fmt(a, f), fmt(b, f), "-" if r is None else "%.2fx" % r))
            s[label.strip()] = {"tor": a, "ours": b, "ratio": r}
        own = ratio(stats(o2["MiBps"]), stats(o1["MiBps"]))
        checks = [
            ("one circuit, ours / tor", ratio(stats(o1["MiBps"]), stats(t1["MiBps"])), ">=", TARGETS["one_circuit"]),
            ("Conflux 2 legs / our one circuit", own, ">=", TARGETS["conflux_vs_own_single"]),
            ("CPU s/MiB, ours / tor", s[rows[2][0]]["ratio"], "<=", TARGETS["cpu"]),
            ("TTFB, ours / tor", s[rows[3][0]]["ratio"], "<=", TARGETS["ttfb"]),
        ]
        print()
        for label, v, op, target in checks:
            if v is None:
                verdict, shown = "n/a", "-"
            else:
                met = v >= target if op == ">=" else v <= target
                verdict, shown = ("met" if met else "NOT met"), "%.2fx" % v
            print("- %s = %s (target %s %.2fx): %s" % (label, shown, op, target, verdict))
            s["target: " + label] = {"value": v, "op": op, "target": target, "verdict": verdict}
        for side, c in (("stock tor", t2), ("ours", o2)):
            if c["MiBps"]:
                print("- %s: Conflux transfers on a linked 2-leg set: %d/%d"
                      % (side, c.get("on_2leg_conflux_set", 0), len(c["MiBps"])))
        summary[size] = s
    return summary


def parse_sizes(ap, text):
    sizes = [s.strip() for s in text.split(",") if s.strip()]
    for s in sizes:
        if s not in SIZE_BYTES:
            ap.error("unknown size %r (one of %s: the names tornet knows)" % (s, ", ".join(SIZE_BYTES)))
    return sizes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--runs", type=int, default=5, help="transfers per (client, size) on each side (default 5)")
    ap.add_argument("--sizes", default="5MiB,50MiB", help="comma-separated, of 320KiB,1MiB,5MiB,50MiB")
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build", "release"),
                    help="release build holding tools/conflux-net/conflux-net (default: the repo's build/release)")
    ap.add_argument("--out", default="vs_tor.json", help="JSON with every run of both sides")
    ap.add_argument("--skip-tor", action="store_true")
    ap.add_argument("--skip-ours", action="store_true")
    ap.add_argument("--tor-arg", action="append", default=[],
                    help="extra option for tornet.py (repeatable), e.g. --tor-arg=--params --tor-arg=minimal")
    ap.add_argument("--tor-base-port", type=int, default=15000, help="tornet's BASE_PORT (uses BASE..BASE+410)")
    ap.add_argument("--pause", type=float, default=0.5, help="seconds between prime and measured request (tornet: 0.5)")
    ap.add_argument("--keep", action="store_true", help="keep our network's directory")
    args = ap.parse_args()
    if args.runs < 1:
        ap.error("--runs must be >= 1")
    sizes = parse_sizes(ap, args.sizes)
    args.build_dir = os.path.abspath(args.build_dir)
    if shutil.which("curl") is None:
        ap.error("missing curl (apt-get install -y curl)")
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGHUP, on_signal)

    result = {"meta": {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                       "argv": sys.argv, "runs": args.runs, "sizes": sizes, "targets": TARGETS,
                       "git": subprocess.run(["git", "-C", REPO, "rev-parse", "HEAD"], stdout=subprocess.PIPE,
                                             stderr=subprocess.DEVNULL, text=True, check=False).stdout.strip()},
              "tor": None, "ours": None}
    out_dir = tempfile.mkdtemp(prefix="vs-tor-out-")
    rc = 0
    try:
        if not args.skip_tor:
            result["tor"] = run_tor(args, sizes, out_dir)
            if not result["tor"]["ok"]:
                rc = 1
        if not args.skip_ours:
            result["ours"] = run_ours(args, sizes, out_dir)
            if not result["ours"]["ok"]:
                log("ours: %s" % result["ours"].get("error", "a download failed"))
                rc = 1
    except (Interrupted, KeyboardInterrupt) as e:
        log("interrupted (%s); everything started was stopped" % (e or "Ctrl-C"))
        result["interrupted"] = str(e) or "SIGINT"
        rc = 1
    finally:
        result["meta"]["finished"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        result["summary"] = table(result["tor"], result["ours"], sizes)
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1)
        shutil.rmtree(out_dir, ignore_errors=True)
        log("wrote %s" % args.out)
    return rc


if __name__ == "__main__":
    sys.exit(main())
