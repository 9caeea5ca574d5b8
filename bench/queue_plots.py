#!/usr/bin/python3
"""The relays' queue-time CDFs of an experiment, per arm (issue 21, docs/EXPERIMENTS.md).

Usage: bench/queue_plots.py RESULTS_DIR

Reads RESULTS_DIR/relays.jsonl (bench/relay_queues.py) and writes queue_cdf.png next to it: one panel for the
time sampled cells spent in the relays' circuit queues (where KIST holds them: "Tor queue time" in the KIST
papers), one for the time in the kernel until acknowledged ("kernel queue time"); one solid line per arm for
every relay together, a dashed one for the exit(s). The points are the histograms' bucket bounds (powers of
two from 1 us), so the curves are drawn through them, on a log scale. Nothing is written without relays.jsonl.
"""

import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import relay_queues  # noqa: E402

OUTPUTS = ("queue_cdf.png",)


def cdf_points(buckets):
    total = buckets[-1][1] if buckets else 0
    if not total:
        return [], []
    finite = [(le, n) for le, n in buckets if le != float("inf")]
    return [le * 1000 for le, _ in finite], [n / total for _, n in finite]


def plot(results_dir):
    """Writes queue_cdf.png when there is relays.jsonl; returns the paths written."""
    samples = relay_queues.read(results_dir)
    if not samples:
        return []
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    arms = list(dict.fromkeys(s["arm"] for s in samples))
    for ax, q, title in zip(axes, relay_queues.QUEUES, ("in the relay (circuit queue to kernel)",
                                                        "in the kernel (until acknowledged)")):
        for i, arm in enumerate(arms):
            rows = [s for s in samples if s["arm"] == arm]
            color = "C%d" % i
            for scope, chosen, style in (("every relay", rows, "-"),
                                         ("exit", [s for s in rows if s["role"] == "exit"], "--")):
                xs, ys = cdf_points(relay_queues.merge(s[q] for s in chosen))
                if xs:
                    ax.plot(xs, ys, style, color=color, marker=".", markersize=3,
                            label="%s, %s (n=%d)" % (arm, scope, relay_queues.merge(s[q] for s in chosen)[-1][1]))
        ax.set_xscale("log")
        ax.set_xlabel("milliseconds (bucket bounds)")
        ax.set_ylabel("cumulative fraction of sampled cells")
        ax.set_title(title)
        ax.set_ylim(0, 1.01)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper left", fontsize="x-small")
    fig.tight_layout()
    path = os.path.join(results_dir, OUTPUTS[0])
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return [path]


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    for p in plot(argv[1]):
        print("wrote %s" % p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
