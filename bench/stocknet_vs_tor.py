#!/usr/bin/python3
"""conflux-proxy beside the stock tor client, through the same stock tor 0.4.9 relays (issue 15).

Usage: bench/stocknet_vs_tor.py [--runs 5] [--sizes 5MiB,50MiB] [--build-dir build/release]
                                [--base-port 16000] [--out stocknet.json]

One stock network from tools/tornet/run.sh --hold (3 authorities, 2 guards, 2 middles, 2 exits and its
two stock clients: clientcfx0 = ConfluxEnabled 0, clientcfx1 = ConfluxEnabled 1). Beside them two
conflux-proxy processes bootstrap from the same authorities (tor's DirAuthority lines): ours0
(ConfluxEnabled 0) and ours1 (ConfluxEnabled 1). So all four clients use the same relays, the same
exits and the same file server; only the client differs.

For each size, --runs times, the four clients in rotating order, the procedure of tornet and
bench/vs_tor.py: a fresh SOCKS username (a fresh circuit or Conflux set), a 13-byte `prime` request on
it, 0.5 s pause, then the measured `curl --socks5-hostname --proxy-user USER:x -w '%{json}'` on the same
username; the body's SHA-256 is checked.

  MiB/s      bytes / curl's time_total (1 MiB = 2^20 B)
  TTFB       curl's time_starttransfer of the measured request (on an already-built circuit)
  client CPU utime+stime of the client process (our proxy, or the stock client tor) per MiB
  relay CPU  utime+stime of every stock tor of the network but the two stock clients, per MiB
  Conflux    ours1: the transfer's cells came over a 2-leg set at a stock exit (the proxy's metrics);
             clientcfx1: the prime request's stream (the measured one takes the same circuit) was on a
             CONFLUX_LINKED circuit whose set has 2 built legs (its control port).
             tor uses a set only once linked and otherwise falls back to one circuit, so before each of
             its transfers this waits for a linked 2-leg set, and closes the used set after it (as
             tornet does); our proxy keeps a clean set prebuilt by itself.

Exit status: 0 ran, 1 a client failed a download or its check, 2 setup failure.
"""

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vs_tor  # noqa: E402  (curl, scrape, leg_evidence, stats, cpu accounting)

REPO = vs_tor.REPO
MiB = vs_tor.MiB


class TorControl:
    """A stock tor's control port: cookie auth, GETINFO, and the STREAM events it saw."""

    def __init__(self, port, cookie_path):
        self.events = []
        self.lock = threading.Lock()
        with open(cookie_path, "rb") as f:
            cookie = f.read().hex()
        self.cmd_sock = self._connect(port, cookie)
        self.ev_sock = self._connect(port, cookie)
        # The listener blocks until tor has something to say, however long that is (a 10 s timeout
        # killed it during other clients' transfers, and the checks after it read nothing).
        self.ev_sock.settimeout(None)
        self.ev_sock.sendall(b"SETEVENTS STREAM\r\n")
        self.reader = threading.Thread(target=self._read_events, daemon=True)
        self.reader.start()

    @staticmethod
    def _connect(port, cookie):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(("AUTHENTICATE %s\r\n" % cookie).encode())
        if not s.recv(4096).startswith(b"250"):
            raise RuntimeError("control port %d refused the cookie" % port)
        return s

    def _read_events(self):
        buf = b""
        while True:
            try:
                chunk = self.ev_sock.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            buf += chunk
            *lines, buf = buf.split(b"\r\n")
            with self.lock:
                self.events.extend(line.decode(errors="replace") for line in lines)

    def _request(self, line, reply_end):
        self.cmd_sock.sendall((line + "\r\n").encode())
        data = b""
        while not data.endswith(reply_end):
            chunk = self.cmd_sock.recv(65536)
            if not chunk:
                break
            data += chunk
        return data.decode(errors="replace")

    def getinfo(self, key):
        return self._request("GETINFO %s" % key, b"250 OK\r\n")

    def command(self, line):
        return self._request(line, b"\r\n")

    def circuits(self):
        """circuit id -> (status, purpose, conflux id)"""
        out = {}
        for line in self.getinfo("circuit-status").splitlines():
            p = line.strip().split()
            if len(p) < 2 or p[0].startswith("250") or p[0] == ".":
                continue
            kv = dict(x.split("=", 1) for x in p if "=" in x)
            out[p[0]] = (p[1], kv.get("PURPOSE"), kv.get("CONFLUX_ID"))
        return out

    def wait_linked_set(self, seconds):
        """Waits until a CONFLUX_LINKED set has 2 built legs (tor uses sets only once linked, and falls
        back to a single circuit when none is): what tornet does before each Conflux transfer."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            sets = {}
            for status, purpose, cfx in self.circuits().values():
                if purpose == "CONFLUX_LINKED" and status == "BUILT" and cfx:
                    sets[cfx] = sets.get(cfx, 0) + 1
            if any(n >= 2 for n in sets.values()):
                return True
            time.sleep(0.5)
        return False

    def close_set_of_stream(self, user):
        """Closes every leg of the set the user's last stream used, so the next transfer gets a fresh
        set (tornet closes used circuits too)."""
        circ = self.last_stream_circuit(user)
        if circ is None:
            return
        circuits = self.circuits()
        cfx = circuits.get(circ, (None, None, None))[2]
        for cid, (_, _, c) in circuits.items():
            if cid == circ or (cfx is not None and c == cfx):
                self.command("CLOSECIRCUIT %s" % cid)

    def last_stream_circuit(self, user):
        with self.lock:
            circ = None
            for line in self.events:
                p = line.split()
                if len(p) >= 5 and p[1] == "STREAM" and p[3] == "SUCCEEDED" and "SOCKS_USERNAME=\"%s\"" % user in line:
                    circ = p[4]
        return circ

    def conflux_legs_of_stream(self, user):
        """Built legs of the CONFLUX_LINKED set the user's last stream succeeded on (0: none)."""
        circ = self.last_stream_circuit(user)
        if circ is None:
            return 0
        circuits = self.circuits()
        status, purpose, cfx = circuits.get(circ, (None, None, None))
        if purpose != "CONFLUX_LINKED" or cfx is None:
            return 0
        return sum(1 for s, pu, c in circuits.values() if c == cfx and s == "BUILT" and pu == "CONFLUX_LINKED")


def start_tornet(args, work, sizes):
    env = dict(os.environ, TORNET_NETNS="0", TORNET_WORK=os.path.join(work, "tornet"),
               BASE_PORT=str(args.base_port), SIZES=",".join(sizes), N="1", MAX_SECONDS="7200",
               PYTHON="/usr/bin/python3")
    log_path = os.path.join(work, "tornet.log")
    proc = subprocess.Popen([os.path.join(REPO, "tools", "tornet", "run.sh"), os.path.join(work, "tornet.json"),
                             "--hold", "7000"], env=env, stdout=open(log_path, "w"), stderr=subprocess.STDOUT)
    described = os.path.join(work, "tornet", "network.json")
    deadline = time.monotonic() + 300
    while not os.path.exists(described):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("tornet did not come up; see %s" % log_path)
        time.sleep(0.5)
    with open(described, encoding="utf-8") as f:
        return proc, json.load(f)


def start_proxy(args, work, net, name, conflux):
    d = os.path.join(work, name)
    os.makedirs(d)
    ports = []
    for _ in range(2):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        ports.append(s.getsockname()[1])
        s.close()
    torrc = os.path.join(d, "torrc")
    with open(torrc, "w", encoding="utf-8") as f:
        f.write("DataDirectory %s\nLog info file %s\nSocksPort 127.0.0.1:%d\nMetricsPort 127.0.0.1:%d\n"
                "EnforceDistinctSubnets 0\nTestingTorNetwork 1\nConfluxEnabled %d\n%s\n"
                % (os.path.join(d, "data"), os.path.join(d, "info.log"), ports[0], ports[1], 1 if conflux else 0,
                   "\n".join(net["dirauthority_lines"])))
    proc = subprocess.Popen([os.path.join(args.build_dir, "client", "app", "conflux-proxy"), "-f", torrc],
                            stdout=open(os.path.join(d, "output.log"), "w"), stderr=subprocess.STDOUT)
    return {"proc": proc, "pid": proc.pid, "socks": "127.0.0.1:%d" % ports[0],
            "metrics": "http://127.0.0.1:%d/metrics" % ports[1], "log": os.path.join(d, "info.log")}


def wait_log(path, needle, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if os.path.exists(path) and needle in open(path, encoding="utf-8", errors="replace").read():
            return True
        time.sleep(0.5)
    return False


def measure(args, net, clients, sizes, dest):
    files = {f["name"]: f for f in net["files"]}
    prime_url = net["file_server"] + "prime"
    relays = [{"name": r["nick"], "pid": r["pid"], "start_time": vs_tor.proc_stat(r["pid"])[1]}
              for r in net["relays"]]
    runs, seq, failed = [], 0, 0
    names = list(clients)
    for size in sizes:
        f = files[size]
        mib = vs_tor.SIZE_BYTES[size] / MiB
        for rep in range(args.runs):
            for k in range(len(names)):
                name = names[(k + rep) % len(names)]
                c = clients[name]
                seq += 1
                user = "sn-%s-%s-%d-%d" % (name, size, rep, seq)
                rec = {"client": name, "size": size, "rep": rep}
                if c.get("control") is not None:
                    rec["linked_set_waited"] = c["control"].wait_linked_set(60)
                prime = vs_tor.curl(c["socks"], user, prime_url, dest, 60)
                rec["prime_ok"] = prime["ok"]
                if c.get("control") is not None:
                    # The measured request goes on the circuit the prime took (same username): look
                    # now, while the set is there (tornet looks at the prime stream too).
                    rec["conflux_legs"] = c["control"].conflux_legs_of_stream(user)
                m0 = vs_tor.scrape(c["metrics"]) if c.get("metrics") else None
                time.sleep(args.pause)
                me = [{"name": name, "pid": c["pid"], "start_time": vs_tor.proc_stat(c["pid"])[1]}]
                cc0, rc0 = vs_tor.cpu_snapshot(me), vs_tor.cpu_snapshot(relays)
                r = vs_tor.curl(c["socks"], user, f["url"], dest, max(60, int(vs_tor.SIZE_BYTES[size] / (200 << 10)) + 30))
                cc1, rc1 = vs_tor.cpu_snapshot(me), vs_tor.cpu_snapshot(relays)
                rec.update({k2: r.get(k2) for k2 in ("ok", "error", "time_starttransfer", "time_total")})
                if rec["ok"] and vs_tor.sha256_file(dest) != f["sha256"]:
                    rec["ok"], rec["error"] = False, "SHA-256 mismatch"
                if os.path.exists(dest):
                    os.unlink(dest)
                if c["conflux"]:
                    if m0 is not None:
                        ev = vs_tor.leg_evidence(m0, vs_tor.scrape(c["metrics"]))
                        rec["conflux_legs"] = ev["legs_carrying_data"] if ev["on_2leg_set"] else 0
                        rec["split"] = ev["split"]
                    else:
                        c["control"].close_set_of_stream(user)
                if rec["ok"]:
                    rec["MiBps"] = mib / r["time_total"]
                    rec["ttfb_s"] = r["time_starttransfer"]
                    rec["client_cpu_s_per_MiB"] = sum(cc1[n] - cc0[n] for n in cc0) / vs_tor.CLK_TCK / mib
                    rec["relay_cpu_s_per_MiB"] = sum(rc1[n] - rc0[n] for n in rc0) / vs_tor.CLK_TCK / mib
                    vs_tor.log("%-10s %-6s rep %d: ttfb %.3f s, %.2f MiB/s, client CPU %.4f s/MiB%s" % (
                        name, size, rep + 1, rec["ttfb_s"], rec["MiBps"], rec["client_cpu_s_per_MiB"],
                        "" if "conflux_legs" not in rec else ", Conflux legs %d %s" % (
                            rec["conflux_legs"], rec.get("split", ""))))
                else:
                    failed += 1
                    vs_tor.log("%-10s %-6s rep %d FAILED: %s" % (name, size, rep + 1, rec.get("error")))
                runs.append(rec)
    return runs, failed


def table(runs, sizes, clients):
    lines = ["| client | size | MiB/s | TTFB ms | client CPU s/MiB | relays' CPU s/MiB | on a 2-leg set |",
             "|---|---|---|---|---|---|---|"]
    for size in sizes:
        for name in clients:
            ok = [r for r in runs if r["client"] == name and r["size"] == size and r["ok"]]
            med = lambda k: vs_tor.stats([r[k] for r in ok])["median"]  # noqa: E731
            cfx = "-" if not clients[name]["conflux"] else "%d/%d" % (
                sum(1 for r in ok if r.get("conflux_legs", 0) >= 2), len(ok))
            if not ok:
                lines.append("| %s | %s | failed | | | | |" % (name, size))
                continue
            lines.append("| %s | %s | %.2f | %.1f | %.4f | %.4f | %s |" % (
                name, size, med("MiBps"), 1000 * med("ttfb_s"), med("client_cpu_s_per_MiB"),
                med("relay_cpu_s_per_MiB"), cfx))
    for size in sizes:
        def m(name, key="MiBps"):
            return vs_tor.stats([r[key] for r in runs if r["client"] == name and r["size"] == size and r["ok"]])["median"]
        parts = []
        for ours, tor, what in (("ours0", "clientcfx0", "one circuit"), ("ours1", "clientcfx1", "Conflux")):
            if m(ours) and m(tor):
                parts.append("%s %.2fx MiB/s, %.2fx TTFB" % (what, m(ours) / m(tor), m(ours, "ttfb_s") / m(tor, "ttfb_s")))
        lines.append("\n%s, ours / stock tor: %s" % (size, "; ".join(parts)))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--sizes", default="5MiB,50MiB")
    ap.add_argument("--build-dir", default=os.path.join(REPO, "build", "release"))
    ap.add_argument("--base-port", type=int, default=16000)
    ap.add_argument("--pause", type=float, default=0.5)
    ap.add_argument("--out", default="stocknet_vs_tor.json")
    args = ap.parse_args()
    sizes = [s for s in args.sizes.split(",") if s]
    for s in sizes:
        if s not in vs_tor.SIZE_BYTES:
            ap.error("unknown size %s" % s)
    work = tempfile.mkdtemp(prefix="stocknet-")
    tornet, proxies = None, []
    signal.signal(signal.SIGTERM, vs_tor.on_signal)
    try:
        tornet, net = start_tornet(args, work, sizes)
        vs_tor.log("stock network up: %d relays" % len(net["relays"]))
        clients = {}
        for name, conflux in (("ours0", False), ("ours1", True)):
            p = start_proxy(args, work, net, name, conflux)
            proxies.append(p["proc"])
            if not wait_log(p["log"], "Bootstrapped 100%", 120):
                raise RuntimeError("%s did not bootstrap; see %s" % (name, p["log"]))
            if conflux and not wait_log(p["log"], "(2 of 2 legs)", 60):
                raise RuntimeError("%s linked no set; see %s" % (name, p["log"]))
            clients[name] = dict(p, conflux=conflux)
        for c in net["clients"]:
            clients[c["nick"]] = {"socks": c["socks"], "pid": c["pid"], "conflux": bool(c["conflux"]),
                                  "control": TorControl(c["control_port"], c["cookie"]) if c["conflux"] else None}
        dest = os.path.join("/dev/shm" if os.access("/dev/shm", os.W_OK) else work, "stocknet-%d.body" % os.getpid())
        for name, c in clients.items():  # warm-up
            vs_tor.curl(c["socks"], "warm-" + name, net["file_server"] + "prime", dest, 60)
        runs, failed = measure(args, net, clients, sizes, dest)
        text = table(runs, sizes, clients)
        print(text)
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump({"runs": runs, "table": text, "sizes": sizes, "date": time.strftime("%Y-%m-%d %H:%M UTC",
                                                                                            time.gmtime())}, f, indent=1)
        return 1 if failed else 0
    except (RuntimeError, vs_tor.Interrupted) as e:
        vs_tor.log("setup failed: %s" % e)
        return 2
    finally:
        for p in proxies:
            p.terminate()
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
        if tornet is not None and tornet.poll() is None:
            tornet.send_signal(signal.SIGTERM)
            try:
                tornet.wait(60)
            except subprocess.TimeoutExpired:
                tornet.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
