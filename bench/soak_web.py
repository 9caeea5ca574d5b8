#!/usr/bin/python3
"""Soak: web-like traffic through conflux-proxy for minutes, every byte checked, memory sampled.

Usage: bench/soak_web.py [--minutes 10] [--net-bin PATH/conflux-net] [--bin-dir DIR]
           [--proxy conflux|single] [--clients 12] [--sites 60] [--sample 5] [--json FILE]

Starts a network on loopback (conflux-net, one proxy), then `--clients`
simulated users browse for `--minutes`: each picks a site (an isolation group:
SOCKS username "site-N", IsolateSOCKSAuth; a user mostly stays on a site for a
few pages, then moves on), loads a page (a 16 KiB document, then 3 to 12
sub-resources of mixed sizes: mostly 4-64 KiB, some 320 KiB, few 1 MiB, rarely
5 MiB, fetched up to 4 at a time), and thinks 0.5 to 4 s. Every download is
checked against network.json's SHA-256. Every `--sample` seconds the VmRSS
of the proxy and of every relay (pids from network.json, /proc/PID/status)
is recorded. The report gives intact/failed counts (each failure with its
details), throughput, and each process's RSS after warm-up (the first fifth
of the run, at most 2 minutes) against the end and the peak.

Exit status: 0 when every download was intact and every process still
runs; 1 otherwise; 2 usage. The network is always stopped.
"""

import argparse
import asyncio
import collections
import json
import os
import random
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, "..", "tests", "system"))
import netload  # noqa: E402

FILES = [("4KiB.bin", 4 * 1024), ("16KiB.bin", 16 * 1024), ("64KiB.bin", 64 * 1024),
         ("320KiB.bin", 320 * 1024), ("1MiB.bin", 1 << 20), ("5MiB.bin", 5 << 20)]
# Sub-resource sizes by weight: mostly small, some medium, few large.
RESOURCE_WEIGHTS = [("4KiB.bin", 35), ("16KiB.bin", 30), ("64KiB.bin", 20), ("320KiB.bin", 10),
                    ("1MiB.bin", 4), ("5MiB.bin", 1)]
PAGE_DOC = "16KiB.bin"
PER_PAGE_CONCURRENCY = 4
IDLE_TIMEOUT_S = 60


class Soak:
    def __init__(self, net, args):
        self.net, self.args = net, args
        self.host, self.port = netload.file_server_address(net)
        self.files = netload.file_table(net)
        proxy = netload.proxies(net)["proxy"]
        self.socks = "127.0.0.1:%d" % proxy["ports"]["socks"]
        self.results = []
        self.pages = 0
        self.bytes = 0
        self.samples = []  # (seconds since start, {name: rss KiB or None})
        self.procs = [(p["name"], p["pid"]) for p in net["processes"]
                      if p["started"] and p["role"] in ("proxy", "relay", "exit", "authority")]
        self.rng = random.Random(args.seed)

    async def fetch(self, user, name, page_no):
        size, sha, path = self.files[name]
        r = netload.Result("page %d %s" % (page_no, name), user, "GET", path, size, sha)
        await netload.http_request(r, self.socks, user, self.host, self.port, path, IDLE_TIMEOUT_S,
                                   progress=self._count)
        self.results.append(r)
        if not r.ok:
            print("FAIL  %s" % r.describe(), flush=True)
        return r

    def _count(self, n):
        self.bytes += n

    async def user(self, uid, end):
        rng = random.Random(self.args.seed * 1000 + uid)
        names = [n for n, w in RESOURCE_WEIGHTS for _ in range(w)]
        site = rng.randrange(self.args.sites)
        while time.monotonic() < end:
            if rng.random() < 0.3:  # move on to another site
                site = rng.randrange(self.args.sites)
            user = "site-%d" % site
            self.pages += 1
            page_no = self.pages
            await self.fetch(user, PAGE_DOC, page_no)
            sem = asyncio.Semaphore(PER_PAGE_CONCURRENCY)

            async def one(name):
                async with sem:
                    await self.fetch(user, name, page_no)
            await asyncio.gather(*(one(rng.choice(names)) for _ in range(rng.randint(3, 12))))
            await asyncio.sleep(rng.uniform(0.5, 4.0))

    async def sampler(self, start, end):
        while True:
            now = time.monotonic()
            self.samples.append((now - start, {name: netload.rss_kib(pid) for name, pid in self.procs}))
            if now >= end:
                return
            await asyncio.sleep(min(self.args.sample, max(0.0, end - now)))

    async def run(self):
        start = time.monotonic()
        end = start + self.args.minutes * 60
        sampler = asyncio.ensure_future(self.sampler(start, end))
        users = [asyncio.ensure_future(self.user(i, end)) for i in range(self.args.clients)]
        # Users finish their page after `end`, bounded by the request timeout
        # (a request that hangs is recorded as failed when it times out).
        done, pending = await asyncio.wait(users, timeout=self.args.minutes * 60 + IDLE_TIMEOUT_S + 15)
        for t in pending:
            t.cancel()
        if pending:
            await asyncio.wait(pending, timeout=30)
        await sampler
        # One last sample after the traffic stopped.
        self.samples.append((time.monotonic() - start, {name: netload.rss_kib(pid) for name, pid in self.procs}))
        return time.monotonic() - start


def memory_table(samples, warmup_s):
    names = list(samples[0][1].keys()) if samples else []
    after_warmup = next((s for s in samples if s[0] >= warmup_s), samples[-1])
    last = samples[-1]
    rows = []
    for n in names:
        peak = max((s[1][n] or 0) for s in samples)
        rows.append((n, after_warmup[1][n], last[1][n], peak))
    return after_warmup[0], last[0], rows


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--net-bin", default=os.path.join(HERE, "..", "build", "release", "tools", "conflux-net",
                                                      "conflux-net"))
    ap.add_argument("--bin-dir")
    ap.add_argument("--proxy", choices=("conflux", "single"), default="conflux")
    ap.add_argument("--clients", type=int, default=12)
    ap.add_argument("--sites", type=int, default=60)
    ap.add_argument("--sample", type=float, default=5.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json")
    args = ap.parse_args(argv[1:])
    if not (0 < args.minutes <= 24 * 60 and 1 <= args.clients <= 200 and 1 <= args.sites <= 10000
            and 0.5 <= args.sample <= 60):
        ap.error("--minutes 0-1440, --clients 1-200, --sites 1-10000, --sample 0.5-60")
    net_bin = os.path.abspath(args.net_bin)
    tmp = tempfile.mkdtemp(prefix="conflux-soak-")
    netdir = os.path.join(tmp, "net")
    spec = {"bridges": [], "files": [{"name": n, "size": s} for n, s in FILES],
            "proxies": [{"name": "proxy", "conflux": args.proxy == "conflux"}]}
    status = 1
    try:
        net = netload.net_up(net_bin, netdir, spec, args.bin_dir)
        print("network up in %.1f s; %d clients, %d sites, %.1f minutes, proxy ConfluxEnabled %d" % (
            net["_up_seconds"], args.clients, args.sites, args.minutes, args.proxy == "conflux"), flush=True)
        soak = Soak(net, args)
        took = asyncio.run(soak.run())
        intact = sum(1 for r in soak.results if r.ok)
        failed = [r for r in soak.results if not r.ok]
        warmup = min(120.0, args.minutes * 60 / 5)
        t_warm, t_end, rows = memory_table(soak.samples, warmup)
        print("\n%.1f s (the last pages finish after the %.0f minutes): %d pages, %d downloads intact, %d failed, %.1f MiB (%.2f MiB/s)" % (
            took, args.minutes, soak.pages, intact, len(failed), soak.bytes / 2**20, soak.bytes / 2**20 / max(took, 0.001)))
        kinds = collections.Counter((r.stage, (r.error or "bad body").split(":")[0]) for r in failed)
        for (stage, err), n in kinds.most_common():
            print("  failed: %d at %s: %s" % (n, stage, err))
        sites = {r.user for r in soak.results}
        bad_sites = {r.user for r in failed}
        good_sites = {r.user for r in soak.results if r.ok}
        print("  sites visited: %d; with a failure: %d; with none intact: %d%s" % (
            len(sites), len(bad_sites), len(sites - good_sites),
            (" (%s)" % " ".join(sorted(sites - good_sites, key=lambda u: int(u.split("-")[1])))) if sites - good_sites
            else ""))
        for r in failed[:10]:
            print("  " + r.describe())
        print("\nRSS (KiB)   after warm-up (%.0f s)   end (%.0f s)   peak   change" % (t_warm, t_end))
        gone = []
        for name, warm, end, peak in rows:
            if end is None:
                gone.append(name)
            print("  %-10s %10s %12s %10d %+8s" % (name, warm, end, peak,
                                                  "" if warm is None or end is None else "%+d" % (end - warm)))
        if gone:
            print("processes gone: %s" % ", ".join(gone))
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"minutes": args.minutes, "clients": args.clients, "sites": args.sites,
                           "seconds": took, "pages": soak.pages, "intact": intact, "failed": len(failed),
                           "failures": [r.describe() for r in failed], "bytes": soak.bytes,
                           "samples": soak.samples}, f, indent=1)
        status = 0 if not failed and not gone and intact > 0 else 1
        if failed:
            print("\n---- last lines of the proxy's log ----")
            print(netload.tail_file(netload.proxies(net)["proxy"]["log"], 40))
    except netload.NetError as e:
        print("FAIL  %s" % e)
    finally:
        problem = netload.net_down(net_bin, netdir)
        if problem:
            print("FAIL  %s" % problem)
            status = 1
        if os.environ.get("CONFLUX_SYSTEM_KEEP") == "1":
            print("kept %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
