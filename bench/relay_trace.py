"""Scheduler traces of running conflux-relay processes (SchedulerTraceFile, started and stopped with SIGHUP)
for the experiment scripts. Format: docs/CONFIG.md, SchedulerTraceFile."""

import os
import signal
import sys

from conflux_bridges import wait_for


def set_trace(proc, path):
    """Adds (path) or removes (None) SchedulerTraceFile in a relay's torrc, then SIGHUP."""
    torrc = proc["torrc"]
    lines = [l for l in open(torrc, encoding="utf-8").read().splitlines() if not l.startswith("SchedulerTraceFile")]
    if path:
        lines.append("SchedulerTraceFile " + path)
    with open(torrc, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    os.kill(proc["pid"], signal.SIGHUP)


def start_traces(relays, work):
    """Starts a trace on every relay (network.json entries); returns their paths by relay name."""
    traces = {p["name"]: os.path.join(work, "trace-%s.txt" % p["name"]) for p in relays}
    for p in relays:
        set_trace(p, traces[p["name"]])
    for p in relays:
        if not wait_for(traces[p["name"]], "# scheduler", 10):
            sys.exit("relay %s did not start its trace" % p["name"])
    return traces


def stop_traces(relays):
    """Stops every relay's trace; True for each relay (by name) that confirmed the file is closed."""
    for p in relays:
        set_trace(p, None)
    return {p["name"]: bool(wait_for(p["log"], "Scheduler trace stopped", 10)) for p in relays}


def read_trace(path):
    """Sampled cells by (channel, circuit): lists of (queued, left) in nanoseconds since the trace began."""
    cells = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                parts = line.split()
                if len(parts) == 6 and parts[0] == "cell":
                    _, channel, _, circ, queued, left = parts
                    cells.setdefault((channel, circ), []).append((int(queued), int(left)))
    except OSError:
        pass
    return cells
