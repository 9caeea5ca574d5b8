#!/usr/bin/python3
"""The same client through stock tor relays vs through ours, in one conflux-net topology (issue 16).

Usage: bench/mixed_relays.py [--runs 3] [--sizes 5MiB,50MiB] [--build-dir build/release]
                             [--net-exe PATH] [--client ours|tor] [--out mixed_relays.json]

Two conflux-net networks, one after the other, the same spec but for the relays' implementation
(docs/CONFLUX-NET.md, "Mixing implementations"): one authority of ours (the only Guard: a new stock
relay has measured no bandwidth), two middles `relay1` `relay2` and one exit `exit1`, all stock tor
("stock") or all conflux-relay ("ours"). So every circuit is auth1 -> relay1|relay2 -> exit1 on the
sides with stock relays; with ours, every relay of ours is a Guard (each reports the same bandwidth), so
the authority may be a middle and a middle the guard: the circuits have the same length and the same
single exit, the roles vary. The clients are the same:
two conflux-proxy processes, cfx0 (ConfluxEnabled 0) and cfx1 (ConfluxEnabled 1; its two legs take
the two middles). With `--client tor` the clients are two Debian tor processes instead, tor0
(ConfluxEnabled 0) and tor1 (ConfluxEnabled 1), given the network's DirAuthority lines and pinned to
the same paths on both sides (EntryNodes auth1, MiddleNodes relay1,relay2, ExitNodes exit1); tor1's
Conflux is checked after each download from its ControlPort (GETINFO circuit-status: circuits with
PURPOSE=CONFLUX_LINKED). The measuring procedure is bench/vs_tor.py's (a fresh SOCKS username, a `prime`
request, 0.5 s, the measured curl, SHA-256 checked), with its functions.

  MiB/s          bytes / curl's time_total (1 MiB = 2^20 B)
  relay CPU      utime+stime of auth1 + relay1 + relay2 + exit1 during the transfer, per MiB
  per relay      the same for each of them
  proxy CPU      the measuring proxy's, per MiB

Exit status: 0 ran, 1 a download failed or a side did not start, 2 usage.
"""

import argparse
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vs_tor  # noqa: E402  (the shared measuring procedure)

RELAYS = ("relay1", "relay2", "exit1")
ALL_RELAYS = ("auth1",) + RELAYS


def log(msg):
    print("[mixed %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


TOR = "/usr/sbin/tor"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spec_for(impl, sizes, client):
    proxies = [{"name": "cfx1", "conflux": True}, {"name": "cfx0", "conflux": False}] if client == "ours" else []
    # A stock tor client builds no exit circuit from a consensus without an Exit flag, which our
    # authorities give only to an exit that allows two of ports 80, 443 and 6667 (as tor's do).
    exit_policy = [] if client == "ours" else ["accept *:80", "accept *:443"]
    return {"authorities": 1, "relays": 3, "exits": 1, "bridges": [], "exit_policy": exit_policy,
            "proxies": proxies,
            "implementation": {r: impl for r in RELAYS},
            "files": [{"name": vs_tor.PRIME, "size": 13}] +
                     [{"name": s + ".bin", "size": vs_tor.SIZE_BYTES[s]} for s in sizes]}


def start_tor_clients(net, work):
    """tor0 and tor1 (ConfluxEnabled 0 and 1) on the network, pinned to auth1 -> relay1|relay2 -> exit1;
    {name: {"name", "pid", "start_time", "socks", "control", "cookie", "popen"}} once bootstrapped."""
    fp = {p["name"]: p["rsa_fingerprint"] for p in net["processes"] if p.get("rsa_fingerprint")}
    clients = {}
    for n, cfx in (("tor0", 0), ("tor1", 1)):
        d = os.path.join(work, n)
        os.makedirs(os.path.join(d, "data"), mode=0o700)
        socks, control = free_port(), free_port()
        torrc = "".join(l + "\n" for l in net["tor_dir_authorities"]) + (
            "DataDirectory %s/data\nSocksPort 127.0.0.1:%d\nControlPort 127.0.0.1:%d\nCookieAuthentication 1\n"
            "Log notice file %s/notice.log\nTestingTorNetwork 1\nClientUseIPv6 0\nConfluxEnabled %d\n"
            "EntryNodes $%s\nMiddleNodes $%s,$%s\nExitNodes $%s\nRunAsDaemon 0\nSandbox 0\n"
            % (d, socks, control, d, cfx, fp["auth1"], fp["relay1"], fp["relay2"], fp["exit1"]))
        with open(os.path.join(d, "torrc"), "w", encoding="utf-8") as f:
            f.write(torrc)
        pop = subprocess.Popen([TOR, "-f", os.path.join(d, "torrc")], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        clients[n] = {"name": n, "pid": pop.pid, "socks": "127.0.0.1:%d" % socks, "control": control,
                      "cookie": os.path.join(d, "data", "control_auth_cookie"), "popen": pop, "dir": d}
    for c in clients.values():
        for _ in range(240):
            try:
                with open(os.path.join(c["dir"], "notice.log"), encoding="utf-8", errors="replace") as f:
                    if "Bootstrapped 100%" in f.read():
                        break
            except OSError:
                pass
            time.sleep(0.5)
        else:
            raise RuntimeError("%s did not bootstrap" % c["name"])
        c["start_time"] = vs_tor.proc_stat(c["pid"])[1]
    return clients


def tor_linked_legs(client):
    """Circuits of a stock tor client that are linked Conflux legs (its ControlPort)."""
    from stem.control import Controller  # Debian's python3-stem
    with Controller.from_port(address="127.0.0.1", port=client["control"]) as c:
        c.authenticate()
        return c.get_info("circuit-status").count("PURPOSE=CONFLUX_LINKED")


def clients_of(net, clients):
    """{name: (kind, socks, metrics URL or None, process record)} of the measuring clients."""
    if clients:
        return {n: ("conflux" if n == "tor1" else "single", c["socks"], None, c) for n, c in clients.items()}
    procs = {p["name"]: p for p in net["processes"] if p.get("started") and p.get("pid", 0) > 1}
    return {n: ("conflux" if n == "cfx1" else "single", "127.0.0.1:%d" % procs[n]["ports"]["socks"],
                "http://127.0.0.1:%d/metrics" % procs[n]["ports"]["metrics"], procs[n]) for n in ("cfx0", "cfx1")}


def measure(net, args, sizes, side, clients=None):
    procs = {p["name"]: p for p in net["processes"] if p.get("started") and p.get("pid", 0) > 1}
    who = clients_of(net, clients)
    socks = {n: w[1] for n, w in who.items()}
    metrics = {n: w[2] for n, w in who.items()}
    files = {f["name"]: f for f in net["files"]}
    watched = [procs[n] for n in RELAYS + ("auth1",)] + [w[3] for w in who.values()]
    dest = os.path.join("/dev/shm" if os.access("/dev/shm", os.W_OK) else tempfile.gettempdir(),
                        "mixed-%d.body" % os.getpid())
    nonce = secrets.token_hex(3)
    for n in socks:  # warm-up: right after its bootstrap a proxy may still be building its first circuits
        for attempt in range(30):
            if vs_tor.curl(socks[n], "warm-%s-%s-%d" % (nonce, n, attempt), files[vs_tor.PRIME]["url"], dest, 60)["ok"]:
                break
            time.sleep(1)
    order = sorted(((n, w[0]) for n, w in who.items()), key=lambda x: x[1] == "conflux")
    runs = []
    for size in sizes:
        f = files[size + ".bin"]
        mib = f["size"] / vs_tor.MiB
        for rep in range(args.runs):
            for name, kind in (order if rep % 2 == 0 else order[::-1]):
                user = "mx-%s-%s-%s-%d" % (nonce, name, size, rep)
                vs_tor.curl(socks[name], user, files[vs_tor.PRIME]["url"], dest, 60)
                m0 = vs_tor.scrape(metrics[name]) if kind == "conflux" and metrics[name] else None
                time.sleep(0.5)
                c0 = vs_tor.cpu_snapshot(watched)
                r = vs_tor.curl(socks[name], user, f["url"], dest, max(60, int(f["size"] / (200 << 10)) + 30))
                c1 = vs_tor.cpu_snapshot(watched)
                rec = {"side": side, "proxy": name, "kind": kind, "size": size, "rep": rep, "ok": r["ok"],
                       "error": r.get("error")}
                if m0 is not None:
                    rec["conflux"] = vs_tor.leg_evidence(m0, vs_tor.scrape(metrics[name]))
                elif kind == "conflux":
                    rec["conflux"] = {"on_2leg_set": tor_linked_legs(clients[name]) >= 2}
                if r["ok"] and vs_tor.sha256_file(dest) != f["sha256"]:
                    rec.update(ok=False, error="SHA-256 differs")
                if os.path.exists(dest):
                    os.unlink(dest)
                per = {n: (c1[n] - c0[n]) / vs_tor.CLK_TCK / mib for n in c0}
                if rec["ok"]:
                    rec.update(MiBps=mib / r["time_total"], ttfb_s=r["time_starttransfer"],
                               cpu_s_per_MiB=per, relay_cpu_s_per_MiB=sum(per[n] for n in ALL_RELAYS),
                               proxy_cpu_s_per_MiB=per[name])
                    log("%s: %s %s rep %d: %.2f MiB/s, relays %.4f CPU s/MiB%s" % (
                        side, name, size, rep + 1, rec["MiBps"], rec["relay_cpu_s_per_MiB"],
                        "" if m0 is None else ", on a 2-leg set: %s" % rec["conflux"]["on_2leg_set"]))
                else:
                    log("%s: %s %s rep %d FAILED: %s" % (side, name, size, rep + 1, rec["error"]))
                runs.append(rec)
    return runs


def run_side(args, sizes, side, impl):
    work = tempfile.mkdtemp(prefix="mixed-relays-")
    net_dir, spec_path = os.path.join(work, "net"), os.path.join(work, "spec.json")
    with open(spec_path, "w", encoding="utf-8") as f:
        json.dump(spec_for(impl, sizes, args.client), f)
    clients = {}
    try:
        up = subprocess.run([args.net_exe, "up", "--dir", net_dir, "--spec", spec_path, "--bin-dir", args.build_dir],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
        if up.returncode != 0:
            sys.stderr.write(up.stdout)
            return {"ok": False, "error": "conflux-net up failed (exit %d)" % up.returncode, "runs": []}
        with open(os.path.join(net_dir, "network.json"), encoding="utf-8") as f:
            net = json.load(f)
        if args.client == "tor":
            clients = start_tor_clients(net, work)
        runs = measure(net, args, sizes, side, clients)
        return {"ok": all(r["ok"] for r in runs), "runs": runs,
                "binaries": {p["name"]: p["binary"] for p in net["processes"]}}
    finally:
        for c in clients.values():
            c["popen"].terminate()
            c["popen"].wait(timeout=30)
        subprocess.run([args.net_exe, "down", "--dir", net_dir], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
        shutil.rmtree(work, ignore_errors=True)


def table(result, sizes):
    def med(side, kind, size, key, sub=None):
        vals = [(r[key][sub] if sub else r[key]) for r in result[side]["runs"]
                if r["ok"] and r["kind"] == kind and r["size"] == size]
        st = vs_tor.stats(vals)
        return "-" if st["median"] is None else "%.3f" % st["median"]

    lines = ["| client | size | relays | MiB/s | relay CPU s/MiB | auth1 | relay1 | relay2 | exit1 | proxy CPU s/MiB |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for kind in ("single", "conflux"):
        for size in sizes:
            for side in ("stock", "ours"):
                lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    kind, size, side, med(side, kind, size, "MiBps"), med(side, kind, size, "relay_cpu_s_per_MiB"),
                    med(side, kind, size, "cpu_s_per_MiB", "auth1"), med(side, kind, size, "cpu_s_per_MiB", "relay1"), med(side, kind, size, "cpu_s_per_MiB", "relay2"),
                    med(side, kind, size, "cpu_s_per_MiB", "exit1"), med(side, kind, size, "proxy_cpu_s_per_MiB")))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--sizes", default="5MiB,50MiB")
    ap.add_argument("--build-dir", default=os.path.join(vs_tor.REPO, "build", "release"),
                    help="where conflux-relay and conflux-proxy are (conflux-net --bin-dir)")
    ap.add_argument("--net-exe", default=None, help="conflux-net (default: BUILD_DIR/tools/conflux-net/conflux-net)")
    ap.add_argument("--client", choices=("ours", "tor"), default="ours",
                    help="the measuring clients: two conflux-proxy (ours) or two Debian tor (tor)")
    ap.add_argument("--out", default="mixed_relays.json")
    args = ap.parse_args()
    sizes = [s for s in args.sizes.split(",") if s]
    if args.runs < 1 or any(s not in vs_tor.SIZE_BYTES for s in sizes):
        ap.error("--runs >= 1; sizes among %s" % ",".join(vs_tor.SIZE_BYTES))
    args.net_exe = args.net_exe or os.path.join(args.build_dir, "tools", "conflux-net", "conflux-net")
    signal.signal(signal.SIGTERM, vs_tor.on_signal)
    result = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "runs": args.runs, "sizes": sizes,
              "load_before": os.getloadavg()}
    for side, impl in (("stock", "tor"), ("ours", "conflux")):
        log("%s: conflux-net up (relays: %s)" % (side, impl))
        result[side] = run_side(args, sizes, side, impl)
    result["load_after"] = os.getloadavg()
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1)
    print(table(result, sizes))
    return 0 if result["stock"]["ok"] and result["ours"]["ok"] else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (KeyboardInterrupt, vs_tor.Interrupted):
        sys.exit(1)
