#!/usr/bin/python3
"""Traffic models and the client driver of conflux-net experiments (issue 21, docs/EXPERIMENTS.md).

Usage: bench/traffic.py --network DIR/network.json --mix MIX.json --out RESULTS_DIR

Runs simulated clients against the SOCKS proxies of a running conflux-net network (loopback or emulated)
and writes one JSON line per download to RESULTS_DIR/records.jsonl and the bytes received per second (a
line for every second an arm ran) to RESULTS_DIR/throughput.jsonl. bench/experiment.py drives it for named
experiments; this command line runs a mix against a network you started yourself.

The models are the seeds' (tgen's, as in the Conflux and KIST evaluations):

  web        320 KiB, then think time U[1, 30] s (Al-Sabah's whole-network runs; KIST's used U[1, 60] s)
  bulk       5 MiB back to back
  streaming  5 MiB, then U[60, 300] s (the thesis' streaming clients)
  probe      50 KiB, 1 MiB, 5 MiB in turn, each on a fresh circuit (its own SOCKS username, so
             IsolateSOCKSAuth gives it a new circuit), 60 s apart (TorPerf)

A mix (JSON) names the arms, the clients and how long each arm runs:

  {"classes": {"web": {"think_s": [1, 5]}},          # optional: override a model's fields
   "arms": [{"name": "conflux-off", "proxy": "single", "proxies": {"bulk": "guards-single"}},
            {"name": "conflux-on",  "proxy": "conflux"}],
   "clients": [{"class": "web", "count": 4}, {"class": "bulk", "count": 1}],
   "rounds": 2, "round_s": 60, "seed": 1,           # "ramp_s": 60: clients start within 60 s (default 5)
   "guards": "per_proxy"}                            # or "per_client", "per_client_in_proxy" (below)

Each round runs every arm in turn (the order rotates from round to round, so a drift in the machine's load
hits both alike) for round_s seconds: every client of the mix uses the arm's proxy for its class (or the
arm's "proxy"). A client keeps its own circuit (SOCKS username = client name and arm) unless its model asks
for fresh circuits. No download starts after the arm's time is up; the ones in flight finish (or time out).
Every body is checked against network.json's SHA-256; a wrong or short body is an error record.

With "guards": "per_client" each client uses its own copy of the arm's proxy, PROXY-CLIENT ("client-web1"),
so its own guards, as each of tor's clients picks its own; bench/experiment.py starts those copies (8 at most).
With "guards": "per_client_in_proxy" the clients are dealt in turn onto "proxy_processes" copies of the arm's
proxy, PROXY-1 .. PROXY-K (default: enough for 128 clients each, at most 8), each run with PerClientGuards 1:
one process keeps each of its clients' guards apart (the client is the SOCKS username up to its first '/').

SOCKS usernames are CLIENT/ARM, and CLIENT/ARM/fresh-N for a fresh circuit: one client, many circuits.

An arm may also carry "relay_options" (torrc lines for every relay); bench/experiment.py then runs each arm on a
network of its own with them (bench/experiment_networks.py); this command line refuses such a mix.

A record: {"round", "arm", "proxy", "class", "client", "file", "size", "start" (s since the run began),
"ttfb" (s to the HTTP response header, the circuit built on the way), "ttlb" (s to the last byte),
"bytes", "new_circuit" (the first download of its SOCKS username: its TTFB includes building the circuit, or
the Conflux set), "error" (null when the body was whole and its SHA-256 right)}.
"""

import argparse
import asyncio
import json
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, "..", "tests", "system"))
import netload  # noqa: E402

MODELS = {
    "web": {"files": ["320KiB.bin"], "think_s": [1, 30], "fresh_circuit": False},
    "bulk": {"files": ["5MiB.bin"], "think_s": [0, 0], "fresh_circuit": False},
    "streaming": {"files": ["5MiB.bin"], "think_s": [60, 300], "fresh_circuit": False},
    "probe": {"files": ["50KiB.bin", "1MiB.bin", "5MiB.bin"], "think_s": [60, 60], "fresh_circuit": True},
}
MODEL_KEYS = {"files", "think_s", "fresh_circuit"}
IDLE_TIMEOUT_S = 60   # no progress for this long fails a download
GRACE_S = 180         # downloads still running this long after an arm's end are cancelled (error records)


class MixError(Exception):
    pass


GUARD_MODES = ("per_proxy", "per_client", "per_client_in_proxy")
MAX_PROXY_PROCESSES = 8      # conflux-net's kMaxProxies
CLIENTS_PER_PROCESS = 128    # the default share of one proxy process with per_client_in_proxy


_CLIENT_INDEX = {}  # the clients' names -> {name: position}


def client_names(mix):
    """The clients' names in order ("web1", "web2", "bulk1", ...)."""
    return ["%s%d" % (c["class"], i + 1) for c in mix.get("clients", []) for i in range(int(c.get("count", 1)))]


def proxy_processes(mix):
    """How many copies of a proxy "per_client_in_proxy" deals the clients onto."""
    n = len(client_names(mix))
    return int(mix.get("proxy_processes", min(MAX_PROXY_PROCESSES, max(1, -(-n // CLIENTS_PER_PROCESS)))))


def proxy_of(mix, arm, cls, client):
    """The proxy a client uses in an arm: the arm's for its class; with "guards": "per_client" the client's own
    copy of it, PROXY-CLIENT (bench/experiment_networks.py starts one per client); with "per_client_in_proxy"
    copy PROXY-K, the clients dealt in turn over the copies."""
    p = arm.get("proxies", {}).get(cls, arm.get("proxy"))
    mode = mix.get("guards")
    if mode == "per_client":
        return "%s-%s" % (p, client)
    if mode == "per_client_in_proxy":
        names = tuple(client_names(mix))
        index = _CLIENT_INDEX.setdefault(names, {n: i for i, n in enumerate(names)})
        return "%s-%d" % (p, index[client] % proxy_processes(mix) + 1)
    return p


def load_mix(mix, net):
    """Checks a mix against the network; returns (models, arms, clients). Raises MixError."""
    unknown = set(mix) - {"classes", "arms", "clients", "rounds", "round_s", "seed", "guards", "proxy_processes",
                          "ramp_s"}
    if unknown:
        raise MixError("unknown mix fields: %s" % ", ".join(sorted(unknown)))
    models = {k: dict(v) for k, v in MODELS.items()}
    for name, fields in mix.get("classes", {}).items():
        if set(fields) - MODEL_KEYS:
            raise MixError("class %s: unknown fields %s" % (name, sorted(set(fields) - MODEL_KEYS)))
        models.setdefault(name, {"files": [], "think_s": [0, 0], "fresh_circuit": False}).update(fields)
    proxies = netload.proxies(net)
    files = netload.file_table(net)
    clients = mix.get("clients", [])
    for c in clients:
        if c.get("class") not in models or not 1 <= int(c.get("count", 1)) <= 1000:
            raise MixError("client entry %r: unknown class or count outside 1-1000" % (c,))
        for f in models[c["class"]]["files"]:
            if f not in files:
                raise MixError("class %s downloads %s, which the network does not serve" % (c["class"], f))
        lo, hi = models[c["class"]]["think_s"]
        if not 0 <= lo <= hi:
            raise MixError("class %s: think_s must be [lo, hi] with 0 <= lo <= hi" % c["class"])
    arms = mix.get("arms", [])
    if not arms or not clients:
        raise MixError("a mix needs at least one arm and one client")
    if mix.get("guards", "per_proxy") not in GUARD_MODES:
        raise MixError("guards: \"per_proxy\" (clients share their proxy's guards), \"per_client\" or "
                       "\"per_client_in_proxy\"")
    if not 1 <= proxy_processes(mix) <= MAX_PROXY_PROCESSES:
        raise MixError("proxy_processes: 1 to %d" % MAX_PROXY_PROCESSES)
    for a in arms:
        for c in clients:
            for i in range(int(c.get("count", 1))):
                p = proxy_of(mix, a, c["class"], "%s%d" % (c["class"], i + 1))
                if p not in proxies:
                    raise MixError("arm %s: class %s has no started proxy (%r)" % (a.get("name"), c["class"], p))
    return models, arms, clients


class Driver:
    """Runs a mix; collects records and per-second throughput."""

    def __init__(self, net, mix, out_dir, progress=True, networks=None):
        self.models, self.arms, self.clients = load_mix(mix, net)
        self.mix = mix
        self.rounds = int(mix.get("rounds", 1))
        self.round_s = float(mix.get("round_s", 60))
        self.seed = int(mix.get("seed", 1))
        self.set_network(net)
        # Optional: enter(round, arm) -> network.json before an arm, leave(round, arm) after it
        # (bench/experiment_networks.py: a network per arm when the arms change the relays).
        self.networks = networks
        self.out_dir = out_dir
        self.records = []
        self.buckets = {}  # (arm, whole second since start) -> bytes
        self.show_progress = progress and sys.stderr.isatty()
        self.t0 = None
        self.fresh = 0
        self.users = set()  # SOCKS usernames used so far: a new one means a new circuit
        self.periods = []  # (arm, first second, last second): when each arm ran

    def set_network(self, net):
        self.net = net
        self.host, self.port = netload.file_server_address(net)
        self.files = netload.file_table(net)
        self.proxies = netload.proxies(net)

    def socks(self, proxy_name):
        p = self.proxies[proxy_name]
        return "%s:%d" % (p.get("address", "127.0.0.1"), p["ports"]["socks"])

    async def download(self, rnd, arm, proxy, cls, client, name, user, new_circuit):
        size, sha, path = self.files[name]
        start = time.monotonic()
        r = netload.Result(client, user, "GET", path, size, sha)

        def count(n):
            key = (arm, int(time.monotonic() - self.t0))
            self.buckets[key] = self.buckets.get(key, 0) + n
        try:
            await netload.http_request(r, self.socks(proxy), user, self.host, self.port, path, IDLE_TIMEOUT_S,
                                       progress=count)
        finally:
            error = None if r.ok else (r.error or r.describe())
            self.records.append({
                "round": rnd, "arm": arm, "proxy": proxy, "class": cls, "client": client, "file": name,
                "size": size, "start": round(start - self.t0, 3),
                "ttfb": None if r.first_byte is None else round(r.first_byte, 4),
                "ttlb": round(r.seconds, 4) if r.ok else None, "bytes": r.got, "new_circuit": new_circuit,
                "error": error})

    async def client(self, rnd, arm, cls, client, end, rng):
        model = self.models[cls]
        proxy = proxy_of(self.mix, arm, cls, client)
        lo, hi = model["think_s"]
        # A random start within the first think time (at most 5 s, or the mix's "ramp_s"), so clients of one class
        # do not move in step; 1000 clients starting within 5 s ask for 2000 Conflux legs at once.
        await asyncio.sleep(rng.uniform(0, float(self.mix.get("ramp_s", min(hi, 5.0)))))
        n = 0
        while time.monotonic() < end:
            name = model["files"][n % len(model["files"])]
            if model["fresh_circuit"]:
                self.fresh += 1
                user = "%s/%s/fresh-%d" % (client, arm["name"], self.fresh)
            else:
                user = "%s/%s" % (client, arm["name"])
            await self.download(rnd, arm["name"], proxy, cls, client, name, user,
                                model["fresh_circuit"] or user not in self.users)
            self.users.add(user)
            n += 1
            await asyncio.sleep(max(0.0, min(rng.uniform(lo, hi), end - time.monotonic())))

    async def arm_round(self, rnd, arm, rng):
        begin = time.monotonic()
        end = begin + self.round_s
        tasks = []
        for c in self.clients:
            for i in range(int(c.get("count", 1))):
                name = "%s%d" % (c["class"], i + 1)
                tasks.append(asyncio.ensure_future(
                    self.client(rnd, arm, c["class"], name, end, random.Random(rng.random()))))
        ticker = asyncio.ensure_future(self.progress(rnd, arm["name"], end))
        done, pending = await asyncio.wait(tasks, timeout=self.round_s + GRACE_S)
        for t in pending:
            t.cancel()
        if pending:
            await asyncio.wait(pending, timeout=30)
        ticker.cancel()
        self.periods.append((arm["name"], int(begin - self.t0), int(time.monotonic() - self.t0)))
        for t in done:
            if t.exception() is not None:
                raise t.exception()

    async def progress(self, rnd, arm, end):
        """A progress line on a terminal; nothing when the output is a file (ctest, logs)."""
        while self.show_progress:
            left = max(0.0, end - time.monotonic())
            done = int(40 * (1 - left / self.round_s))
            errors = sum(1 for r in self.records if r["error"])
            sys.stderr.write("\rround %d/%d %-12s [%s%s] %3.0f s left, %d downloads, %d errors " % (
                rnd, self.rounds, arm, "#" * done, "." * (40 - done), left, len(self.records), errors))
            sys.stderr.flush()
            await asyncio.sleep(1.0)

    async def run(self):
        self.t0 = time.monotonic()
        rng = random.Random(self.seed)
        for rnd in range(1, self.rounds + 1):
            shift = (rnd - 1) % len(self.arms)
            for arm in self.arms[shift:] + self.arms[:shift]:
                if self.networks:  # blocking, between arms: nothing else is running then
                    self.set_network(self.networks.enter(rnd, arm))
                await self.arm_round(rnd, arm, rng)
                if self.networks:
                    self.networks.leave(rnd, arm)
                ok = sum(1 for r in self.records if r["arm"] == arm["name"] and r["round"] == rnd and not r["error"])
                bad = sum(1 for r in self.records if r["arm"] == arm["name"] and r["round"] == rnd and r["error"])
                if self.show_progress:
                    sys.stderr.write("\n")
                print("round %d arm %s: %d downloads intact, %d errors (%.0f s into the run)" % (
                    rnd, arm["name"], ok, bad, time.monotonic() - self.t0), flush=True)
        return time.monotonic() - self.t0

    def write(self):
        os.makedirs(self.out_dir, exist_ok=True)
        with open(os.path.join(self.out_dir, "records.jsonl"), "w") as f:
            for r in sorted(self.records, key=lambda r: r["start"]):
                f.write(json.dumps(r) + "\n")
        # Every second an arm ran has a line, 0 when nothing arrived: a stall shows as a stall.
        seconds = dict(self.buckets)
        for arm, first, last in self.periods:
            for sec in range(first, last + 1):
                seconds.setdefault((arm, sec), 0)
        with open(os.path.join(self.out_dir, "throughput.jsonl"), "w") as f:
            for (arm, sec), n in sorted(seconds.items(), key=lambda kv: (kv[0][1], kv[0][0])):
                f.write(json.dumps({"t": sec, "arm": arm, "bytes": n}) + "\n")


def run(net, mix, out_dir):
    """Runs `mix` against the network `net` (network.json as a dict); writes the records; returns the Driver."""
    d = Driver(net, mix, out_dir)
    d.seconds = asyncio.run(d.run())
    d.write()
    return d


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--network", required=True, help="a running network's network.json")
    ap.add_argument("--mix", required=True, help="the mix (JSON; see above)")
    ap.add_argument("--out", required=True, help="where records.jsonl and throughput.jsonl go")
    args = ap.parse_args(argv[1:])
    with open(args.network) as f:
        net = json.load(f)
    with open(args.mix) as f:
        mix = json.load(f)
    if any(a.get("relay_options") or a.get("spec") for a in mix.get("arms", [])):
        print("mix: arms with relay_options or spec need a network each: run them with bench/experiment.py",
              file=sys.stderr)
        return 2
    try:
        d = run(net, mix, args.out)
    except MixError as e:
        print("mix: %s" % e, file=sys.stderr)
        return 2
    errors = sum(1 for r in d.records if r["error"])
    print("%d downloads, %d errors, %.0f s; records in %s" % (len(d.records), errors, d.seconds, args.out))
    return 0 if d.records and not errors else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
