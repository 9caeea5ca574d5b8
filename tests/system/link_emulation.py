#!/usr/bin/python3
"""conflux-net's link emulation between two network namespaces (issue 21, docs/CONFLUX-NET.md).

    link_emulation.py CONFLUX_NET [--speed]

Two namespaces made here (cfxlemuNNNNNa and ...b), each with one TUN device of `conflux-net delay-line`
and nothing else (lo aside), so no probe packet can leave them, let alone the machine: a is 10.201.0.1,
b is 10.201.0.2, point to point.
  1. latency 50 ms one way, 2% loss each way: 2500 UDP probes from a, echoed by b. The median round trip
     must be 100 ms within 10%; the loss a->b (probes b saw) and b->a (echoes a saw of those) each 2%
     within 1 point.
  2. latency 10 ms one way, no loss, tbf at 1 MiB/s on a's device: 4 MiB over TCP from a to b. The goodput
     after the first 256 KiB (tbf's burst and slow start) must be 1 MiB/s within 10%.
--speed instead measures what the delay line carries without tbf (10 ms each way, 64 MiB over TCP) and the
CPU it used: a report, not a check.
Everything made here is removed on the way out, also when a check fails or the test is killed with
SIGTERM/SIGINT. A run killed with SIGKILL (ctest's timeout) takes its delay line with it (parent-death
signal) and leaves its namespaces, which the next run removes. Exit 0 when every check passed, 1
otherwise, 77 (skip) when not root, without /dev/net/tun, ip or tc, or when namespaces cannot be made.
"""

import ctypes
import json
import os
import re
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True

# Namespaces carry the whole pid (so a later run can tell a dead run's leftovers); device names have
# at most 15 bytes, and vanish with the delay line anyway.
NS = {"a": f"cfxlemu{os.getpid()}a", "b": f"cfxlemu{os.getpid()}b"}
TUN = {"a": f"cfxlemu{os.getpid() % 100000}ta", "b": f"cfxlemu{os.getpid() % 100000}tb"}
ADDR = {"a": "10.201.0.1", "b": "10.201.0.2"}
UDP_PORT = 9000
TCP_PORT = 9001
PROBES = 2500
PROBE_GAP = 0.002
MIB = 1 << 20
TCP_BYTES = 4 * MIB
TCP_SKIP = 256 * 1024
SPEED_BYTES = 64 * MIB


# --- the roles run inside a namespace (ip netns exec NS python3 THIS --role ...) ---------------------

def role_udp_echo():
    """Echo every probe; print how many distinct probes arrived once none came for 2 s."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((ADDR["b"], UDP_PORT))
    s.settimeout(10.0)  # the first probe
    seen = set()
    while True:
        try:
            data, peer = s.recvfrom(2048)
        except socket.timeout:
            break
        s.settimeout(2.0)
        seen.add(struct.unpack("!I", data[:4])[0])
        s.sendto(data, peer)
    print(json.dumps({"received": len(seen)}))


def role_udp_probe():
    """Send PROBES probes PROBE_GAP apart; print the round trips of the echoes that came back."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect((ADDR["b"], UDP_PORT))
    rtts = {}
    done = threading.Event()

    def receive():
        s.settimeout(0.5)
        while not done.is_set():
            try:
                data = s.recv(2048)
            except socket.timeout:
                continue
            except ConnectionRefusedError:
                continue
            seq, sent = struct.unpack("!Id", data[:12])
            rtts.setdefault(seq, time.monotonic() - sent)

    t = threading.Thread(target=receive)
    t.start()
    start = time.monotonic()
    for seq in range(PROBES):
        delay = start + seq * PROBE_GAP - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        try:
            s.send(struct.pack("!Id", seq, time.monotonic()).ljust(100, b"\0"))
        except OSError:  # an ICMP error from before the echo server bound, or the link torn down
            pass
    time.sleep(1.5)
    done.set()
    t.join()
    print(json.dumps({"sent": PROBES, "rtts": list(rtts.values())}))


def role_tcp_sink():
    """Read one connection to its end; print when TCP_SKIP bytes had arrived, the end, and the total."""
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((ADDR["b"], TCP_PORT))
    ls.listen(1)
    ls.settimeout(15.0)
    c, _ = ls.accept()
    c.settimeout(15.0)
    total, t_skip = 0, None
    while True:
        data = c.recv(65536)
        if not data:
            break
        total += len(data)
        if t_skip is None and total >= TCP_SKIP:
            t_skip, skip_bytes = time.monotonic(), total
    t_end = time.monotonic()
    print(json.dumps({"total": total, "rate": (total - skip_bytes) / (t_end - t_skip)}))


def role_tcp_source_big():
    role_tcp_source(SPEED_BYTES)


def role_tcp_source(total=TCP_BYTES):
    deadline = time.monotonic() + 10.0
    while True:
        try:
            c = socket.create_connection((ADDR["b"], TCP_PORT), timeout=15.0)
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    chunk = b"\xa5" * 65536
    for _ in range(total // len(chunk)):
        c.sendall(chunk)
    c.close()


ROLES = {"udp-echo": role_udp_echo, "udp-probe": role_udp_probe, "tcp-sink": role_tcp_sink,
         "tcp-source": role_tcp_source, "tcp-source-big": role_tcp_source_big}


# --- the orchestration, as root in the initial namespace ---------------------------------------------

def run(*args, check=True):
    return subprocess.run(list(args), check=check, capture_output=True, text=True, timeout=30)


def in_ns(side, role):
    return subprocess.Popen(["ip", "netns", "exec", NS[side], sys.executable, os.path.abspath(__file__),
                             "--role", role], stdout=subprocess.PIPE, text=True)


def die_with_parent():
    """In the child before exec: SIGTERM when this script dies, even by SIGKILL (prctl PR_SET_PDEATHSIG)."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)


class Link:
    """A delay-line process between the two namespaces; its devices vanish with it."""

    def __init__(self, links, conflux_net, latency_ms, loss, rate=None):
        self.proc = subprocess.Popen([conflux_net, "delay-line", "--a", TUN["a"], "--b", TUN["b"],
                                      "--latency", str(latency_ms), "--loss", str(loss), "--seed", "21"],
                                     stdout=subprocess.PIPE, text=True, preexec_fn=die_with_parent)
        links.append(self)  # cleaned up even when the set-up below fails
        line = self.proc.stdout.readline()
        if not line.startswith("ready"):
            raise RuntimeError(f"delay-line did not start: {line!r}")
        for side in ("a", "b"):
            peer = "b" if side == "a" else "a"
            run("ip", "link", "set", TUN[side], "netns", NS[side])
            ns = ["ip", "netns", "exec", NS[side]]
            # Quiet: no router solicitations on the link (absent when the kernel has no IPv6).
            run(*ns, "sysctl", "-qw", f"net.ipv6.conf.{TUN[side]}.disable_ipv6=1", check=False)
            run(*ns, "ip", "addr", "add", ADDR[side], "peer", ADDR[peer], "dev", TUN[side])
            run(*ns, "ip", "link", "set", TUN[side], "up")
        if rate:
            run("ip", "netns", "exec", NS["a"], "tc", "qdisc", "replace", "dev", TUN["a"], "root", "tbf",
                "rate", f"{rate}bps", "burst", "32kb", "latency", "100ms")

    def stop(self):
        """SIGTERM; the delay line's counters per direction."""
        if self.proc.poll() is None:
            self.proc.terminate()
        out, _ = self.proc.communicate(timeout=10)
        return [json.loads(l) for l in out.splitlines() if l.startswith("{")]


def remove_stale_namespaces():
    """A run killed with SIGKILL (ctest's timeout) could not clean up: remove what it left."""
    listing = run("ip", "netns", "list", check=False).stdout
    for name in re.findall(r"^(cfxlemu(\d+)[ab])\b", listing, re.M):
        if not os.path.exists(f"/proc/{name[1]}"):
            run("ip", "netns", "del", name[0], check=False)


def make_namespaces():
    remove_stale_namespaces()
    for side in ("a", "b"):
        run("ip", "netns", "add", NS[side])
        run("ip", "netns", "exec", NS[side], "ip", "link", "set", "lo", "up")


def cleanup(links):
    # timeout(1) signals the process and then its group: a second SIGTERM must not cut this short.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for link in links:
        if link.proc.poll() is None:
            link.proc.kill()
            link.proc.wait()
    for side in ("a", "b"):
        run("ip", "netns", "del", NS[side], check=False)


CHECKS = []


def check(ok, what):
    CHECKS.append(ok)
    print(("ok   " if ok else "FAIL ") + what, flush=True)


def latency_and_loss(conflux_net, links):
    link = Link(links, conflux_net, 50, 0.02)
    echo = in_ns("b", "udp-echo")
    time.sleep(0.3)
    probe = in_ns("a", "udp-probe")
    sent_result = json.loads(probe.communicate(timeout=30)[0])
    echo_result = json.loads(echo.communicate(timeout=30)[0])
    counters = link.stop()
    rtts = sorted(sent_result["rtts"])
    received, echoed = echo_result["received"], len(rtts)
    median_ms = statistics.median(rtts) * 1000 if rtts else 0.0
    loss_ab = 1 - received / PROBES
    loss_ba = 1 - echoed / received if received else 1.0
    print(f"  {PROBES} probes: {received} reached b, {echoed} echoes back; round trip median {median_ms:.1f} ms, "
          f"5% {rtts[len(rtts) // 20] * 1000:.1f} ms, 95% {rtts[len(rtts) * 19 // 20] * 1000:.1f} ms")
    print(f"  delay line: {counters}")
    check(90.0 <= median_ms <= 110.0, f"round trip {median_ms:.1f} ms is 100 ms within 10%")
    check(abs(loss_ab - 0.02) <= 0.01, f"loss a->b {loss_ab * 100:.2f}% is 2% within 1 point")
    check(abs(loss_ba - 0.02) <= 0.01, f"loss b->a {loss_ba * 100:.2f}% is 2% within 1 point")


def rate(conflux_net, links):
    link = Link(links, conflux_net, 10, 0.0, rate=MIB)
    sink = in_ns("b", "tcp-sink")
    time.sleep(0.3)
    source = in_ns("a", "tcp-source")
    source.wait(timeout=30)
    result = json.loads(sink.communicate(timeout=30)[0])
    counters = link.stop()
    print(f"  {result['total']} bytes; delay line: {counters}")
    got = result["rate"] / MIB
    check(result["total"] == TCP_BYTES, f"all {TCP_BYTES} bytes arrived")
    check(0.9 <= got <= 1.1, f"goodput {got:.3f} MiB/s is 1 MiB/s within 10%")


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def speed(conflux_net, links):
    link = Link(links, conflux_net, 10, 0.0)
    sink = in_ns("b", "tcp-sink")
    time.sleep(0.3)
    cpu0, t0 = cpu_seconds(link.proc.pid), time.monotonic()
    source = in_ns("a", "tcp-source-big")
    source.wait(timeout=120)
    result = json.loads(sink.communicate(timeout=120)[0])
    cpu, wall = cpu_seconds(link.proc.pid) - cpu0, time.monotonic() - t0
    counters = link.stop()
    packets = sum(c["delivered"] for c in counters)
    print(f"  {result['total']} bytes at {result['rate'] / MIB:.1f} MiB/s; delay line CPU {cpu:.2f} s over "
          f"{wall:.1f} s wall ({100 * cpu / wall:.0f}% of a core), {packets} packets both ways")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--role":
        ROLES[sys.argv[2]]()
        return 0
    speed_only = sys.argv[2:] == ["--speed"]
    if len(sys.argv) != 2 and not speed_only:
        print(__doc__)
        return 2
    if os.geteuid() != 0 or not os.path.exists("/dev/net/tun") or not shutil.which("ip") or not shutil.which("tc"):
        print("SKIP: needs root, /dev/net/tun, ip and tc")
        return 77
    # ctest's timeout sends SIGTERM: leave through the finally below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    links = []
    try:
        try:
            make_namespaces()
        except subprocess.CalledProcessError as e:
            print(f"SKIP: cannot make network namespaces: {e.stderr.strip()}")
            return 77
        started = time.monotonic()
        if speed_only:
            print("latency 10 ms each way, no rate limit, 64 MiB a->b:")
            speed(sys.argv[1], links)
            return 0
        print("latency 50 ms each way, 2% loss each way:")
        latency_and_loss(sys.argv[1], links)
        print("latency 10 ms each way, tbf 1 MiB/s a->b:")
        rate(sys.argv[1], links)
        print(f"{sum(CHECKS)} of {len(CHECKS)} checks passed in {time.monotonic() - started:.1f} s")
        return 0 if all(CHECKS) else 1
    finally:
        cleanup(links)


if __name__ == "__main__":
    sys.exit(main())
