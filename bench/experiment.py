#!/usr/bin/python3
"""A named conflux-net experiment in one command: network up, traffic, network down, plots, report
(issue 21, docs/EXPERIMENTS.md).

Usage: bench/experiment.py NAME|FILE [--out DIR] [--bin-dir BUILD_DIR] [--net-bin CONFLUX_NET]
           [--subnet A.B.C.0/24] [--rounds N] [--round-s S]

NAME is bench/experiments/NAME.json; FILE any experiment file of that form:
  {"title": "...", "spec": {conflux-net spec}, "mix": {bench/traffic.py mix},
   "compare": {"off": ARM, "on": ARM},
   "seeds": [{"what": "...", "class": "web", "metric": "ttlb", "stat": "median", "off": 11, "on": 6,
              "source": "..."},
             {"what": "...", "queue": "relay_queue", "where": "exit", "stat": "p99", "off": 0.001, "on": "< 0.2",
              "source": "..."}]}
An arm of the mix may carry "relay_options" (torrc lines for every relay) or "spec" (spec fields of its own, such
as stock tor's "implementation"): then every arm of every round runs on a network of its own, started with them
(bench/experiment_networks.py). With "guards": "per_client" in the mix each client has its own proxy process.
Writes DIR (default run/experiments/NAME) with records.jsonl, throughput.jsonl, the PNGs, report.md and
report.json (the numbers), on an emulated network relays.jsonl (the relays' queue times, bench/relay_queues.py)
and queue_cdf.png, relay_goodput.jsonl and relay_goodput.png (each relay's bytes sent per second,
bench/relay_goodput.py), and the network's directory DIR/net (DIR/net-ARM-ROUND for a network per arm; removed unless
CONFLUX_SYSTEM_KEEP=1).
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
import experiment_networks  # noqa: E402
import relay_queues  # noqa: E402
import relay_goodput  # noqa: E402
import queue_plots  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, ".."))


def load_experiment(name):
    path = name if name.endswith(".json") else os.path.join(HERE, "experiments", name + ".json")
    with open(path) as f:
        exp = json.load(f)
    exp.setdefault("name", os.path.splitext(os.path.basename(path))[0])
    return exp


def can_emulate():
    return os.geteuid() == 0 and os.path.exists("/dev/net/tun") and shutil.which("ip") is not None


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


def relay_rate(spec, proc, link):
    """A relay's BandwidthRate as conflux-net wrote it ("link": its own link's rate)."""
    rate = spec.get("relay_bandwidth_rate") or ""
    if rate != "link":
        return rate if proc["role"] in ("relay", "exit") else ""
    return link.get("rate", "") if proc["role"] in ("authority", "relay", "exit") else ""


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
            bridge_rates.get(p["name"]) or relay_rate(spec, p, link)))
    return lines


def seed_value(s, table, queues, arm):
    """Ours for one seeds entry: a download statistic of a class ("all": every class together), or a relay
    queue statistic ("queue": relay_queue | kernel_queue, "where": all | exit; stat median | p80 | p99 | le_10ms)."""
    if "queue" in s:
        return queues.get(arm, {}).get(s.get("where", "all"), {}).get(s["queue"], {}).get(s["stat"])
    key = "%s_%s" % (s["metric"], "median" if s["stat"] == "median" else "p80")
    return table.get(s["class"], {}).get(arm, {}).get(key)


def seed_fmt(s, x):
    if x is None or isinstance(x, str):
        return x or "–"
    if s.get("stat") == "le_10ms":
        return "%.0f%%" % (100 * x)
    return fmt(x * 1000, " ms") if "queue" in s else fmt(x)


def seed_lines(exp, table, queues, records):
    off, on = exp["compare"]["off"], exp["compare"]["on"]
    if any(s.get("class") == "all" for s in exp["seeds"]):
        table = dict(table, all=summarize([dict(r, **{"class": "all"}) for r in records])["all"])
    lines = ["", "## Next to the seeds", "",
             "| what | seeds: off | seeds: on | seeds: on/off | ours: %s | ours: %s | ours: on/off | source |" % (off, on),
             "|---|---:|---:|---:|---:|---:|---:|---|"]
    for s in exp["seeds"]:
        a, b = seed_value(s, table, queues, off), seed_value(s, table, queues, on)
        numbers = all(isinstance(x, (int, float)) for x in (s["off"], s["on"]))
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            s["what"], seed_fmt(s, s["off"]), seed_fmt(s, s["on"]),
            "%.2f" % (s["on"] / s["off"]) if numbers and s["off"] else "–", seed_fmt(s, a), seed_fmt(s, b),
            "–" if a is None or b is None or a == 0 else "%.2f" % (b / a), s["source"]))
    return lines


def goodput_lines(goodput):
    """The relays' mean goodput per arm (relay_goodput.jsonl), a row per relay."""
    if not goodput:
        return []
    arms = list(goodput)
    relays = sorted({r for a in arms for r in goodput[a]})
    return ["", "## Relay goodput (bytes sent per second, mean over each arm's samples; relay_goodput.png)", "",
            "| relay | " + " | ".join(arms) + " |", "|---|" + "---:|" * len(arms)] + [
        "| %s | %s |" % (r, " | ".join(fmt(goodput[a].get(r), " MiB/s") if r in goodput[a] else "–" for a in arms))
        for r in relays]


def mib_text(kib):
    return "–" if kib is None else "%.0f MiB" % (kib / 1024)


def rss_text(peak):
    if not peak or not peak.get("rss_kib"):
        return "–"
    return "%s (%s)" % (mib_text(peak["rss_kib"]), ", ".join(
        "%s %s" % (role, mib_text(k)) for role, k in sorted(peak.get("by_role_kib", {}).items())))


def report(exp, spec, net, table, queues, records, cost, out_dir, goodput=None):
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
    if queues:
        lines += ["", "## Queue times in the relays (sampled cells, from their MetricsPorts)", ""] + \
            relay_queues.report_lines(queues)
    lines += goodput_lines(goodput)
    if exp.get("seeds") and exp.get("compare"):
        lines += seed_lines(exp, table, queues, records)
    lines += ["", "## Cost, and the guards the proxies drew", "",
              "Network processes' CPU (user + system) during the run: %.1f s; the driver's: %.1f s (its asyncio loop "
              "alone %s s, the rest the samplers' threads); wall %.0f s; "
              "`up` %s s; load average before %s, after %s, highest during the run %s." % (
                  cost["network_cpu_s"], cost["driver_cpu_s"], cost.get("driver_loop_cpu_s"), cost["wall_s"], ", ".join(map(str, cost["up_s"])),
                  cost["load_before"], cost["load_after"], cost.get("max_load")),
              "", "CPU by role (s): %s. Peak RSS of the network's processes and the driver: %s; lowest MemAvailable: "
              "%s." % (", ".join("%s %.1f" % kv for kv in cost.get("network_cpu_by_role_s", {}).items()),
                       rss_text(cost.get("peak_rss")), mib_text(cost.get("min_mem_available_kib"))),
              ""] + ["- guards of %s: %s" % (p, ", ".join(g)) for p, g in cost["guards"].items()] + [
              "", "## Plots", ""]
    for name in experiment_plots.OUTPUTS + (queue_plots.OUTPUTS if queues else ()) + \
            ((relay_goodput.OUTPUT,) if goodput else ()):
        lines.append("![%s](%s)" % (name, name))
    with open(os.path.join(out_dir, "report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


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
    net_bin = os.path.abspath(args.net_bin or os.path.join(args.bin_dir or os.path.join(ROOT, "build", "release"),
                                                           "tools", "conflux-net", "conflux-net"))
    if args.log_detail:
        spec["log_detail"] = args.log_detail
    networks = experiment_networks.Networks(net_bin, os.path.join(out_dir, "net"), spec, args.bin_dir, mix, out_dir)
    load_before = open("/proc/loadavg").read().split()[0]
    # ctest's timeout sends SIGTERM: leave through the finally below, which takes the network down.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    try:
        net = networks.up(mix["arms"][0])
        print("network up in %.1f s (%d processes)%s" % (net["_up_seconds"], len(net["processes"]),
                                                        "; one per arm and round" if networks.per_arm else ""),
              flush=True)
        driver = traffic.Driver(net, mix, out_dir, networks=networks)
        t0 = time.monotonic()
        driver_thread0 = time.thread_time()  # the asyncio loop's own CPU, without the samplers' threads
        driver.seconds = traffic.asyncio.run(driver.run())
        driver_thread_s = time.thread_time() - driver_thread0
        driver.write()
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        problem = networks.close()
        if problem:
            print("down: %s" % problem)
    cost = {"wall_s": time.monotonic() - t0, "network_cpu_s": networks.cpu_s,
            "driver_loop_cpu_s": round(driver_thread_s, 1),
            "driver_cpu_s": resource.getrusage(resource.RUSAGE_SELF).ru_utime
            + resource.getrusage(resource.RUSAGE_SELF).ru_stime,
            "load_before": load_before, "load_after": open("/proc/loadavg").read().split()[0],
            "up_s": [round(x, 1) for x in networks.up_seconds], "guards": networks.guards,
            "network_cpu_by_role_s": {k: round(v, 1) for k, v in sorted(networks.cpu_roles.items())},
            "peak_rss": max((m.peak for m in networks.memory), key=lambda p: p["rss_kib"], default=None),
            "max_load": max((m.max_load for m in networks.memory), default=None),
            "min_mem_available_kib": min((m.min_available_kib for m in networks.memory
                                          if m.min_available_kib is not None), default=None)}
    networks.write(driver.t0)
    for p in experiment_plots.plot(out_dir) + queue_plots.plot(out_dir) + relay_goodput.plot(out_dir):
        print("wrote %s" % p)
    table = summarize(driver.records)
    queues = relay_queues.summarize(networks.relays)
    goodput = relay_goodput.summary([row for s in networks.samplers for row in s.rows(driver.t0)])
    report(exp, spec, net, table, queues, driver.records, cost, out_dir, goodput)
    with open(os.path.join(out_dir, "report.json"), "w") as f:
        json.dump({"experiment": exp["name"], "mix": mix, "table": table, "queues": queues, "cost": cost,
                   "relay_goodput_MiBps": goodput,
                   "networks": networks.dirs, "namespaces": networks.namespaces}, f, indent=1)
    if os.environ.get("CONFLUX_SYSTEM_KEEP") != "1":
        for d in networks.dirs:
            shutil.rmtree(d, ignore_errors=True)
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
    ap.add_argument("--log-detail", choices=("debug", "info"),
                    help="every process also logs from this severity to OUT/net/NAME/SEVERITY.log (the spec's "
                         "log_detail; why a download stalled: proxies describe stalled streams at info, exits at "
                         "debug); keep the network's directory with CONFLUX_SYSTEM_KEEP=1")
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
