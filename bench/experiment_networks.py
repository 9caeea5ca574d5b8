#!/usr/bin/python3
"""The networks an experiment's arms run on (issue 21, docs/EXPERIMENTS.md).

An arm that only chooses proxies shares one network with the other arms: `up` once, `down` at the end.
An arm with `relay_options` (torrc lines for every relay: `"Schedulers Vanilla"`, `"CircuitPriorityHalflife 0"`)
needs relays started with them, and most of those options take effect only at a relay's start: so when any arm
has them, every arm of every round gets a network of its own, the spec's `relay_options` plus the arm's, `up`
before the arm and `down` after it, in a directory of its own (NETDIR-ARM-ROUND). The spec, the addresses, the files and the client schedule are the same for
every arm (the seeds' rule P5); the relays' keys are new for each network, so the paths are drawn anew.
An arm may also carry "spec": fields that replace the spec's for its networks (`{"implementation": {"relay1":
"tor", ..., "torc": "tor"}}`: stock tor relays and a stock tor client, docs/CONFLUX-NET.md); such an arm, too,
makes every arm run on a network of its own.

In an emulated network each relay also gets a MetricsPort inside its namespace (relay_queues.py), read before
and after each arm: relays.jsonl gets one line per round, arm and relay. During each arm every relay's bytes sent
are sampled once a second (relay_goodput.py; stock tor relays on their ControlPorts): relay_goodput.jsonl.
"""

import json
import os
import threading
import time

import netload
import relay_goodput
import tor_control
import traffic
import relay_queues


client_names = traffic.client_names
# A proxy of ours that keeps guards per client answers GETINFO entry-guards/client/NAME on this ControlPort,
# on its namespace's loopback (so the question never crosses an emulated link).
PER_CLIENT_CONTROL_PORT = 9051


def per_client_options(mix, emulated):
    """The torrc lines of a proxy copy with "per_client_in_proxy": guards per client and room for its share of
    the clients; in an emulated network (each proxy in a namespace of its own) a ControlPort to list them."""
    share = -(-len(client_names(mix)) // traffic.proxy_processes(mix))
    lines = ["PerClientGuards 1", "PerClientGuardsMax %d" % share]
    if emulated:
        lines += ["ControlPort 127.0.0.1:%d" % PER_CLIENT_CONTROL_PORT, "CookieAuthentication 1"]
    return lines


def per_client_proxies(spec, mix):
    """With the mix's "guards": "per_client", every proxy an arm names becomes one proxy per client, PROXY-CLIENT
    (its own process, so its own guards, as each of tor's clients picks its own), with the proxy's options, link
    and implementation; with "per_client_in_proxy", traffic.proxy_processes(mix) copies PROXY-1 .. PROXY-K, each
    keeping its clients' guards apart (per_client_options); other proxies stay. The spec unchanged otherwise."""
    mode = mix.get("guards", "per_proxy")
    if mode not in ("per_client", "per_client_in_proxy"):
        return spec
    named = {a.get("proxy") for a in mix["arms"]} | {p for a in mix["arms"] for p in a.get("proxies", {}).values()}
    if mode == "per_client":
        clients = client_names(mix)
    else:
        clients = [str(k + 1) for k in range(traffic.proxy_processes(mix))]
    hosts = spec.get("emulation", {}).get("hosts", {})
    impl = spec.get("implementation", {})
    proxies = []
    for p in spec.get("proxies", []):
        if p["name"] not in named:
            proxies.append(p)
            continue
        for c in clients:
            name = "%s-%s" % (p["name"], c)
            proxies.append(dict(p, name=name))
            if mode == "per_client_in_proxy":
                proxies[-1]["options"] = list(p.get("options", [])) + per_client_options(mix, "emulation" in spec)
            if p["name"] in hosts:
                hosts[name] = dict(hosts[p["name"]])
            if p["name"] in impl:
                impl[name] = impl[p["name"]]
        hosts.pop(p["name"], None)
        impl.pop(p["name"], None)
    spec["proxies"] = proxies
    return spec


def up_timeout(spec):
    """`up`'s timeout: netload's 120 s, and 2 s more per relay (a 100-relay network starts 100 processes and
    its authority tests each relay's ORPort before the consensus lists it)."""
    return netload.UP_TIMEOUT_S + 2 * int(spec.get("relays", 6))


def per_arm(mix):
    return any(a.get("relay_options") or a.get("spec") for a in mix.get("arms", []))


def cpu_seconds(pid):
    """utime + stime of a running process, in seconds; None when it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def network_cpu(net):
    return sum(cpu_seconds(p["pid"]) or 0.0 for p in net["processes"] if p.get("started") and p.get("pid", 0) > 1)


def network_cpu_by_role(net):
    """{role: CPU seconds so far} over the network's running processes (router, fileserver, authority, relay,
    exit, bridge, proxy)."""
    out = {}
    for p in net["processes"]:
        if p.get("started") and p.get("pid", 0) > 1:
            out[p["role"]] = out.get(p["role"], 0.0) + (cpu_seconds(p["pid"]) or 0.0)
    return out


def rss_kib(pid):
    """VmRSS of a running process in KiB; 0 when it is gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


class MemorySampler(threading.Thread):
    """Every `interval` s: the network's processes' RSS by role and in all, this process's (the driver's), the
    machine's MemAvailable and load average; keeps the sample with the largest sum, the lowest MemAvailable and
    the highest load."""

    def __init__(self, net, interval=5.0):
        super().__init__(daemon=True)
        self.net, self.interval = net, interval
        self.peak = {"rss_kib": 0}
        self.min_available_kib = None
        self.max_load = 0.0  # the highest 1-minute load average seen
        self.stopping = threading.Event()

    def sample(self):
        roles = {}
        for p in self.net["processes"]:
            if p.get("started") and p.get("pid", 0) > 1:
                roles[p["role"]] = roles.get(p["role"], 0) + rss_kib(p["pid"])
        roles["driver"] = rss_kib(os.getpid())
        total = sum(roles.values())
        if total > self.peak["rss_kib"]:
            self.peak = {"rss_kib": total, "by_role_kib": roles, "at": time.time()}
        with open("/proc/meminfo") as f:
            avail = next(int(l.split()[1]) for l in f if l.startswith("MemAvailable:"))
        if self.min_available_kib is None or avail < self.min_available_kib:
            self.min_available_kib = avail
        with open("/proc/loadavg") as f:
            self.max_load = max(self.max_load, float(f.read().split()[0]))

    def run(self):
        while not self.stopping.is_set():
            self.sample()
            self.stopping.wait(self.interval)

    def stop(self):
        self.stopping.set()
        self.join(timeout=30)


def stock_guards(net, proc):
    """A stock tor proxy's guards as its ControlPort lists them (GETINFO entry-guards: "$FP~NICK STATUS" lines),
    named by the network's relays; [] when it does not answer."""
    names = {p.get("rsa_fingerprint", "").upper(): p["name"] for p in net["processes"]}
    try:
        c = tor_control.Control(proc)
        try:
            text = c.getinfo("entry-guards") or ""
        finally:
            c.close()
    except OSError:
        return []
    out = []
    for line in text.strip().splitlines():
        words = line.split()
        if not words:
            continue
        fp = words[0].lstrip("$").split("~")[0].split("=")[0].upper()
        out.append("%s (%s)" % (names.get(fp, words[0]), " ".join(words[1:]) or "?"))
    return out


def clients_of_proxies(mix):
    """{proxy: [client, ...]}: which clients each proxy carried in any arm."""
    out = {}
    for arm in mix.get("arms", []):
        for c in mix.get("clients", []):
            for i in range(int(c.get("count", 1))):
                name = "%s%d" % (c["class"], i + 1)
                proxy = traffic.proxy_of(mix, arm, c["class"], name)
                if name not in out.setdefault(proxy, []):
                    out[proxy].append(name)
    return out


def client_guards(net, proc, clients):
    """{"PROXY client CLIENT": ["relay2 (up)", ...]} from a PerClientGuards proxy of ours: GETINFO
    entry-guards/client/CLIENT on its ControlPort in its namespace; a client that never made a stream has none."""
    out = {}
    try:
        c = tor_control.Control(proc, sock=relay_goodput.socket_in(proc["netns"]),
                                at=("127.0.0.1", PER_CLIENT_CONTROL_PORT))
    except OSError as e:
        return {"%s (every client)" % proc["name"]: ["ControlPort: %s" % e]}
    try:
        for client in clients:
            text = c.getinfo("entry-guards/client/%s" % client) or ""
            out["%s client %s" % (proc["name"], client)] = [
                "%s (%s)" % (w[0].split("~")[-1], " ".join(w[1:]) or "?")
                for w in (line.split() for line in text.strip().splitlines()) if w]
    except OSError as e:
        out["%s (the rest)" % proc["name"]] = ["ControlPort: %s" % e]
    finally:
        c.close()
    return out


def proxy_guards(net, mix=None):
    """{proxy: ["relay2 (confirmed)", ...]} from each started proxy's guard-state (a stock tor proxy's from its
    ControlPort): the clients of one proxy share its guards, so an arm's single-path numbers depend on which
    relays its proxy drew. A proxy with PerClientGuards gives one entry per client (client_guards)."""
    out = {}
    carried = clients_of_proxies(mix) if mix and mix.get("guards") == "per_client_in_proxy" else {}
    for p in net["processes"]:
        if p["role"] != "proxy" or not p.get("started"):
            continue
        if p["name"] in carried and p.get("netns"):
            out.update(client_guards(net, p, carried[p["name"]]))
            continue
        if p.get("implementation") == "tor":
            out[p["name"]] = stock_guards(net, p)
            continue
        try:
            with open(os.path.join(p["data_dir"], "guard-state")) as f:
                guards = json.load(f).get("guards", [])
        except (OSError, ValueError):
            continue  # a bridge user keeps no guard state: its bridges are its first hops
        out[p["name"]] = ["%s%s" % (g.get("nickname", "?"), " (confirmed)" if g.get("confirmed_on") else "")
                          for g in guards]
    return out


class Networks:
    """Brings networks up and down around the arms; collects their CPU, guards and relay metrics."""

    def __init__(self, net_bin, netdir, spec, bin_dir, mix, out_dir):
        self.mix = mix
        self.net_bin, self.base, self.bin_dir, self.out_dir = net_bin, netdir, bin_dir, out_dir
        self.netdir = netdir
        self.dirs = []  # every network's directory (NETDIR, or NETDIR-ARM-ROUND for a network per arm)
        self.namespaces = []  # every emulated network's namespaces, for a check that they are gone
        self.spec = spec
        self.per_arm = per_arm(mix)
        self.emulated = "emulation" in spec
        self.net = None
        self.cpu_s = 0.0
        self.cpu_roles = {}  # role -> CPU seconds over the run (every network)
        self.memory = []  # MemorySampler of each network
        self.up_seconds = []
        self.guards = {}  # "proxy" or "proxy (arm, round)" -> guards
        self.relays = []  # relays.jsonl lines
        self.samplers = []  # relay_goodput.Sampler of each arm and round
        self.sampler = None
        self.t0 = self.before = self.cpu0 = None

    def spec_for(self, arm):
        spec = json.loads(json.dumps(self.spec))
        spec.update(json.loads(json.dumps(arm.get("spec", {}))))
        spec = per_client_proxies(spec, self.mix)
        extra = [relay_queues.relay_option()] if self.emulated else []
        spec["relay_options"] = list(spec.get("relay_options", [])) + list(arm.get("relay_options", [])) + extra
        return spec

    def up(self, arm, rnd=1):
        """The network the first arm runs on (all arms, unless per_arm)."""
        self.netdir = "%s-%s-%d" % (self.base, arm["name"], rnd) if self.per_arm else self.base
        self.dirs.append(self.netdir)
        spec = self.spec_for(arm)
        self.net = netload.net_up(self.net_bin, self.netdir, spec, self.bin_dir, timeout=up_timeout(spec))
        self.namespaces += self.net.get("namespaces", [])
        self.up_seconds.append(self.net["_up_seconds"])
        self.cpu0 = network_cpu(self.net)
        self.cpu0_roles = network_cpu_by_role(self.net)
        self.memory.append(MemorySampler(self.net))
        self.memory[-1].start()
        return self.net

    def enter(self, rnd, arm):
        if self.net is None:
            self.up(arm, rnd)
        self.before = relay_queues.scrape(self.net) if self.emulated else {}
        if self.emulated:
            # Once a second up to 25 relays; for more, one scrape per relay every N/25 s, so that the scrapes
            # (this process's CPU and the relays') stay what 25 relays cost.
            relays = sum(1 for p in self.net["processes"] if p["role"] in relay_goodput.RELAY_ROLES)
            self.sampler = relay_goodput.Sampler(self.net, rnd, arm["name"], interval=max(1.0, relays / 25))
            self.sampler.start()
            self.samplers.append(self.sampler)
        self.t0 = time.monotonic()
        return self.net

    def leave(self, rnd, arm):
        seconds = time.monotonic() - self.t0
        if self.sampler:
            self.sampler.stop()
            for name, e in self.sampler.errors.items():
                print("goodput of %s in %s, round %d: %s" % (name, arm["name"], rnd, e), flush=True)
            self.sampler = None
        if self.emulated:
            for name, row in relay_queues.difference(relay_queues.scrape(self.net), self.before).items():
                self.relays.append(dict(row, round=rnd, arm=arm["name"], relay=name, seconds=round(seconds, 3)))
        if self.per_arm:
            for proxy, g in proxy_guards(self.net, self.mix).items():
                self.guards["%s (%s, round %d)" % (proxy, arm["name"], rnd)] = g
            problem = self.close()
            if problem:
                print("down after %s, round %d: %s" % (arm["name"], rnd, problem), flush=True)

    def close(self):
        """Takes the current network down (idempotent); returns a problem as text, or None."""
        if self.net is None:  # down already, or an `up` that failed half-way (net_down: nothing when no network)
            return netload.net_down(self.net_bin, self.netdir) if self.dirs else None
        if not self.per_arm:
            self.guards.update(proxy_guards(self.net, self.mix))
        self.cpu_s += network_cpu(self.net) - self.cpu0
        for role, s in network_cpu_by_role(self.net).items():
            self.cpu_roles[role] = self.cpu_roles.get(role, 0.0) + s - self.cpu0_roles.get(role, 0.0)
        if self.memory:
            self.memory[-1].stop()
        self.net = None
        return netload.net_down(self.net_bin, self.netdir)

    def write(self, t0):
        """relays.jsonl and relay_goodput.jsonl (times since t0, the run's start) when there is something."""
        goodput = [row for s in self.samplers for row in s.rows(t0)]
        for name, rows in (("relays.jsonl", self.relays), ("relay_goodput.jsonl", goodput)):
            if not rows:
                continue
            with open(os.path.join(self.out_dir, name), "w") as f:
                for r in rows:
                    f.write(json.dumps(r) + "\n")
