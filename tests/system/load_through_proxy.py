#!/usr/bin/python3
"""System test: many concurrent streams and isolation groups through one conflux-proxy.

Usage: load_through_proxy.py PATH/TO/conflux-net --proxy single|conflux
           [--rounds N] [--groups N] [--reuse-groups] [--crowd N] [--crowd-rounds N]
           [--seq-groups N]
           [--relay-option LINE ...] [--bin-dir DIR]

Starts a network on loopback (`conflux-net up`, one proxy with ConfluxEnabled
0 for `single`, 1 for `conflux`; IsolateSOCKSAuth is on, so every SOCKS
username is its own isolation group) and then:

1. file server checks, directly on loopback: POST /echo returns its body,
   each piece as it arrives;
   oversized, chunked and GET requests to /echo get 413, 411 and 405.
2. `--rounds` rounds (default 2), each with everything at once:
   200 downloads (176 x 320KiB.bin, 20 x 1MiB.bin, 4 x 5MiB.bin: about 95 MiB,
   mixed, but moderate for an ASan build on 2 cores) spread over `--groups`
   (default 50) usernames, 4 streams per group on one circuit at the same
   time, plus 50 uploads of 1 MiB (different bytes each) to POST /echo, one
   per group, each read back while it is sent (the server echoes every piece
   as it arrives, so an upload's progress is seen as it happens). Every body is SHA-256 checked: downloads against
   network.json, uploads against the bytes sent. Each round uses new usernames
   (--reuse-groups: the same ones).
3. `--crowd-rounds` rounds (default 1) of `--crowd` (default 60) downloads
   at once on ONE username (one circuit, or one Conflux set: a browser's
   connections to one site), mixed 320KiB/1MiB/5MiB, every body checked.
4. `--seq-groups` (default 500) isolation groups opened one after another,
   each downloading 16KiB.bin once (checked); gives up after 3 failures in a
   row (a hung pool would otherwise cost a timeout per group).

Every wait is bounded (no progress for IDLE_TIMEOUT_S fails the request; a
round ends at ROUND_TIMEOUT_S). The proxy logs at info into DIR/proxy/info.log
(conflux-net's per-proxy "options"). On failure it prints each failed request
(which, stage, bytes got, hash), the proxy's counters of SOCKS timeouts,
stream retries, fallbacks from Conflux and evicted sets, the last 80 lines of
its info log, and exits 1. At the end, neither of the proxy's logs may name
the file server's address and port (destinations stay below info).
The network is always stopped, and sanitizer reports in any process's
output fail the test.

Exit status: 0 all passed; 1 a check failed; 2 usage.
Environment: CONFLUX_SYSTEM_KEEP=1 keeps the temporary directory.
"""

import argparse
import asyncio
import collections
import hashlib
import os
import signal
import socket
import sys
import tempfile
import re
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from chromium_through_proxy import Report  # noqa: E402
import netload  # noqa: E402

DOWNLOAD_MIX = [("320KiB.bin", 176), ("1MiB.bin", 20), ("5MiB.bin", 4)]  # 200 downloads, ~95 MiB
UPLOADS = 50
UPLOAD_SIZE = 1 << 20
CROWD_MIX = [("320KiB.bin", 4), ("1MiB.bin", 1), ("5MiB.bin", 1)]  # cycled: 4:1:1
SEQ_FILE = "16KiB.bin"
SEQ_GIVE_UP_AFTER = 3          # failures in a row
IDLE_TIMEOUT_S = 90            # no progress for this long fails a request
ROUND_TIMEOUT_S = 420          # a whole round (ASan build, 2 cores)
SEQ_TIMEOUT_S = 600            # all the sequential groups together
# Everything after `up`, so that the test ends (and stops its network) well
# before ctest's TIMEOUT (1000 s) would kill it and leave the network running.
BUDGET_S = 660
SPEC_FILES = [{"name": "16KiB.bin", "size": 16 * 1024}, {"name": "320KiB.bin", "size": 320 * 1024},
              {"name": "1MiB.bin", "size": 1 << 20}, {"name": "5MiB.bin", "size": 5 << 20}]


# --- self-checks: the checks can fail ------------------------------------------------------------

def self_checks(report):
    r = netload.Result("self", "u", "GET", "/x", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    r.status, r.got, r.sha = 200, 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    report.add(r.ok, "self-check: a result with the expected length and SHA-256 passes")
    r.sha = "0" * 64
    report.add(not r.ok, "self-check: a result with another SHA-256 fails")
    r.sha, r.got = r.expect_sha, 2
    report.add(not r.ok, "self-check: a short result fails")
    a, b = netload.upload_body(1, 1000), netload.upload_body(2, 1000)
    report.add(a != b and len(set(a)) > 200, "self-check: upload bodies differ per seed and are not constant")


# --- the file server's echo endpoint, directly -------------------------------------------------

def raw_http(host, port, data, timeout=20):
    """Sends `data`, returns (status, body) of the first response (or (None, error text))."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as s:
            s.sendall(data)
            got = b""
            while b"\r\n\r\n" not in got and len(got) < 65536:
                piece = s.recv(65536)
                if not piece:
                    break
                got += piece
            head, _, rest = got.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            status = int(lines[0].split(" ")[1])
            length = 0
            for line in lines[1:]:
                if line.lower().startswith("content-length:"):
                    length = int(line.split(":", 1)[1])
            while len(rest) < length:
                piece = s.recv(1 << 20)
                if not piece:
                    break
                rest += piece
            return status, rest[:length]
    except (OSError, ValueError, IndexError) as e:
        return None, str(e)


def echo_streams(host, port, timeout=20):
    """True when /echo sends the first half of a body back before the second
    half is sent (the uploads' progress depends on it)."""
    body = netload.upload_body(98, 200000)
    half = len(body) // 2
    try:
        with socket.create_connection((host, port), timeout=timeout) as s:
            s.sendall(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body) + body[:half])
            got = b""
            while not (b"\r\n\r\n" in got and len(got.partition(b"\r\n\r\n")[2]) >= half):
                piece = s.recv(65536)
                if not piece:
                    return False
                got += piece
            s.sendall(body[half:])
            while len(got.partition(b"\r\n\r\n")[2]) < len(body):
                piece = s.recv(65536)
                if not piece:
                    return False
                got += piece
            return got.partition(b"\r\n\r\n")[2] == body
    except OSError:
        return False


def echo_checks(report, net):
    host, port = netload.file_server_address(net)
    report.add(echo_streams(host, port), "file server: POST /echo sends each piece back as it arrives")
    body = netload.upload_body(99, 300000)
    status, got = raw_http(host, port, b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
    report.add(status == 200 and got == body, "file server: POST /echo of %d bytes answers 200 with the same bytes "
               "(got %s, %d bytes)" % (len(body), status, len(got)))
    status, _ = raw_http(host, port, b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 9000000\r\n\r\nabc")
    report.add(status == 413, "file server: POST /echo announcing 9000000 bytes gets 413 (got %s)" % status)
    status, _ = raw_http(host, port, b"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
    report.add(status == 411, "file server: a chunked POST /echo gets 411 (got %s)" % status)
    status, _ = raw_http(host, port, b"GET /echo HTTP/1.1\r\nHost: x\r\n\r\n")
    report.add(status == 405, "file server: GET /echo gets 405 (got %s)" % status)
    status, _ = raw_http(host, port, b"GET /320KiB.bin HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
    report.add(status == 413, "file server: GET with a body gets 413 (got %s)" % status)
    status, got = raw_http(host, port, b"GET /16KiB.bin HTTP/1.1\r\nHost: x\r\n\r\n")
    report.add(status == 200 and len(got) == 16384, "file server: still serves files after those (got %s, %d bytes)"
               % (status, len(got)))


# --- the load -------------------------------------------------------------------------------

def print_failures(results, limit=20):
    failed = [r for r in results if not r.ok]
    kinds = collections.Counter((r.stage, (r.error or "bad body").split(":")[0]) for r in failed)
    print("    %d of %d requests failed; by stage and error: %s" % (
        len(failed), len(results), ", ".join("%s/%s: %d" % (s, e, n) for (s, e), n in kinds.most_common())))
    by_group = collections.Counter(r.user for r in failed)
    all_groups = {r.user for r in results}
    print("    %d of %d groups had a failure: %s" % (len(by_group), len(all_groups), " ".join(
        sorted(by_group, key=lambda u: [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", u)]))))
    for r in failed[:limit]:
        print("    " + r.describe())
    if len(failed) > limit:
        print("    ... and %d more" % (len(failed) - limit))


def remaining(deadline):
    return deadline - time.monotonic()


async def run_all(coros, deadline_s):
    """Runs every coroutine at once; at the deadline cancels what is left (each
    records that). Returns when all have ended."""
    tasks = [asyncio.ensure_future(c) for c in coros]
    done, pending = await asyncio.wait(tasks, timeout=deadline_s)
    for t in pending:
        t.cancel()
    if pending:
        await asyncio.wait(pending, timeout=30)
    return len(pending)


async def load_round(net, socks, rnd, groups, reuse, timeout_s):
    def group(i):
        return "load-g%d" % (i % groups) if reuse else "load-r%d-g%d" % (rnd, i % groups)
    host, port = netload.file_server_address(net)
    files = netload.file_table(net)
    results, coros = [], []
    names = [name for name, count in DOWNLOAD_MIX for _ in range(count)]
    # Interleave the sizes so the big ones land in different groups.
    names = names[::2] + names[1::2]
    for i, name in enumerate(names):
        size, sha, path = files[name]
        user = group(i)
        r = netload.Result("round %d download %d" % (rnd, i), user, "GET", path, size, sha)
        results.append(r)
        coros.append(netload.http_request(r, socks, user, host, port, path, IDLE_TIMEOUT_S))
    for j in range(UPLOADS):
        body = netload.upload_body(rnd * 1000 + j, UPLOAD_SIZE)
        user = group(j)
        r = netload.Result("round %d upload %d" % (rnd, j), user, "POST", "/echo", len(body),
                           hashlib.sha256(body).hexdigest())
        results.append(r)
        coros.append(netload.http_request(r, socks, user, host, port, "/echo", IDLE_TIMEOUT_S, body=body))
    started = time.monotonic()
    cancelled = await run_all(coros, timeout_s)
    return results, time.monotonic() - started, cancelled


async def crowd_round(net, socks, rnd, count, timeout_s):
    host, port = netload.file_server_address(net)
    files = netload.file_table(net)
    cycle = [name for name, n in CROWD_MIX for _ in range(n)]
    user = "crowd-r%d" % rnd
    results, coros = [], []
    for i in range(count):
        size, sha, path = files[cycle[i % len(cycle)]]
        r = netload.Result("crowd %d download %d" % (rnd, i), user, "GET", path, size, sha)
        results.append(r)
        coros.append(netload.http_request(r, socks, user, host, port, path, IDLE_TIMEOUT_S))
    started = time.monotonic()
    cancelled = await run_all(coros, timeout_s)
    return results, time.monotonic() - started, cancelled


async def sequential_groups(net, socks, count, timeout_s):
    host, port = netload.file_server_address(net)
    size, sha, path = netload.file_table(net)[SEQ_FILE]
    results = []
    in_a_row = 0
    deadline = time.monotonic() + timeout_s
    for i in range(count):
        if time.monotonic() > deadline:
            break
        user = "seq-g%d" % i
        r = netload.Result("sequential group %d" % i, user, "GET", path, size, sha)
        await netload.http_request(r, socks, user, host, port, path, min(IDLE_TIMEOUT_S, 60))
        results.append(r)
        in_a_row = 0 if r.ok else in_a_row + 1
        if in_a_row >= SEQ_GIVE_UP_AFTER:
            break
    return results


def proxy_logs(net, name):
    netload.print_proxy_diagnostics(net, name, 80)
    for q in net["processes"]:
        if q["role"] == "exit":
            print("    ---- last lines of %s ----" % q["log"])
            print(netload.tail_file(q["log"], 15))


def load_test(report, net, args):
    proxy = netload.proxies(net)["proxy"]
    socks = "127.0.0.1:%d" % proxy["ports"]["socks"]
    metrics_url = "http://127.0.0.1:%d/metrics" % proxy["ports"]["metrics"]
    deadline = time.monotonic() + BUDGET_S
    echo_checks(report, net)
    for rnd in range(1, args.rounds + 1):
        round_timeout = min(ROUND_TIMEOUT_S, remaining(deadline))
        if not report.add(round_timeout >= 60, "round %d: %.0f s left of the test's %d s budget" % (
                rnd, remaining(deadline), BUDGET_S)):
            proxy_logs(net, "proxy")
            return
        before = netload.metrics(metrics_url)
        results, took, cancelled = asyncio.run(load_round(net, socks, rnd, args.groups, args.reuse_groups,
                                                          round_timeout))
        after = netload.metrics(metrics_url)
        ok = [r for r in results if r.ok]
        moved = sum(r.got for r in results)
        opened = netload.metric(after, "conflux_proxy_streams_total", 'outcome="opened"') - \
            netload.metric(before, "conflux_proxy_streams_total", 'outcome="opened"')
        built = netload.metric(after, "conflux_proxy_circuit_events_total", 'event="built"') - \
            netload.metric(before, "conflux_proxy_circuit_events_total", 'event="built"')
        passed = report.add(len(ok) == len(results),
                            "round %d: %d of %d requests intact (200 downloads + %d uploads over %d groups) in %.1f s, "
                            "%.1f MiB received (%.1f MiB/s)%s; proxy: %d streams opened, %d circuits built" % (
                                rnd, len(ok), len(results), UPLOADS, args.groups, took, moved / 2**20,
                                moved / 2**20 / max(took, 0.001),
                                ", %d cancelled at the %d s deadline" % (cancelled, round_timeout) if cancelled else "",
                                opened, built))
        report.add(opened >= len(ok), "round %d: the proxy's opened-streams counter rose by at least the intact "
                   "requests (%d >= %d): they went through it" % (rnd, opened, len(ok)))
        if not passed:
            print_failures(results)
            proxy_logs(net, "proxy")
            break  # the next rounds would only repeat the failure, slower; the groups opened one by one still run
    for rnd in range(1, args.crowd_rounds + 1):
        if not args.crowd:
            break
        round_timeout = min(ROUND_TIMEOUT_S, remaining(deadline))
        if not report.add(round_timeout >= 60, "crowd %d: %.0f s left of the test's %d s budget" % (
                rnd, remaining(deadline), BUDGET_S)):
            proxy_logs(net, "proxy")
            return
        results, took, cancelled = asyncio.run(crowd_round(net, socks, rnd, args.crowd, round_timeout))
        ok = [r for r in results if r.ok]
        moved = sum(r.got for r in results)
        if not report.add(len(ok) == len(results),
                          "crowd %d: %d of %d downloads at once on one username (one %s) intact in %.1f s, "
                          "%.1f MiB (%.1f MiB/s)%s" % (
                              rnd, len(ok), len(results), "Conflux set" if args.proxy == "conflux" else "circuit",
                              took, moved / 2**20, moved / 2**20 / max(took, 0.001),
                              ", %d cancelled at the %d s deadline" % (cancelled, round_timeout) if cancelled else "")):
            print_failures(results)
            proxy_logs(net, "proxy")
            break
    if args.seq_groups:
        started = time.monotonic()
        seq_timeout = min(SEQ_TIMEOUT_S, max(0.0, remaining(deadline)))
        results = asyncio.run(sequential_groups(net, socks, args.seq_groups, seq_timeout))
        took = time.monotonic() - started
        ok = [r for r in results if r.ok]
        if not report.add(len(ok) == args.seq_groups,
                          "%d isolation groups opened one after another: %d of %d intact in %.1f s%s" % (
                              args.seq_groups, len(ok), args.seq_groups, took,
                              "" if len(results) == args.seq_groups else
                              " (stopped after %d: %d failures in a row, or the %d s limit)" % (
                                  len(results), SEQ_GIVE_UP_AFTER, seq_timeout))):
            first_bad = next((r for r in results if not r.ok), None)
            if first_bad:
                print("    first failure: " + first_bad.describe())
            print_failures(results, 10)
            proxy_logs(net, "proxy")
    host, port = netload.file_server_address(net)
    netload.check_no_destinations(report, net, "proxy", ["%s:%d" % (host, port)])


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("net_bin")
    ap.add_argument("--proxy", choices=("single", "conflux"), required=True)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--groups", type=int, default=50)
    ap.add_argument("--crowd", type=int, default=60, help="downloads at once on one username")
    ap.add_argument("--crowd-rounds", type=int, default=1)
    ap.add_argument("--seq-groups", type=int, default=500)
    ap.add_argument("--reuse-groups", action="store_true",
                    help="the same usernames in every round (default: new ones per round)")
    ap.add_argument("--relay-option", action="append", default=[],
                    help="an extra torrc line for every relay (\"Log info stdout\": info logs in output.log)")
    ap.add_argument("--bin-dir")
    args = ap.parse_args(argv[1:])
    if args.rounds < 0 or not 1 <= args.groups <= 200 or args.seq_groups < 0 or not 0 <= args.crowd <= 500 \
            or args.crowd_rounds < 0:
        ap.error("--rounds >= 0, --groups 1 to 200, --crowd 0 to 500, --crowd-rounds >= 0, --seq-groups >= 0")
    net_bin = os.path.abspath(args.net_bin)

    t0 = time.monotonic()
    # ctest or a user stopping the test: the finally below still stops the network.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    signal.signal(signal.SIGHUP, lambda *_: sys.exit(129))
    report = Report()
    self_checks(report)
    tmp = tempfile.mkdtemp(prefix="conflux-load-%s-" % args.proxy)
    netdir = os.path.join(tmp, "net")
    spec = {"bridges": [], "files": SPEC_FILES, "relay_options": args.relay_option,
            "proxies": [netload.proxy_spec(netdir, "proxy", args.proxy == "conflux")]}
    net = None
    try:
        net = netload.net_up(net_bin, netdir, spec, args.bin_dir)
        report.add(True, "conflux-net up (proxy ConfluxEnabled %d) in %.1f s" % (
            args.proxy == "conflux", net["_up_seconds"]))
        load_test(report, net, args)
    except netload.NetError as e:
        report.add(False, str(e))
    except Exception as e:  # any surprise is a failed check, and the network still goes down
        report.add(False, "unexpected error: %s: %s" % (type(e).__name__, e))
        if net is not None:
            proxy_logs(net, "proxy")
    finally:
        netload.tear_down(report, net_bin, netdir, tmp)
    return netload.summary(report, t0)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
