#!/usr/bin/python3
"""The experiment path end to end at tiny sizes: bench/experiment.py on experiment_smoke.json (issue 21,
docs/EXPERIMENTS.md).

    experiment_smoke.py CONFLUX_NET

Runs the smoke experiment (an emulated network of 3 relays, 2 bridges and two bridge-using proxies, Conflux
off and on; web, bulk and probe clients for 5 s per arm, files of 8 to 64 KiB) in a private /24 of its own
(10.203.X.0/24, X from this run's pid). The arms also set the relays' scheduler (Vanilla, KIST), so each arm
runs on a network of its own (bench/experiment_networks.py). Then it checks what it wrote:
  1. experiment.py exited 0 (every download intact);
  2. records.jsonl: every record has every field with its type; every class of the mix has intact downloads
     in every arm, of its own files; bytes equal the file's size; 0 < TTFB <= TTLB; every probe download is
     on a new circuit and no two share a SOCKS username;
  3. throughput.jsonl counts exactly the bytes the records received;
  4. the four PNGs are PNGs of the size their figures are drawn at; report.md has a row per class and arm;
  5. relays.jsonl: in every arm every relay of the network answered its MetricsPort, runs the scheduler the
     arm's relay_options name (conflux_relay_sched_policy), and the arm's relays sampled cells;
  6. relay_goodput.jsonl: in every arm every relay was sampled at least once a second on average, and the
     exit sent at least the bytes the arm's downloads received (every byte a client gets leaves the exit);
  7. every network's namespaces are gone, and no process's output has a sanitizer report.
Exit 0 when every check passed, 1 otherwise, 77 (skip) when not root, without /dev/net/tun or ip, without
matplotlib, or when namespaces cannot be made. SIGTERM/SIGINT stop the experiment, which takes its network
down; a run killed with SIGKILL leaves a directory whose network the next run takes down.
"""

import glob
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import netload  # noqa: E402
EXPERIMENT = os.path.join(HERE, "..", "..", "bench", "experiment.py")
SMOKE = os.path.join(HERE, "experiment_smoke.json")
DIR_PREFIX = "cfxexpsmoke-"
RUN_TIMEOUT_S = 150  # two networks, one per arm: two `up`s of about 20 s each
# Figure sizes (inches) x dpi in bench/experiment_plots.py and queue_plots.py: a CDF panel per class (3 here),
# 5 x 4 each; the queue CDFs 10 x 4.
PNG_SIZES = {"ttfb_cdf.png": (1500, 400), "ttlb_cdf.png": (1500, 400), "throughput.png": (1000, 350),
             "queue_cdf.png": (1000, 400), "relay_goodput.png": (1000, 600)}
FIELDS = {"round": int, "arm": str, "proxy": str, "class": str, "client": str, "file": str, "size": int,
          "start": float, "ttfb": float, "ttlb": float, "bytes": int, "new_circuit": bool}

CHECKS = []


def check(ok, what):
    CHECKS.append(bool(ok))
    print(("ok   " if ok else "FAIL ") + what, flush=True)


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def well_formed(r):
    for k, t in FIELDS.items():
        v = r.get(k)
        if t is float and isinstance(v, int) and not isinstance(v, bool):
            v = float(v)
        if not isinstance(v, t) or (t is int and isinstance(v, bool)):
            return False
    return "error" in r


def check_records(out, exp):
    records = read_jsonl(os.path.join(out, "records.jsonl"))
    mix = exp["mix"]
    classes = {c["class"] for c in mix["clients"]}
    arms = [a["name"] for a in mix["arms"]]
    bad = [r for r in records if not well_formed(r)]
    check(records and not bad, f"{len(records)} records, every field present and typed ({len(bad)} not)")
    for cls in sorted(classes):
        files = set(mix["classes"][cls]["files"])
        for arm in arms:
            rs = [r for r in records if r["class"] == cls and r["arm"] == arm]
            good = [r for r in rs if r["error"] is None and r["bytes"] == r["size"] and r["file"] in files
                    and 0 < r["ttfb"] <= r["ttlb"]]
            check(rs and len(good) == len(rs),
                  f"{cls} in {arm}: {len(good)} of {len(rs)} downloads whole, of {sorted(files)}, 0 < TTFB <= TTLB")
    probes = [r for r in records if r["class"] == "probe"]
    check(probes and all(r["new_circuit"] for r in probes), f"all {len(probes)} probe downloads on new circuits")
    samples = read_jsonl(os.path.join(out, "throughput.jsonl"))
    got, counted = sum(r["bytes"] for r in records), sum(s["bytes"] for s in samples)
    check(got > 0 and got == counted, f"throughput.jsonl counts {counted} bytes, the records {got}")
    return records


def check_outputs(out, exp):
    for name, want in PNG_SIZES.items():
        path = os.path.join(out, name)
        size = png_size(path) if os.path.exists(path) else None
        check(size == want, f"{name}: {size} pixels, want {want}")
    text = open(os.path.join(out, "report.md")).read() if os.path.exists(os.path.join(out, "report.md")) else ""
    rows = [(c["class"], a["name"]) for c in exp["mix"]["clients"] for a in exp["mix"]["arms"]]
    missing = [r for r in rows if f"| {r[0]} | {r[1]} |" not in text]
    check(text and not missing, f"report.md has a row for each of {len(rows)} classes and arms (missing {missing})")


def check_relays(out, exp):
    """Each arm's relays run the scheduler its relay_options name: the arm's options reached the relays."""
    path = os.path.join(out, "relays.jsonl")
    lines = read_jsonl(path) if os.path.exists(path) else []
    spec = exp["spec"]
    want_relays = spec.get("authorities", 1) + spec["relays"] + len(spec["bridges"])
    for arm in exp["mix"]["arms"]:
        want = [o.split()[1] for o in arm["relay_options"] if o.startswith("Schedulers ")][0]
        rows = [r for r in lines if r["arm"] == arm["name"]]
        policies = sorted({r["policy"] for r in rows}, key=str)
        sampled = sum(r["relay_queue"][-1][1] for r in rows if r["relay_queue"])
        check(len(rows) == want_relays and policies == [want] and sampled > 0,
              f"{arm['name']}: {len(rows)} of {want_relays} relays scraped, schedulers {policies} (want {want}), "
              f"{sampled} cells sampled")


def check_goodput(out, exp, records):
    """Each relay's bytes over time were sampled through the arm, and they add up: the exit sent at least what the
    clients received."""
    path = os.path.join(out, "relay_goodput.jsonl")
    rows = read_jsonl(path) if os.path.exists(path) else []
    spec = exp["spec"]
    want_relays = spec.get("authorities", 1) + spec["relays"] + len(spec["bridges"])
    for arm in exp["mix"]["arms"]:
        rs = [r for r in rows if r["arm"] == arm["name"]]
        relays = {r["relay"] for r in rs}
        covered = min((sum(r["dt"] for r in rs if r["relay"] == n) for n in relays), default=0)
        n_min = min((sum(1 for r in rs if r["relay"] == n) for n in relays), default=0)
        exit_sent = sum(r["bytes"] for r in rs if r["role"] == "exit")
        got = sum(r["bytes"] for r in records if r["arm"] == arm["name"])
        check(len(relays) == want_relays and n_min >= covered * 0.5 and exit_sent >= got > 0,
              f"{arm['name']}: {len(relays)} of {want_relays} relays' goodput sampled (at least {n_min} samples "
              f"over {covered:.1f} s each); the exit sent {exit_sent} bytes, the clients received {got}")


def namespaces():
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=30).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def take_down_stale(conflux_net):
    """A run killed with SIGKILL could not clean up: take down what it left."""
    for d in glob.glob(os.path.join(tempfile.gettempdir(), DIR_PREFIX + "*")):
        pid = d[len(os.path.join(tempfile.gettempdir(), DIR_PREFIX)):].split("-", 1)[0]
        if pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
            subprocess.run([conflux_net, "down", "--dir", os.path.join(d, "net")], capture_output=True, timeout=60)
            shutil.rmtree(d, ignore_errors=True)


def can_run():
    if os.geteuid() != 0 or not os.path.exists("/dev/net/tun") or not shutil.which("ip"):
        return "needs root, /dev/net/tun and ip"
    if subprocess.run([sys.executable, "-c", "import matplotlib"], capture_output=True).returncode != 0:
        return "needs python3-matplotlib (scripts/install-deps.sh)"
    probe = f"cfx-probe-{os.getpid()}"
    if subprocess.run(["ip", "netns", "add", probe], capture_output=True, timeout=30).returncode != 0:
        return "cannot make network namespaces"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True, timeout=30)
    return None


def run_experiment(conflux_net, out):
    env = dict(os.environ, CONFLUX_SYSTEM_KEEP="1")  # keep net/network.json: its namespaces are checked
    child = subprocess.Popen([sys.executable, EXPERIMENT, SMOKE, "--out", out, "--net-bin", conflux_net,
                              "--subnet", f"10.203.{os.getpid() % 250}.0/24"], env=env)

    def stop(*_):
        child.terminate()  # experiment.py takes its network down on SIGTERM
        child.wait(60)
        sys.exit(1)
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        return child.wait(RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        print(f"experiment.py did not finish in {RUN_TIMEOUT_S} s")
        child.terminate()
        child.wait(60)
        return None


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    conflux_net = os.path.abspath(sys.argv[1])
    why = can_run()
    if why:
        print(f"SKIP: {why}")
        return 77
    take_down_stale(conflux_net)
    exp = json.load(open(SMOKE))
    d = tempfile.mkdtemp(prefix=f"{DIR_PREFIX}{os.getpid()}-")
    out = os.path.join(d, "results")
    started = time.monotonic()
    try:
        status = run_experiment(conflux_net, out)
        check(status == 0, f"bench/experiment.py exited {status}")
        if os.path.exists(os.path.join(out, "records.jsonl")):
            records = check_records(out, exp)
            check_outputs(out, exp)
            check_relays(out, exp)
            check_goodput(out, exp, records)
        nets = sorted(glob.glob(os.path.join(out, "net*", "network.json")))
        ours = set(ns for n in nets for ns in json.load(open(n)).get("namespaces", []))
        left = ours & namespaces()
        check(len(nets) == 2 and ours and not left,
              f"{len(nets)} networks (one per arm), their {len(ours)} namespaces are gone ({len(left)} left)")
        found = [f for n in nets for f in netload.sanitizer_reports(os.path.dirname(n))]
        for name, text in found:
            print(f"    ---- sanitizer report in {name}/output.log ----\n{text}")
        check(nets and not found, f"no sanitizer reports in the networks' output logs ({len(found)} found)")
    finally:
        if CHECKS and all(CHECKS):
            shutil.rmtree(d, ignore_errors=True)
        else:
            print(f"  results and logs kept in {d}")
    print(f"{sum(CHECKS)} of {len(CHECKS)} checks passed in {time.monotonic() - started:.1f} s")
    return 0 if CHECKS and all(CHECKS) else 1


if __name__ == "__main__":
    sys.exit(main())
