#!/usr/bin/env python3
"""The bridge experiment of issue 5 (thesis chapter 3: Conflux for bridge users).

Usage: bench/conflux_bridges.py --bin-dir BUILD_DIR [--runs 10] [--file 5MiB.bin] [--json OUT]

Starts a conflux-net network with ONE exit and the default two bridges
(bridge100k at 100 KiB/s, bridge1m at 1 MiB/s), then three proxies of its own:

  slow      UseBridges 1, only bridge100k, ConfluxEnabled 0 (single path)
  fast      UseBridges 1, only bridge1m,   ConfluxEnabled 0 (single path)
  conflux   UseBridges 1, both bridges,    ConfluxEnabled 1 (one leg per bridge)

Every path ends at the same exit. Each run downloads the file through each
proxy in turn (interleaved, so load drifts hit all three alike; the order
rotates from run to run) and checks its SHA-256. Before each download the
script waits PAUSE seconds: a bridge's token bucket holds one second of its
rate (BandwidthBurst = BandwidthRate) and a download that starts while a
previous one emptied it runs a second behind one that starts with it full,
which would favour whichever proxy goes first. Prints the medians and the
issue's two criteria:

  conflux median <= 0.6 x slow median, and conflux median <= fast median.

Exit status: 0 when both criteria hold, 1 when one does not or a download
failed, 2 usage. Everything it started is stopped again.
"""

import argparse
import hashlib
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(path, text, timeout):
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


def binary(bin_dir, rel):
    path = os.path.join(bin_dir, rel)
    if not os.access(path, os.X_OK):
        sys.exit("no %s (build it first: cmake --preset release && cmake --build --preset release)" % path)
    return path


def net_up(net_exe, bin_dir, work, spec):
    """Starts a conflux-net network for `spec` (a dict) in WORK/net; returns (net_dir, network.json)."""
    net_dir = os.path.join(work, "net")
    spec_path = os.path.join(work, "spec.json")
    with open(spec_path, "w", encoding="utf-8") as f:
        json.dump(spec, f)
    up = subprocess.run([net_exe, "up", "--dir", net_dir, "--spec", spec_path, "--bin-dir", bin_dir],
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
    if up.returncode != 0:
        print(up.stdout)
        sys.exit("conflux-net up failed")
    with open(os.path.join(net_dir, "network.json"), encoding="utf-8") as f:
        return net_dir, json.load(f)


class Proxy:
    def __init__(self, name, exe, net_dir, dir_lines, bridge_lines, conflux):
        self.name = name
        self.dir = os.path.join(net_dir, "exp-" + name)
        os.makedirs(self.dir, exist_ok=True)
        self.socks = "127.0.0.1:%d" % free_port()
        self.log = os.path.join(self.dir, "notice.log")
        torrc = [
            "DataDirectory " + os.path.join(self.dir, "data"),
            "SocksPort " + self.socks,
            "Log notice file " + self.log,
            "UseBridges 1",
            "ConfluxEnabled %d" % (1 if conflux else 0),
            "EnforceDistinctSubnets 0",
            "TestingTorNetwork 1",
        ] + bridge_lines + dir_lines
        with open(os.path.join(self.dir, "torrc"), "w", encoding="utf-8") as f:
            f.write("\n".join(torrc) + "\n")
        out = open(os.path.join(self.dir, "output.log"), "wb")
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


def fetch(proxy, url, sha, timeout):
    """Seconds for one download, or None when it failed or the bytes were wrong."""
    started = time.monotonic()
    r = subprocess.run(["curl", "-s", "--max-time", str(timeout), "--socks5-hostname", proxy.socks, url],
                       stdout=subprocess.PIPE, check=False)
    took = time.monotonic() - started
    if r.returncode != 0 or hashlib.sha256(r.stdout).hexdigest() != sha:
        return None
    return took


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin-dir", required=True, help="a build directory (e.g. build/release)")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--file", default="5MiB.bin")
    ap.add_argument("--json", help="write the raw times here")
    ap.add_argument("--keep", action="store_true", help="keep the network directory")
    ap.add_argument("--pause", type=float, default=3.0, help="seconds before each download (token buckets refill)")
    args = ap.parse_args()
    net_exe = binary(args.bin_dir, "tools/conflux-net/conflux-net")
    proxy_exe = binary(args.bin_dir, "client/app/conflux-proxy")

    work = tempfile.mkdtemp(prefix="conflux-bridges-")
    # One exit, so every path ends at the same one; the proxy is only
    # configured (its torrc gives us the DirAuthority lines).
    net_dir, net = net_up(net_exe, args.bin_dir, work,
                          {"exits": 1, "proxies": [{"name": "template", "start": False, "use_bridges": True,
                                                    "conflux": False}]})
    proxies = []
    status = 1
    try:
        procs = {p["name"]: p for p in net["processes"]}
        template = open(procs["template"]["torrc"], encoding="utf-8").read().splitlines()
        dir_lines = [l for l in template if l.startswith("DirAuthority")]

        def bridge(name):
            p = procs[name]
            return "Bridge 127.0.0.1:%d %s" % (p["ports"]["or"], p["rsa_fingerprint"])

        files = {f["name"]: f for f in net["files"]}
        url, sha = files[args.file]["url"], files[args.file]["sha256"]
        proxies = [
            Proxy("slow", proxy_exe, net_dir, dir_lines, [bridge("bridge100k")], False),
            Proxy("fast", proxy_exe, net_dir, dir_lines, [bridge("bridge1m")], False),
            Proxy("conflux", proxy_exe, net_dir, dir_lines, [bridge("bridge100k"), bridge("bridge1m")], True),
        ]
        for p in proxies:
            if not wait_for(p.log, "Bootstrapped 100%", 60):
                sys.exit("proxy %s did not bootstrap; see %s" % (p.name, p.log))
        # Warm-up: circuits (and the Conflux set) built, RTTs measured.
        for p in proxies:
            fetch(p, files["320KiB.bin"]["url"], files["320KiB.bin"]["sha256"], 60)
        print("pause before each download: %.1f s" % args.pause, flush=True)
        times = {p.name: [] for p in proxies}
        failed = 0
        for run in range(args.runs):
            order = proxies[run % 3:] + proxies[:run % 3]
            for p in order:
                time.sleep(args.pause)
                took = fetch(p, url, sha, 300)
                if took is None:
                    failed += 1
                    print("run %d %-8s FAILED" % (run + 1, p.name), flush=True)
                else:
                    times[p.name].append(took)
                    print("run %d %-8s %6.2f s" % (run + 1, p.name, took), flush=True)
        med = {k: statistics.median(v) for k, v in times.items() if v}
        print()
        print("%s, %d runs each: median slow %.2f s, fast %.2f s, conflux %.2f s" %
              (args.file, args.runs, med.get("slow", float("nan")), med.get("fast", float("nan")),
               med.get("conflux", float("nan"))))
        ok = failed == 0 and len(med) == 3
        if ok:
            ratio = med["conflux"] / med["slow"]
            c1 = ratio <= 0.6
            c2 = med["conflux"] <= med["fast"]
            print("conflux / slow = %.3f (target <= 0.6): %s" % (ratio, "met" if c1 else "NOT met"))
            print("conflux / fast = %.3f (target <= 1.0): %s" % (med["conflux"] / med["fast"], "met" if c2 else "NOT met"))
            ok = c1 and c2
        if args.json:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump({"file": args.file, "runs": args.runs, "pause": args.pause, "times": times, "medians": med,
                           "failed": failed}, f, indent=1)
        status = 0 if ok else 1
    finally:
        for p in proxies:
            p.stop()
        subprocess.run([net_exe, "down", "--dir", net_dir], stdout=subprocess.DEVNULL, check=False)
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print("kept", work)
    return status


if __name__ == "__main__":
    sys.exit(main())
