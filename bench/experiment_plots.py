#!/usr/bin/python3
"""Plots of an experiment's records, like tornettools' (issue 21, docs/EXPERIMENTS.md).

Usage: bench/experiment_plots.py RESULTS_DIR

Reads RESULTS_DIR/records.jsonl and throughput.jsonl (bench/traffic.py) and writes, next to them:
  ttfb_cdf.png        CDF of time to first byte, one panel per client class, one line per arm
  ttlb_cdf.png        CDF of time to last byte (the download time), the same way
  throughput.png      bytes received by all clients per second, by arm, over the run
Failed downloads have no TTLB: they are left out of the CDFs and counted in each panel's legend.
Needs Debian's python3-matplotlib (run with /usr/bin/python3); draws with the Agg backend (no display).
"""

import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

OUTPUTS = ("ttfb_cdf.png", "ttlb_cdf.png", "throughput.png")


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def ordered(values):
    seen = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return seen


def cdf_figure(records, metric, title, path):
    classes = ordered(r["class"] for r in records)
    arms = ordered(r["arm"] for r in records)
    fig, axes = plt.subplots(1, len(classes), figsize=(5 * len(classes), 4), squeeze=False)
    for ax, cls in zip(axes[0], classes):
        for arm in arms:
            rs = [r for r in records if r["class"] == cls and r["arm"] == arm]
            xs = sorted(r[metric] for r in rs if r[metric] is not None)
            failed = len(rs) - len(xs)
            if not xs:
                continue
            ys = [(i + 1) / len(xs) for i in range(len(xs))]
            label = "%s (n=%d%s)" % (arm, len(xs), ", %d failed" % failed if failed else "")
            ax.step(xs, ys, where="post", label=label)
        ax.set_title("%s: %s" % (cls, title))
        ax.set_xlabel("seconds")
        ax.set_ylabel("cumulative fraction")
        ax.set_ylim(0, 1.01)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def throughput_figure(samples, path):
    fig, ax = plt.subplots(figsize=(10, 3.5))
    last = max((s["t"] for s in samples), default=0)
    for arm in ordered(s["arm"] for s in samples):
        per_s = [float("nan")] * (last + 1)  # the seconds the arm did not run are gaps, not zeros
        for s in samples:
            if s["arm"] == arm:
                per_s[s["t"]] = s["bytes"] / 2**20
        ax.plot(range(last + 1), per_s, label=arm, linewidth=0.8)
    ax.set_xlabel("seconds since the run began")
    ax.set_ylabel("MiB/s received by the clients")
    ax.set_title("throughput over time (each arm runs alone in its turn)")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper right", fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot(results_dir):
    """Writes the three PNGs; returns their paths."""
    records = read_jsonl(os.path.join(results_dir, "records.jsonl"))
    samples = read_jsonl(os.path.join(results_dir, "throughput.jsonl"))
    paths = [os.path.join(results_dir, name) for name in OUTPUTS]
    cdf_figure(records, "ttfb", "time to first byte", paths[0])
    cdf_figure(records, "ttlb", "time to last byte", paths[1])
    throughput_figure(samples, paths[2])
    return paths


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    for p in plot(argv[1]):
        print("wrote %s" % p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
