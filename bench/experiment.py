#!/usr/bin/python3
"""A named conflux-net experiment in one command: network up, traffic, network down, plots, report
(issue 21, docs/EXPERIMENTS.md).

Usage: bench/experiment.py NAME|FILE [--out DIR] [--bin-dir BUILD_DIR] [--net-bin CONFLUX_NET]
           [--subnet A.B.C.0/24] [--rounds N] [--round-s S]

NAME is bench/experiments/NAME.json; FILE any experiment file of that form:
  {"title": "...", "spec": {conflux-net spec}, "mix": {bench/traffic.py mix},
   "compare": {"off": ARM, "on": ARM},
   "seeds": [{"what": "...", "class": "web", "metric": "ttlb", "stat": "median", "off": 11, "on": 6,
              "source": "..."}]}
Writes DIR (default run/experiments/NAME) with records.jsonl, throughput.jsonl, the PNGs, report.md and
report.json (the numbers), and the network's directory under DIR/net (removed unless CONFLUX_SYSTEM_KEEP=1).
An emulated network ("emulation" in the spec) needs root and /dev/net/tun: without them the command exits 77.
Exit status: 0 when every download was intact, 1 otherwise, 2 usage, 77 cannot run here.
"""

import argparse
import json
import os
import resource
import shutil
import signal
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests", "system"))
import netload  # noqa: E402
import traffic  # noqa: E402
import experiment_plots  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, ".."))


def load_experiment(name):
    path = name if name.endswith(".json") else os.path.join(HERE, "experiments", name + ".json")
    with open(path) as f:
        exp = json.load(f)
    exp.setdefault("name", os.path.splitext(os.path.basename(path))[0])
    return exp


def can_emulate():
    return os.geteuid() == 0 and os.path.exists("/dev/net/tun") and shutil.which("ip") is not None


def cpu_seconds(pid):
    """utime + stime of a running process, in seconds; None when it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def quantile(xs, q):
    xs = sorted(xs)
    if not xs:
        return None
    i = q * (len(xs) - 1)
    lo = int(i)
    return xs[lo] + (xs[min(lo + 1, len(xs) - 1)] - xs[lo]) * (i - lo)


def summarize(records):
    """{class: {arm: {n, failed, ttfb_median, ttfb_p80, ttlb_median, ttlb_p80}}}."""
    out = {}
    for r in records:
        out.setdefault(r["class"], {}).setdefault(r["arm"], []).append(r)
    table = {}
    for cls, arms in out.items():
        table[cls] = {}
        for arm, rs in arms.items():
            ok = [r for r in rs if not r["error"]]
            row = {"n": len(ok), "failed": len(rs) - len(ok)}
            for metric in ("ttfb", "ttlb"):
                xs = [r[metric] for r in ok]
                row[metric + "_median"] = statistics.median(xs) if xs else None
                row[metric + "_p80"] = quantile(xs, 0.8)
            table[cls][arm] = row
    return table


def fmt(x, unit=" s"):
    return "–" if x is None else "%.2f%s" % (x, unit)


def topology_lines(spec, net):
    emu = spec.get("emulation")
    lines = ["| process | role | address | one-way latency | link rate | BandwidthRate |", "|---|---|---|---|---|---|"]
    bridge_rates = {b["name"]: b.get("bandwidth_rate", "") for b in spec.get("bridges", [])}
    for p in net["processes"]:
        if p["role"] == "router":
            continue
        link = dict((emu or {}).get("default", {}))
        link.update((emu or {}).get("hosts", {}).get(p["name"], {}))
        lines.append("| %s | %s | %s | %s | %s | %s |" % (
            p["name"], p["role"], p.get("address", "127.0.0.1"),
            "%g ms" % link.get("latency_ms", 0) if emu else "0 (loopback)", link.get("rate") or "unlimited",
            bridge_rates.get(p["name"]) or spec.get("relay_bandwidth_rate") or ""))
    return lines


def report(exp, spec, net, table, records, cost, out_dir):
    cmp_ = exp.get("compare", {})
    off, on = cmp_.get("off"), cmp_.get("on")
    lines = ["# %s" % exp.get("title", exp["name"]), "",
             "Command: `bench/experiment.py %s`; %d downloads, %d failed; wall %.0f s." % (
                 exp["name"], len(records), sum(1 for r in records if r["error"]), cost["wall_s"]), "",
             "## Topology", ""] + topology_lines(spec, net) + ["", "## Mix", "", "```json",
                                                              json.dumps(exp["mix"]), "```", "",
                                                              "## Results", "",
             "| class | arm | downloads | failed | TTFB median | TTFB p80 | TTLB median | TTLB p80 |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for cls, arms in table.items():
        for arm, row in arms.items():
            lines.append("| %s | %s | %d | %d | %s | %s | %s | %s |" % (
                cls, arm, row["n"], row["failed"], fmt(row["ttfb_median"]), fmt(row["ttfb_p80"]),
                fmt(row["ttlb_median"]), fmt(row["ttlb_p80"])))
    if exp.get("seeds") and off and on:
        lines += ["", "## Next to the seeds", "",
                  "| what | seeds: %s | seeds: %s | seeds: on/off | ours: %s | ours: %s | ours: on/off | source |" % (
                      "off", "on", off, on), "|---|---:|---:|---:|---:|---:|---:|---|"]
        for s in exp["seeds"]:
            key = "%s_%s" % (s["metric"], "median" if s["stat"] == "median" else "p80")
            a = table.get(s["class"], {}).get(off, {}).get(key)
            b = table.get(s["class"], {}).get(on, {}).get(key)
            lines.append("| %s | %s | %s | %.2f | %s | %s | %s | %s |" % (
                s["what"], fmt(s["off"]), fmt(s["on"]), s["on"] / s["off"], fmt(a), fmt(b),
                "–" if a is None or b is None or a == 0 else "%.2f" % (b / a), s["source"]))
    lines += ["", "## Cost, and the guards the proxies drew", "",
              "Network processes' CPU (user + system) during the run: %.1f s; the driver's: %.1f s; wall %.0f s; "
              "load average before %s, after %s." % (cost["network_cpu_s"], cost["driver_cpu_s"], cost["wall_s"],
                                                    cost["load_before"], cost["load_after"]),
              ""] + ["- guards of %s: %s" % (p, ", ".join(g)) for p, g in cost["guards"].items()] + [
              "", "## Plots", ""]
    for name in experiment_plots.OUTPUTS:
        lines.append("![%s](%s)" % (name, name))
    with open(os.path.join(out_dir, "report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def proxy_guards(net):
    """{proxy: ["relay2 (confirmed)", ...]} from each started proxy's guard-state: the clients of one proxy share
    its guards, so an arm's single-path numbers depend on which relays its proxy drew."""
    out = {}
    for p in net["processes"]:
        if p["role"] != "proxy" or not p.get("started"):
            continue
        try:
            with open(os.path.join(p["data_dir"], "guard-state")) as f:
                guards = json.load(f).get("guards", [])
        except (OSError, ValueError):
            continue  # a bridge user keeps no guard state: its bridges are its first hops
        out[p["name"]] = ["%s%s" % (g.get("nickname", "?"), " (confirmed)" if g.get("confirmed_on") else "")
                          for g in guards]
    return out


def network_cpu(net):
    total = 0.0
    for p in net["processes"]:
        if p.get("started") and p.get("pid", 0) > 1:
            total += cpu_seconds(p["pid"]) or 0.0
    return total


def run(exp, args):
    spec = json.loads(json.dumps(exp["spec"]))
    mix = dict(exp["mix"])
    if args.rounds:
        mix["rounds"] = args.rounds
    if args.round_s:
        mix["round_s"] = args.round_s
    if args.subnet and "emulation" in spec:
        spec["emulation"]["subnet"] = args.subnet
    out_dir = os.path.abspath(args.out or os.path.join(ROOT, "run", "experiments", exp["name"]))
    os.makedirs(out_dir, exist_ok=True)
    netdir = os.path.join(out_dir, "net")
    net_bin = os.path.abspath(args.net_bin or os.path.join(args.bin_dir or os.path.join(ROOT, "build", "release"),
                                                           "tools", "conflux-net", "conflux-net"))
    load_before = open("/proc/loadavg").read().split()[0]
    # ctest's timeout sends SIGTERM: leave through the finally below, which takes the network down.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    try:
        net = netload.net_up(net_bin, netdir, spec, args.bin_dir)
        print("network up in %.1f s (%d processes)" % (net["_up_seconds"], len(net["processes"])), flush=True)
        cpu0 = network_cpu(net)
        driver = traffic.Driver(net, mix, out_dir)
        t0 = time.monotonic()
        driver.seconds = traffic.asyncio.run(driver.run())
        driver.write()
        cost = {"wall_s": time.monotonic() - t0, "network_cpu_s": network_cpu(net) - cpu0,
                "driver_cpu_s": resource.getrusage(resource.RUSAGE_SELF).ru_utime
                + resource.getrusage(resource.RUSAGE_SELF).ru_stime,
                "load_before": load_before, "load_after": open("/proc/loadavg").read().split()[0],
                "guards": proxy_guards(net)}
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        problem = netload.net_down(net_bin, netdir)
        if problem:
            print("down: %s" % problem)
    for p in experiment_plots.plot(out_dir):
        print("wrote %s" % p)
    table = summarize(driver.records)
    report(exp, spec, net, table, driver.records, cost, out_dir)
    with open(os.path.join(out_dir, "report.json"), "w") as f:
        json.dump({"experiment": exp["name"], "mix": mix, "table": table, "cost": cost}, f, indent=1)
    if os.environ.get("CONFLUX_SYSTEM_KEEP") != "1":
        shutil.rmtree(netdir, ignore_errors=True)
    print("report: %s" % os.path.join(out_dir, "report.md"))
    return driver.records


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("experiment")
    ap.add_argument("--out")
    ap.add_argument("--bin-dir", help="where conflux-relay and conflux-proxy are (conflux-net's --bin-dir); "
                    "default: build/release, or beside --net-bin")
    ap.add_argument("--net-bin", help="conflux-net (default: BIN_DIR/tools/conflux-net/conflux-net)")
    ap.add_argument("--subnet", help="the emulated network's /24 (two networks at once need two)")
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--round-s", type=float)
    args = ap.parse_args(argv[1:])
    try:
        exp = load_experiment(args.experiment)
    except (OSError, ValueError) as e:
        print("experiment %s: %s" % (args.experiment, e), file=sys.stderr)
        return 2
    if "emulation" in exp["spec"] and not can_emulate():
        print("SKIP: an emulated network needs root, /dev/net/tun and ip")
        return 77
    try:
        records = run(exp, args)
    except (netload.NetError, traffic.MixError) as e:
        print("FAIL  %s" % e)
        return 1
    failed = [r for r in records if r["error"]]
    for r in failed[:10]:
        print("failed: %s %s %s %s: %s" % (r["arm"], r["class"], r["client"], r["file"], r["error"]))
    print("%d downloads, %d failed" % (len(records), len(failed)))
    return 0 if records and not failed else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
