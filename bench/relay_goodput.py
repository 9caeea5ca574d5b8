#!/usr/bin/python3
"""Each relay's goodput over time during an experiment's arms (issue 21, docs/EXPERIMENTS.md).

While an arm runs, a thread reads every relay's count of bytes sent once a second:
  ours        conflux_relay_bytes_total{direction="out"} from its MetricsPort (127.0.0.1:9035 inside its own
              namespace, relay_queues.py): TLS payload bytes written on its channels, handshakes included
  stock tor   GETINFO traffic/written on its ControlPort (cookie authentication): every byte tor wrote on its
              sockets, TLS records on its OR connections and, at an exit, the requests it sends to the file server
The two counts differ by TLS's record overhead (about 2% at full records) and an exit's few upstream bytes;
both are what the relay puts on its links, so the curves compare.

The MetricsPort is on the namespace's loopback: the thread enters the relay's namespace (setns(2) on
/var/run/netns/NAME) only to create the socket, which stays in that namespace, and the scrape never crosses an
emulated link. A stock relay's ControlPort is on its own address, reached through the router like any host.

relay_goodput.jsonl, one line per relay and sample: {"round", "arm", "relay", "role", "implementation", "t"
(seconds since the run began, as throughput.jsonl), "dt" (seconds since the relay's previous sample),
"bytes" (sent in those dt seconds)}. relay_goodput.png: one panel per arm, one line per relay, MiB/s.

`bench/relay_goodput.py RESULTS_DIR` draws the PNG again from the JSON lines.
"""

import ctypes
import json
import os
import re
import socket
import sys
import threading
import time

import relay_queues
from tor_control import Control

CLONE_NEWNET = 0x40000000
RELAY_ROLES = relay_queues.RELAY_ROLES
OUTPUT = "relay_goodput.png"
_OUT = re.compile(r'^conflux_relay_bytes_total\{[^}]*direction="out"[^}]*\}\s+([0-9.eE+]+)\s*$', re.M)
_libc = ctypes.CDLL(None, use_errno=True)


def _setns(fd):
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        raise OSError(ctypes.get_errno(), "setns")


def socket_in(netns):
    """A TCP socket created in the network namespace `netns` (the calling thread returns to its own)."""
    own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    target = os.open(os.path.join("/var/run/netns", netns), os.O_RDONLY)
    try:
        _setns(target)
        try:
            return socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        finally:
            _setns(own)
    finally:
        os.close(target)
        os.close(own)


def read_ours(proc):
    """Bytes sent so far by a relay of ours (its MetricsPort), or None."""
    s = socket_in(proc["netns"])
    try:
        s.settimeout(3)
        s.connect(("127.0.0.1", relay_queues.METRICS_PORT))
        s.sendall(b"GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        data = b""
        while len(data) < 4 << 20:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    finally:
        s.close()
    m = _OUT.search(data.decode("utf-8", "replace"))
    return int(float(m.group(1))) if m else None


class Sampler:
    """Samples every relay of `net` each `interval` seconds on a thread, from start() to stop()."""

    def __init__(self, net, rnd, arm, interval=1.0):
        self.procs = [p for p in net["processes"]
                      if p["role"] in RELAY_ROLES and p.get("started") and p.get("pid", 0) > 1]
        self.rnd, self.arm, self.interval = rnd, arm, interval
        self.samples = []  # (monotonic, name, cumulative bytes)
        self.errors = {}
        self.controls = {}
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def read(self, p):
        if p.get("implementation") == "tor":
            if p["name"] not in self.controls:
                self.controls[p["name"]] = Control(p)
            value = self.controls[p["name"]].getinfo("traffic/written")
            return None if value is None else int(value)
        return read_ours(p) if p.get("netns") else None

    def sample(self):
        for p in self.procs:
            try:
                n = self.read(p)
            except (OSError, ValueError) as e:
                self.errors[p["name"]] = str(e)
                self.controls.pop(p["name"], None)
                continue
            if n is not None:
                self.samples.append((time.monotonic(), p["name"], n))

    def loop(self):
        while True:
            self.sample()
            if self.done.wait(self.interval):
                self.sample()  # the arm's last bytes
                return

    def start(self):
        self.thread.start()

    def stop(self):
        self.done.set()
        self.thread.join(timeout=30)
        for c in self.controls.values():
            c.close()

    def rows(self, t0):
        """relay_goodput.jsonl's lines, times relative to the run's start t0 (monotonic)."""
        kind = {p["name"]: (p["role"], p.get("implementation") or "conflux") for p in self.procs}
        last, out = {}, []
        for t, name, n in self.samples:
            if name in last:
                pt, pn = last[name]
                out.append({"round": self.rnd, "arm": self.arm, "relay": name, "role": kind[name][0],
                            "implementation": kind[name][1], "t": round(t - t0, 3), "dt": round(t - pt, 3),
                            "bytes": n - pn})
            last[name] = (t, n)
        return out


def plot(results_dir):
    """relay_goodput.png from relay_goodput.jsonl; [] when there is none."""
    path = os.path.join(results_dir, "relay_goodput.jsonl")
    if not os.path.exists(path):
        return []
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with open(path) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    arms = []
    for r in rows:
        if r["arm"] not in arms:
            arms.append(r["arm"])
    fig, axes = plt.subplots(len(arms), 1, figsize=(10, 3 * len(arms)), squeeze=False)
    for ax, arm in zip(axes[:, 0], arms):
        relays = sorted({r["relay"] for r in rows if r["arm"] == arm})
        for relay in relays:
            rs = [r for r in rows if r["arm"] == arm and r["relay"] == relay and r["dt"] > 0]
            impl = rs[0]["implementation"] if rs else ""
            xs, ys = [], []
            for r in rs:
                if xs and r["t"] - r["dt"] - xs[-1] > 5:  # a gap between rounds: break the line
                    xs.append(float("nan"))
                    ys.append(float("nan"))
                xs.append(r["t"])
                ys.append(r["bytes"] / r["dt"] / 2**20)
            ax.plot(xs, ys, label="%s (%s%s)" % (relay, rs[0]["role"] if rs else "", ", tor" if impl == "tor" else ""),
                    linewidth=0.8)
        ax.set_title("%s: bytes each relay sent per second" % arm)
        ax.set_xlabel("seconds since the run began")
        ax.set_ylabel("MiB/s")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper right", fontsize="x-small", ncol=2)
    fig.tight_layout()
    out = os.path.join(results_dir, OUTPUT)
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return [out]


def summary(rows):
    """{arm: {relay: mean MiB/s over the arm's samples}}: the report's table."""
    acc = {}
    for r in rows:
        a = acc.setdefault(r["arm"], {}).setdefault(r["relay"], [0, 0.0])
        a[0] += r["bytes"]
        a[1] += r["dt"]
    return {arm: {relay: (b / s / 2**20 if s else 0.0) for relay, (b, s) in relays.items()}
            for arm, relays in acc.items()}


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    for p in plot(argv[1]):
        print("wrote %s" % p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
