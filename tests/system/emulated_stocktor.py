#!/usr/bin/python3
"""Stock tor in an emulated network: stock relays and a stock tor client with tor's Conflux, each in its own
namespace (issue 21's "our Conflux vs stock tor's Conflux"; docs/CONFLUX-NET.md, "Mixing implementations").

    emulated_stocktor.py CONFLUX_NET

Brings up our authority, two stock middles, a stock exit and a stock tor client (`ConfluxEnabled 1`) in a
private /24 of its own (10.204.X.0/24, X from this run's pid), every link 10 ms one way, the exit's 30 ms.
From the machine:
  1. `up` is ready: every stock relay knew every relay (its ControlPort, on its own address), and the client
     bootstrapped through the router;
  2. 1 MiB through the client's SOCKS port (at its address) arrives with the SHA-256 network.json lists;
  3. the client's ControlPort (GETINFO circuit-status) shows a linked Conflux set: at least 2 circuits with
     PURPOSE=CONFLUX_LINKED, every one ending at the stock exit;
  4. the stock exit's ControlPort counts what it sent (GETINFO traffic/written): at least the 1 MiB;
  5. after `down`, none of the network's namespaces is left.
The network is taken down on every way out (emulated_network.py's pattern). Exit 0 when every check passed, 1
otherwise, 77 (skip) when not root, without /dev/net/tun, ip or /usr/sbin/tor, or namespaces cannot be made.
"""

import hashlib
import json
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
import emulated_network as emu  # noqa: E402  (socks_get, namespaces, down, check)
import tor_control  # noqa: E402

TOR = "/usr/sbin/tor"
DIR_PREFIX = "cfxemutor-"
MIB = 1 << 20


def spec():
    return {
        "relays": 3, "exits": 1, "bridges": [], "proxies": [{"name": "torc", "conflux": True}],
        # A stock tor client takes an exit only with the Exit flag: two of ports 80, 443 and 6667.
        "exit_policy": ["accept *:80", "accept *:443"],
        "implementation": {"relay1": "tor", "relay2": "tor", "exit1": "tor", "torc": "tor"},
        "files": [{"name": "1MiB.bin", "size": MIB}],
        "emulation": {"subnet": f"10.204.{os.getpid() % 250}.0/24", "seed": 21, "default": {"latency_ms": 10},
                      "hosts": {"exit1": {"latency_ms": 30}}},
    }


def run_checks(conflux_net, d):
    spec_file = d + ".spec.json"
    with open(spec_file, "w") as f:
        json.dump(spec(), f)
    t0 = time.monotonic()
    up = subprocess.run([conflux_net, "up", "--dir", d, "--spec", spec_file, "--timeout", "90"],
                        capture_output=True, text=True, timeout=120)
    print(up.stdout + up.stderr, end="")
    emu.check(up.returncode == 0, f"conflux-net up, stock relays and a stock client in namespaces "
                                  f"({time.monotonic() - t0:.1f} s)")
    if up.returncode != 0:
        return None
    info = json.load(open(os.path.join(d, "network.json")))
    procs = {p["name"]: p for p in info["processes"]}
    torc = procs["torc"]
    emu.check(torc.get("implementation") == "tor" and torc["address"].startswith("10.204."),
              f"the client is stock tor at {torc['address']} in {torc.get('netns')}")

    f = info["files"][0]
    t0 = time.monotonic()
    body = emu.socks_get("%s:%d" % (torc["address"], torc["ports"]["socks"]), f["url"])
    digest = hashlib.sha256(body).hexdigest()
    emu.check(len(body) == MIB and digest == f["sha256"],
              f"1 MiB through the stock client in {time.monotonic() - t0:.2f} s, SHA-256 "
              f"{'matches' if digest == f['sha256'] else 'differs'}")

    c = tor_control.Control(torc)
    try:
        status = c.getinfo("circuit-status") or ""
    finally:
        c.close()
    exit_fp = procs["exit1"]["rsa_fingerprint"].upper()
    linked = [line for line in status.splitlines() if "PURPOSE=CONFLUX_LINKED" in line]
    to_exit = [line for line in linked if line.split()[2].split(",")[-1].lstrip("$").upper().startswith(exit_fp)]
    emu.check(len(linked) >= 2 and len(to_exit) == len(linked),
              f"the client's Conflux set: {len(linked)} linked legs, {len(to_exit)} ending at exit1")

    c = tor_control.Control(procs["exit1"])
    try:
        written = int(c.getinfo("traffic/written") or 0)
    finally:
        c.close()
    emu.check(written >= MIB, f"the stock exit sent {written} bytes (GETINFO traffic/written on its own address)")
    return info


def check_namespaces(d, info, ours, left):
    emu.check(ours and not left, f"down removed the network's {len(ours)} namespaces ({len(left)} left)")


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    why = emu.skip_reason((TOR,))
    if why:
        print("SKIP: " + why)
        return 77
    emu.DIR_PREFIX = DIR_PREFIX
    return emu.run_network_test(sys.argv[1], run_checks, check_namespaces)


if __name__ == "__main__":
    sys.exit(main())
