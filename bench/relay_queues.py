#!/usr/bin/python3
"""What the relays of an emulated experiment network measured about their queues (issue 21, docs/EXPERIMENTS.md).

Each relay (authorities, relays, exits, bridges) gets a MetricsPort on 127.0.0.1 inside its own network
namespace (`relay_options`), so the scrapes never cross the emulated links. Before and after each arm the
experiment reads, from every relay:
  conflux_relay_sched_policy          the socket scheduler the relay runs (the arm's `Schedulers` applied?)
  conflux_relay_cell_relay_queue_seconds   sampled cells: circuit queue -> kernel (KIST holds cells here)
  conflux_relay_cell_kernel_queue_seconds  sampled writes: kernel send queue -> acknowledged by the peer
  conflux_relay_sched_bytes_total     bytes moved to the channels (the relay's goodput over the arm)
and keeps the difference, so an arm's numbers are its own even on a network that served other arms.
The histograms have power-of-two buckets from 1 us (METRICS.md): a quantile is interpolated within its
bucket, so it is known to within a factor of two at worst.

With `python3 bench/relay_queues.py RESULTS_DIR` it prints the per-arm table of RESULTS_DIR/relays.jsonl.
"""

import json
import os
import re
import subprocess
import sys

METRICS_PORT = 9035  # inside each relay's namespace; every relay has its own loopback there
QUEUES = ("relay_queue", "kernel_queue")
RELAY_ROLES = ("authority", "relay", "exit", "bridge")
_LINE = re.compile(r'^([a-z_]+)(?:\{([^}]*)\})?\s+([0-9.eE+-]+|\+Inf)\s*$')
_LE = re.compile(r'le="([^"]+)"')
_POLICY = re.compile(r'policy="([^"]+)"')


def relay_option():
    return "MetricsPort 127.0.0.1:%d" % METRICS_PORT


def parse(text):
    """{"policy", "bytes", "relay_queue": [(upper bound s as text, cumulative count)], "kernel_queue": [...]}."""
    out = {"policy": None, "bytes": 0, "relay_queue": [], "kernel_queue": []}
    for line in text.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        name, labels, value = m.group(1), m.group(2) or "", m.group(3)
        if name == "conflux_relay_sched_policy" and float(value) == 1:
            p = _POLICY.search(labels)
            out["policy"] = p.group(1) if p else None
        elif name == "conflux_relay_sched_bytes_total":
            out["bytes"] = int(float(value))
        for q in QUEUES:
            if name == "conflux_relay_cell_%s_seconds_bucket" % q:
                # The bound stays text ("+Inf" included) so relays.jsonl is plain JSON; float() reads both.
                out[q].append((_LE.search(labels).group(1), int(float(value))))
    return out


def scrape(net):
    """{relay name: parsed metrics} of every running relay of an emulated network; a relay whose port does not
    answer is left out (the report then has fewer relays, and says so)."""
    out = {}
    for p in net["processes"]:
        if p["role"] not in RELAY_ROLES or not p.get("started") or not p.get("netns"):
            continue
        r = subprocess.run(["ip", "netns", "exec", p["netns"], "curl", "-s", "--max-time", "10",
                            "http://127.0.0.1:%d/metrics" % METRICS_PORT],
                           capture_output=True, text=True, timeout=30, check=False)
        if r.returncode == 0 and r.stdout:
            out[p["name"]] = dict(parse(r.stdout), role=p["role"])
    return out


def difference(after, before):
    """Per relay: the arm's own counts (after - before); the scheduler as `after` says."""
    rows = {}
    for name, a in after.items():
        b = before.get(name, {"bytes": 0, "relay_queue": [], "kernel_queue": []})
        row = {"role": a["role"], "policy": a["policy"], "bytes": a["bytes"] - b["bytes"]}
        for q in QUEUES:
            prev = dict(b[q])
            row[q] = [(le, n - prev.get(le, 0)) for le, n in a[q]]
        rows[name] = row
    return rows


def merge(rows):
    """Cumulative buckets of several relays added up."""
    total = {}
    for buckets in rows:
        for le, n in buckets:
            total[float(le)] = total.get(float(le), 0) + n
    return sorted(total.items())


def quantile(buckets, q):
    """Seconds below which a fraction q of the samples lie, interpolated within the bucket; None when empty."""
    if not buckets or buckets[-1][1] == 0:
        return None
    want = q * buckets[-1][1]
    lo_bound, lo_count = 0.0, 0
    for le, n in buckets:
        if n >= want:
            if le == float("inf"):
                return lo_bound
            return lo_bound + (le - lo_bound) * ((want - lo_count) / (n - lo_count) if n > lo_count else 1.0)
        lo_bound, lo_count = le, n
    return lo_bound


def share_below(buckets, seconds):
    """Fraction of the samples at or below `seconds` (interpolated within its bucket)."""
    if not buckets or buckets[-1][1] == 0:
        return None
    lo_bound, lo_count = 0.0, 0
    for le, n in buckets:
        if seconds <= le:
            part = 1.0 if le == float("inf") else (seconds - lo_bound) / (le - lo_bound)
            return (lo_count + (n - lo_count) * part) / buckets[-1][1]
        lo_bound, lo_count = le, n
    return 1.0


def summarize(samples):
    """{arm: {"all"|"exit": {queue: {n, median, p80, p99, le_10ms}}, "policies": {...}, "exit_bytes_s"}} from
    relays.jsonl's lines (one per round, arm and relay)."""
    table = {}
    for arm in dict.fromkeys(s["arm"] for s in samples):
        rows = [s for s in samples if s["arm"] == arm]
        entry = {"policies": sorted({s["policy"] or "?" for s in rows}),
                 "relays": len({s["relay"] for s in rows})}
        for scope, chosen in (("all", rows), ("exit", [s for s in rows if s["role"] == "exit"])):
            entry[scope] = {}
            for q in QUEUES:
                b = merge(s[q] for s in chosen)
                entry[scope][q] = {"n": b[-1][1] if b else 0, "median": quantile(b, 0.5), "p80": quantile(b, 0.8),
                                   "p99": quantile(b, 0.99), "le_10ms": share_below(b, 0.010)}
        exits = [s for s in rows if s["role"] == "exit"]
        secs = sum(s["seconds"] for s in exits)
        entry["exit_bytes_s"] = sum(s["bytes"] for s in exits) / secs if secs else None
        table[arm] = entry
    return table


def ms(x):
    return "–" if x is None else "%.2f ms" % (x * 1000)


def report_lines(table):
    lines = ["| arm | schedulers seen | relays | where | queue | sampled | median | p80 | p99 | share <= 10 ms |",
             "|---|---|---:|---|---|---:|---:|---:|---:|---:|"]
    for arm, e in table.items():
        for scope in ("all", "exit"):
            for q in QUEUES:
                r = e[scope][q]
                lines.append("| %s | %s | %d | %s | %s | %d | %s | %s | %s | %s |" % (
                    arm, ", ".join(e["policies"]), e["relays"], "every relay" if scope == "all" else "the exit",
                    q.replace("_", " "), r["n"], ms(r["median"]), ms(r["p80"]), ms(r["p99"]),
                    "–" if r["le_10ms"] is None else "%.0f%%" % (100 * r["le_10ms"])))
    lines += ["", "Exit goodput (bytes its scheduler moved to its channels, per second of the arm): " + "; ".join(
        "%s %s" % (arm, "–" if e["exit_bytes_s"] is None else "%.0f KiB/s" % (e["exit_bytes_s"] / 1024))
        for arm, e in table.items()) + "."]
    return lines


def read(results_dir):
    path = os.path.join(results_dir, "relays.jsonl")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    print("\n".join(report_lines(summarize(read(argv[1])))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
