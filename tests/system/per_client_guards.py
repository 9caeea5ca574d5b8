#!/usr/bin/python3
"""Guards per client inside one proxy (PerClientGuards, docs/CONFIG.md; issue 21), on loopback.

    per_client_guards.py CONFLUX_NET

Brings up 1 authority and 12 relays (3 exits) with two proxies, one with single circuits and one with
Conflux, each with PerClientGuards 1, PerClientGuardsMax 4 and a ControlPort. Through each proxy:
  1. four clients (SOCKS usernames c1/r1 .. c4/r1) download a file, intact;
  2. each client's guards (GETINFO entry-guards/client/cN) have as many "up" (confirmed) guards as its
     circuits have first hops (1 single; at least 2 with Conflux legs), and not every client has the same ones;
  3. the same clients again with fresh usernames (cN/r2, new circuits): intact, and each client's "up"
     guards are exactly those of round 1;
  4. a fifth client is refused with SOCKS reply 1 (general failure), and has no guards (552);
  5. guard-state holds the process's own guards only (GETINFO entry-guards): the clients' are not persisted.
Twelve relays also check that a proxy bootstraps in a network whose microdescriptor request takes more
than one cell (a BEGIN_DIR request over 498 bytes once went out as nothing). Exit 0 when every check
passed, 1 otherwise.
"""

import asyncio
import json
import os
import shutil
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
import netload  # noqa: E402
import tor_control  # noqa: E402

CLIENTS = ["c1", "c2", "c3", "c4"]
CHECKS = []


def check(ok, what):
    CHECKS.append(bool(ok))
    print(("ok   " if ok else "FAIL ") + what, flush=True)


def spec(control_ports):
    def proxy(name, conflux):
        return {"name": name, "conflux": conflux,
                "options": ["PerClientGuards 1", "PerClientGuardsMax 4",
                            "ControlPort 127.0.0.1:%d" % control_ports[name], "CookieAuthentication 1"]}
    return {"relays": 12, "exits": 3, "bridges": [],
            "proxies": [proxy("single", False), proxy("cfx", True)],
            "files": [{"name": "64KiB.bin", "size": 65536}]}


async def fetch(net, proxy, user):
    files = netload.file_table(net)
    size, sha, path = files["64KiB.bin"]
    host, port = netload.file_server_address(net)
    p = netload.proxies(net)[proxy]
    r = netload.Result(user, user, "GET", path, size, sha)
    await netload.http_request(r, "%s:%d" % (p.get("address", "127.0.0.1"), p["ports"]["socks"]), user, host,
                               port, path, 60)
    return r


async def fetch_all(net, proxy, users):
    return await asyncio.gather(*[fetch(net, proxy, u) for u in users])


def up_guards(control, client):
    """The client's confirmed, usable guards (entry-guards' "up"), by name; None when it has no guards."""
    reply = control.command("GETINFO entry-guards/client/%s" % client)
    if not reply[-1].startswith("250"):
        return None
    text = reply[0].split("=", 1)[1] if "=" in reply[0] else ""
    return sorted(line.split()[0] for line in text.strip().splitlines() if line.split()[1:] == ["up"])


def run_proxy(net, proc, legs):
    name = proc["name"]
    control = tor_control.Control(proc, at=None)
    try:
        first = asyncio.run(fetch_all(net, name, ["%s/r1" % c for c in CLIENTS]))
        check(all(r.ok for r in first), "%s: 4 clients, 64 KiB each, intact (%s)" % (
            name, "; ".join(r.error or "ok" for r in first)))
        guards1 = {c: up_guards(control, c) for c in CLIENTS}
        # A Conflux leg that could not use a guard (the set's exit, say) confirms one more.
        check(all(g is not None and (len(g) == 1 if legs == 1 else len(g) >= legs) for g in guards1.values()),
              "%s: each client has %s up guard(s): %s" % (name, "1" if legs == 1 else "at least 2", guards1))
        check(len({tuple(g or []) for g in guards1.values()}) > 1, "%s: the clients drew different guards" % name)
        second = asyncio.run(fetch_all(net, name, ["%s/r2" % c for c in CLIENTS]))
        check(all(r.ok for r in second), "%s: the same clients on fresh circuits, intact" % name)
        guards2 = {c: up_guards(control, c) for c in CLIENTS}
        # Kept: tor picks the exit first and then a guard that is not it, so a fresh circuit whose exit is one
        # of the client's guards confirms the client's next guard (one more at most for these few circuits).
        check(all(set(guards1[c]) <= set(guards2[c] or []) and len(guards2[c] or []) <= len(guards1[c]) + 1
                  for c in CLIENTS), "%s: each client kept its guards: %s" % (name, guards2))
        fifth = asyncio.run(fetch(net, name, "c5/r1"))
        check(not fifth.ok and "reply 1 " in (fifth.error or ""),
              "%s: a fifth client is refused with reply 1: %s" % (name, fifth.error))
        check(up_guards(control, "c5") is None, "%s: the fifth client has no guards" % name)
        listed = (control.getinfo("entry-guards") or "").strip().splitlines()
        own = sorted(line.split()[0].split("~")[-1] for line in listed if line.strip())
    finally:
        control.close()
    try:
        with open(os.path.join(proc["data_dir"], "guard-state")) as f:
            saved = sorted(g.get("nickname", "?") for g in json.load(f).get("guards", []))
    except (OSError, ValueError):
        saved = []
    # The clients' guards are not persisted: the file holds the process's own sample (drawn for its
    # preemptive circuits or prebuilt Conflux set, which serve streams without a client).
    theirs = {g.split("~")[-1] for gs in guards1.values() for g in gs or []} - set(own)
    check(saved == own, "%s: guard-state holds the process's own guards only: %s (clients' others: %s)" % (
        name, saved, sorted(theirs)))


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    net_bin = os.path.abspath(argv[1])
    tmp = tempfile.mkdtemp(prefix="cfxpcguards-")
    netdir = os.path.join(tmp, "net")
    t0 = time.monotonic()
    try:
        ports = {"single": netload.free_port(), "cfx": netload.free_port()}
        net = netload.net_up(net_bin, netdir, spec(ports))
        check(True, "up with 12 relays and 2 proxies in %.1f s" % net["_up_seconds"])
        for proc in net["processes"]:
            if proc["role"] == "proxy":
                proc["ports"]["control"] = ports[proc["name"]]
                run_proxy(net, proc, 2 if proc["name"] == "cfx" else 1)
    except netload.NetError as e:
        check(False, "network: %s" % e)
    finally:
        problem = netload.net_down(net_bin, netdir)
        if problem:
            print(problem)
        if all(CHECKS):
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("logs kept in %s" % tmp)
    print("%d of %d checks passed in %.1f s" % (sum(CHECKS), len(CHECKS), time.monotonic() - t0))
    return 0 if CHECKS and all(CHECKS) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
