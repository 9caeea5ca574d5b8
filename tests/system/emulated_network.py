#!/usr/bin/python3
"""`conflux-net up` with the spec's "emulation": a whole network in network namespaces (issue 21,
docs/CONFLUX-NET.md, "Emulated networks").

    emulated_network.py CONFLUX_NET

Brings up 1 authority, 5 relays (2 exits), a file server and a proxy, each in its own namespace with its
own address in a private /24 (10.202.X.0/24, X from this run's pid), joined only by `conflux-net router`:
every link 5 ms one way, exit1's 40 ms. From the machine (.254, a link without delay):
  1. 1 MiB through the proxy's SOCKS port arrives with the SHA-256 network.json lists;
  2. the TCP handshake to exit1's ORPort takes 2 x 40 ms within 10%, and 2 x (40 - 5) ms within 10% longer
     than to relay1's: each host's own latency shows in the round trip;
  3. 3 MiB straight from the file server, whose link sends 1 MByte/s: the goodput after the first 256 KiB is
     1448/1500 of 1 MiB/s within 10%;
  4. after `down`, the router's counters show the download crossed the emulated links (the exits together
     and the proxy each received more than 1 MiB), and no namespace of the network is left.
The network is taken down on the way out, also when a check fails or the test gets SIGTERM/SIGINT; a run
killed with SIGKILL leaves its directory's network, which the next run takes down. Exit 0 when every check
passed, 1 otherwise, 77 (skip) when not root, without /dev/net/tun or ip, or namespaces cannot be made.
"""

import glob
import hashlib
import json
import os
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True

DIR_PREFIX = "cfxemunet-"
MIB = 1 << 20
LATENCY_MS = 5
EXIT_LATENCY_MS = 40
FILE_SERVER_RATE = "1 MByte"
RATE_SKIP = 256 * 1024

CHECKS = []


def check(ok, what):
    CHECKS.append(ok)
    print(("ok   " if ok else "FAIL ") + what, flush=True)


def spec():
    return {
        # Two exits: with one, the proxy may take it as its guard, and then no path has an exit.
        "relays": 5, "exits": 2, "bridges": [], "proxies": [{"name": "proxy"}],
        "files": [{"name": "1MiB.bin", "size": MIB}, {"name": "3MiB.bin", "size": 3 * MIB}],
        "emulation": {"subnet": f"10.202.{os.getpid() % 250}.0/24", "seed": 21,
                      "default": {"latency_ms": LATENCY_MS},
                      "hosts": {"exit1": {"latency_ms": EXIT_LATENCY_MS},
                                "fileserver": {"rate": FILE_SERVER_RATE}}},
    }


def socks_get(socks, url, timeout=60.0):
    """GET url through a SOCKS5 proxy (hostname form); the body."""
    host, port = socks.rsplit(":", 1)
    rest = url.split("://", 1)[1]
    target, path = rest.split("/", 1)
    t_host, t_port = target.rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=timeout)
    s.sendall(b"\x05\x01\x00")
    if s.recv(2) != b"\x05\x00":
        raise RuntimeError("SOCKS: no method accepted")
    name = t_host.encode()
    s.sendall(b"\x05\x01\x00\x03" + bytes([len(name)]) + name + struct.pack("!H", int(t_port)))
    reply = b""
    while len(reply) < 10:
        chunk = s.recv(10 - len(reply))
        if not chunk:
            raise RuntimeError("SOCKS: connection closed")
        reply += chunk
    if reply[1] != 0:
        raise RuntimeError(f"SOCKS: reply {reply[1]}")
    s.sendall(f"GET /{path} HTTP/1.0\r\nHost: {target}\r\n\r\n".encode())
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.") or b" 200 " not in head.split(b"\r\n")[0]:
        raise RuntimeError(f"HTTP: {head[:80]!r}")
    return body


def direct_rate(url):
    """GET url straight from the machine (no proxy); bytes and the goodput after the first RATE_SKIP bytes
    (slow start and the link's first buffer), in bytes per second."""
    target, path = url.split("://", 1)[1].split("/", 1)
    host, port = target.rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=30.0)
    s.sendall(f"GET /{path} HTTP/1.0\r\nHost: {target}\r\n\r\n".encode())
    total, t_skip, skip_bytes = 0, None, 0
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        total += len(chunk)
        if t_skip is None and total >= RATE_SKIP:
            t_skip, skip_bytes = time.monotonic(), total
    return total, (total - skip_bytes) / (time.monotonic() - t_skip)


def connect_ms(address, port, n=9):
    """The median time of n TCP handshakes from here."""
    times = []
    for _ in range(n):
        t0 = time.monotonic()
        s = socket.create_connection((address, port), timeout=5.0)
        times.append((time.monotonic() - t0) * 1000)
        s.close()
        time.sleep(0.02)
    return statistics.median(times)


def namespaces():
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=30).stdout
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def down(conflux_net, d):
    subprocess.run([conflux_net, "down", "--dir", d], capture_output=True, text=True, timeout=60)


def take_down_stale(conflux_net):
    """A run killed with SIGKILL could not clean up: take down what it left."""
    for d in glob.glob(os.path.join(tempfile.gettempdir(), DIR_PREFIX + "*")):
        if d.endswith(".spec.json"):
            continue
        pid = d.rsplit("-", 2)[-2] if d.count("-") >= 2 else ""
        if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            down(conflux_net, d)
            shutil.rmtree(d, ignore_errors=True)
            if os.path.exists(d + ".spec.json"):
                os.unlink(d + ".spec.json")


def run_checks(conflux_net, d):
    spec_file = d + ".spec.json"
    with open(spec_file, "w") as f:
        json.dump(spec(), f)
    t0 = time.monotonic()
    up = subprocess.run([conflux_net, "up", "--dir", d, "--spec", spec_file,
                         "--timeout", "60"], capture_output=True, text=True, timeout=90)
    print(up.stdout + up.stderr, end="")
    check(up.returncode == 0, f"conflux-net up with emulation ({time.monotonic() - t0:.1f} s)")
    if up.returncode != 0:
        return None
    info = json.load(open(os.path.join(d, "network.json")))
    procs = {p["name"]: p for p in info["processes"]}

    f = info["files"][0]
    t0 = time.monotonic()
    body = socks_get(info["proxy"]["socks"], f["url"])
    took = time.monotonic() - t0
    digest = hashlib.sha256(body).hexdigest()
    check(len(body) == MIB and digest == f["sha256"],
          f"1 MiB through {info['proxy']['socks']} in {took:.2f} s, SHA-256 {'matches' if digest == f['sha256'] else 'differs'}")

    big = info["files"][1]
    total, rate = direct_rate(big["url"])
    # The router counts IP packets: TCP's goodput is 1448 of each 1500 bytes (as under tbf).
    want = (1 << 20) * 1448 / 1500
    check(total > 3 * MIB and abs(rate - want) <= 0.1 * want,
          f"3 MiB straight from the file server (its link at {FILE_SERVER_RATE}/s): {rate / MIB:.3f} MiB/s goodput, "
          f"{want / MIB:.3f} within 10%")

    exit_ms = connect_ms(procs["exit1"]["address"], procs["exit1"]["ports"]["or"])
    relay_ms = connect_ms(procs["relay1"]["address"], procs["relay1"]["ports"]["or"])
    want_exit, want_relay = 2 * EXIT_LATENCY_MS, 2 * LATENCY_MS
    check(abs(exit_ms - want_exit) <= 0.1 * want_exit,
          f"handshake to exit1 ({procs['exit1']['address']}) {exit_ms:.1f} ms is {want_exit} ms within 10%")
    # The router's own delays (timer wake-ups on a loaded machine, a few ms) are in both; the difference is
    # the two hosts' latencies alone.
    diff = exit_ms - relay_ms
    check(abs(diff - (want_exit - want_relay)) <= 0.1 * (want_exit - want_relay),
          f"handshake to relay1 ({procs['relay1']['address']}) {relay_ms:.1f} ms: exit1's is {diff:.1f} ms longer, "
          f"{want_exit - want_relay} ms within 10%")
    return info


def skip_reason(tools=()):
    """Why this machine cannot run an emulated network (None when it can): root, /dev/net/tun, ip, `tools`."""
    if os.geteuid() != 0 or not os.path.exists("/dev/net/tun") or not shutil.which("ip") or \
            not all(os.access(t, os.X_OK) for t in tools):
        return "needs root, /dev/net/tun and ip" + "".join(" and " + t for t in tools)
    probe = f"cfx-probe-{os.getpid()}"
    if subprocess.run(["ip", "netns", "add", probe], capture_output=True, timeout=30).returncode != 0:
        return "cannot make network namespaces"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True, timeout=30)
    return None


def run_network_test(conflux_net, checks, after_down):
    """Runs `checks(conflux_net, d)` (it brings a network up in the fresh directory d and returns its network.json,
    or raises) and takes the network down whatever happens, ctest's timeout included; then
    `after_down(d, info, ours, left)` checks what is left (`ours`: the network's namespaces, `left`: those still
    there; not called when the network never came up). The logs stay only on failure. Returns the exit status."""
    take_down_stale(conflux_net)
    # ctest's timeout sends SIGTERM: leave through the finally below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    d = tempfile.mkdtemp(prefix=f"{DIR_PREFIX}{os.getpid()}-")
    started = time.monotonic()
    info = None
    try:
        info = checks(conflux_net, d)
    finally:
        # timeout(1) signals twice: a second SIGTERM must not cut the clean-up short.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        down(conflux_net, d)
        ours = (info or {}).get("namespaces", [])
        left = [n for n in namespaces() if n in ours]
        if info is not None:
            after_down(d, info, ours, left)
        if not CHECKS:
            print("interrupted before the network was up; taken down")
        if CHECKS and all(CHECKS):
            shutil.rmtree(d, ignore_errors=True)
            os.unlink(d + ".spec.json")
        else:
            print(f"  logs kept in {d}")
    print(f"{sum(CHECKS)} of {len(CHECKS)} checks passed in {time.monotonic() - started:.1f} s")
    return 0 if CHECKS and all(CHECKS) else 1


def check_router_and_namespaces(d, info, ours, left):
    counters = {}
    for line in open(os.path.join(d, "router", "output.log")):
        if line.startswith("{\"host\""):
            c = json.loads(line)
            counters[c["host"]] = c
    for h in ("exit1", "exit2", "proxy"):
        print(f"  router: {json.dumps(counters.get(h))}")
    to_exits = sum(counters.get(h, {}).get("received_bytes", 0) for h in ("exit1", "exit2"))
    check(to_exits > MIB and counters.get("proxy", {}).get("received_bytes", 0) > MIB,
          "the router carried the download to the exits and the proxy")
    check(not left and len(ours) == 8, f"down removed the network's {len(ours)} namespaces ({len(left)} left)")


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    why = skip_reason()
    if why:
        print("SKIP: " + why)
        return 77
    return run_network_test(sys.argv[1], run_checks, check_router_and_namespaces)


if __name__ == "__main__":
    sys.exit(main())
