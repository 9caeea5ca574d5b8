#!/usr/bin/python3
"""The ControlPort driven by stem (issue 17, docs/CONTROL.md).

    control_stem.py CONFLUX_NET [--single] [--keep]

--single: the proxy runs single circuits (ConfluxEnabled 0) instead of Conflux sets.

A conflux-net network whose relays all have `ControlPort auto` and `CookieAuthentication 1`, and a
Conflux proxy started here with ControlPort auto, ControlPortWriteToFile, a cookie and a
HashedControlPassword. With Debian's python3-stem (this must run under /usr/bin/python3) it checks:
  - cookie, SAFECOOKIE and password authentication, each on its own connection; a wrong password fails;
  - version (stem parses it) and status/bootstrap-phase reaching PROGRESS=100 TAG=done;
  - GETCONF of options as the proxy holds them, SETCONF refused with 553, SIGNAL of an unknown name 552;
  - during a 5 MiB download: circuit-status with paths of $FINGERPRINT~nickname (each the fingerprint
    the relay named so reports on its own ControlPort), stream-status with the stream on one of them;
  - BW events about once a second, CIRC events LAUNCHED/EXTENDED/BUILT as circuits are built and
    CLOSED after SIGNAL NEWNYM, and a download after NEWNYM on circuits that did not exist before;
  - the relays' GETINFO fingerprint and BW events; SIGNAL SHUTDOWN ends the proxy.
Exit status 0 when every check passed, 1 otherwise, 77 when stem is missing (skip).
"""

import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

try:
    import stem
    import stem.connection
    from stem.control import Controller, EventType
except ImportError:
    print("SKIP: python3-stem is not installed (scripts/install-deps.sh; run with /usr/bin/python3)")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netload  # noqa: E402

PASSWORD = "correct horse battery staple"


def hash_password(password, salt=None, count_byte=0x60):
    """tor --hash-password: "16:" + hex(salt, count byte, SHA-1 of the RFC 2440 iterated and salted S2K)."""
    salt = salt or os.urandom(8)
    count = (16 + (count_byte & 15)) << ((count_byte >> 4) + 6)
    data = salt + password.encode()
    block = (data * (count // len(data) + 1))[:max(count, len(data))]
    return "16:" + (salt + bytes([count_byte]) + hashlib.sha1(block).digest()).hex().upper()


class Checks:
    def __init__(self):
        self.results = []

    def add(self, ok, what):
        self.results.append((bool(ok), what))
        print("%s %s" % ("ok  " if ok else "FAIL", what), flush=True)
        return ok

    def ok(self):
        return all(ok for ok, _ in self.results)


def wait_for(predicate, timeout, step=0.2):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    return predicate()


def control_port_from_log(log_path, timeout=30):
    def find():
        try:
            with open(log_path, errors="replace") as f:
                m = re.search(r"Opened Control listener on 127\.0\.0\.1:(\d+)", f.read())
                return int(m.group(1)) if m else None
        except OSError:
            return None
    return wait_for(find, timeout)


def start_proxy(proc, workdir):
    torrc = proc["torrc"]
    port_file = os.path.join(workdir, "proxy-control.port")
    with open(torrc, "a") as f:
        f.write("\nControlPort auto\nControlPortWriteToFile %s\nCookieAuthentication 1\nHashedControlPassword %s\n"
                % (port_file, hash_password(PASSWORD)))
    out = open(os.path.join(workdir, "proxy-output.log"), "wb")
    p = subprocess.Popen([proc["binary"]] + proc["args"], stdin=subprocess.DEVNULL, stdout=out,
                         stderr=subprocess.STDOUT, cwd=proc["dir"])

    def read_port():
        try:
            with open(port_file) as f:
                m = re.match(r"PORT=127\.0\.0\.1:(\d+)\n", f.read())
                return int(m.group(1)) if m else None
        except OSError:
            return None
    return p, wait_for(read_port, 30), port_file


def check_auth(checks, port, cookie_path):
    with Controller.from_port(port=port) as c:
        stem.connection.authenticate_cookie(c, cookie_path)
        checks.add(c.get_info("process/pid").isdigit(), "COOKIE authentication")
    with Controller.from_port(port=port) as c:
        stem.connection.authenticate_safecookie(c, cookie_path)
        checks.add(c.get_info("version"), "SAFECOOKIE authentication")
    with Controller.from_port(port=port) as c:
        stem.connection.authenticate_password(c, PASSWORD)
        checks.add(c.get_info("process/pid").isdigit(), "password authentication")
    refused = False
    with Controller.from_port(port=port) as c:
        try:
            stem.connection.authenticate_password(c, "wrong")
        except stem.connection.AuthenticationFailure:
            refused = True
    checks.add(refused, "a wrong password is refused")


def download(socks, url, user):
    return subprocess.run(["curl", "-s", "--max-time", "120", "--socks5-hostname", socks, "--proxy-user",
                           user + ":x", "-o", "/dev/null", "-w", "%{http_code} %{size_download}", url],
                          capture_output=True, text=True)


def relay_fingerprints(checks, net):
    """{nickname: fingerprint} from every relay's own ControlPort (cookie authentication)."""
    fps = {}
    bw_seen = False
    for proc in net["processes"]:
        if proc["role"] not in ("authority", "relay", "exit"):
            continue
        port = control_port_from_log(proc["log"])
        if not port:
            checks.add(False, "%s logged its Control listener" % proc["name"])
            continue
        with Controller.from_port(port=port) as c:
            c.authenticate(chroot_path=None)
            fps[proc["name"]] = c.get_info("fingerprint")
            if not bw_seen:
                got = []
                c.add_event_listener(lambda e: got.append(e), EventType.BW)
                time.sleep(2.5)
                bw_seen = checks.add(len(got) >= 2, "relay %s: BW events (%d in 2.5 s)" % (proc["name"], len(got)))
                checks.add(c.get_version() >= stem.version.Version("0.4.9.0-conflux"), "relay version")
    checks.add(fps and all(re.fullmatch(r"[0-9A-F]{40}", f) for f in fps.values()),
               "every relay's GETINFO fingerprint is 40 hex digits (%d relays)" % len(fps))
    return fps


def check_paths(checks, circuits, fps, what):
    entries = [(fp, nick) for circ in circuits for fp, nick in circ.path]
    good = entries and all(fps.get(nick) == fp for fp, nick in entries)
    checks.add(good, "%s: every path entry is $FINGERPRINT~nickname of that relay (%d entries)" % (what, len(entries)))


def drive_proxy(checks, c, net, fps, socks, url):
    checks.add(stem.version.Version(c.get_info("version")) >= stem.version.Version("0.4.9.0-conflux"),
               "GETINFO version parses as a tor version: %s" % c.get_info("version"))
    phase = wait_for(lambda: "PROGRESS=100" in c.get_info("status/bootstrap-phase")
                     and c.get_info("status/bootstrap-phase"), 60)
    checks.add(phase and 'TAG=done SUMMARY="Done"' in phase, "status/bootstrap-phase: %s" % phase)
    checks.add(c.get_conf("ControlPort") == "auto" and c.get_conf("CookieAuthentication") == "1",
               "GETCONF ControlPort / CookieAuthentication as configured")
    try:
        c.set_conf("ConfluxEnabled", "0")
        checks.add(False, "SETCONF ConfluxEnabled refused")
    except stem.InvalidRequest as e:
        checks.add("553" in str(getattr(e, "code", "")) or "Transition" in str(e), "SETCONF answered 553: %s" % e)
    try:
        reply = c.msg("SIGNAL NOSUCHSIGNAL")
        checks.add(reply.content()[0][0] == "552", "SIGNAL of an unknown name: 552")
    except stem.ControllerError as e:
        checks.add(False, "SIGNAL of an unknown name: %s" % e)

    bw, circ_events, stream_events = [], [], []
    c.add_event_listener(lambda e: bw.append((time.monotonic(), e.read)), EventType.BW)
    c.add_event_listener(lambda e: circ_events.append(e), EventType.CIRC)
    c.add_event_listener(lambda e: stream_events.append(e), EventType.STREAM)

    result = {}
    t = threading.Thread(target=lambda: result.setdefault("r", download(socks, url, "first")))
    t.start()
    seen = wait_for(lambda: [s for s in c.get_streams() if s.status == "SUCCEEDED"], 60, 0.1)
    circuits = c.get_circuits()
    sets = c.get_info("conflux/sets")
    if "--single" in sys.argv:
        checks.add(sets == "", "GETINFO conflux/sets is empty without Conflux")
    else:
        checks.add(re.search(r"^SET=\d+ STATE=OPEN CIRC=\d+ SRTT_MS=[0-9.]+ MIN_RTT_MS=[0-9.]+ CWND=\d+ INFLIGHT=\d+ "
                             r"SHARE=[0-9.]+$", sets, re.M), "GETINFO conflux/sets during the download:\n%s" % sets)
    if checks.add(seen, "stream-status shows the download's stream SUCCEEDED during the download"):
        s = seen[0]
        checks.add(s.target_port == int(url.split(":")[2].split("/")[0]), "its target is the file server's port")
        on = [circ for circ in circuits if circ.id == s.circ_id]
        checks.add(on and on[0].status == "BUILT", "its circuit %s is in circuit-status, BUILT" % s.circ_id)
    check_paths(checks, [x for x in circuits if x.status == "BUILT"], fps, "circuit-status during the download")
    t.join()
    checks.add(result["r"].stdout.startswith("200 5242880"), "the 5 MiB download: %s" % result["r"].stdout)
    wait_for(lambda: len(bw) >= 4 and sum(r for _, r in bw) >= 5 << 20, 8)
    spacing = [b[0] - a[0] for a, b in zip(bw, bw[1:])]
    checks.add(sum(r for _, r in bw) >= 5 << 20, "BW events add up to the download (%d bytes read)"
               % sum(r for _, r in bw))
    checks.add(len(bw) >= 3 and all(0.5 < d < 1.6 for d in spacing),
               "BW events once a second (%d, spacing %s)" % (len(bw), ["%.2f" % d for d in spacing[:8]]))
    wait_for(lambda: "CLOSED" in {e.status for e in stream_events}, 5)
    checks.add({"NEW", "SENTCONNECT", "SUCCEEDED", "CLOSED"} <= {e.status for e in stream_events},
               "STREAM events NEW, SENTCONNECT, SUCCEEDED, CLOSED: %s" % sorted({e.status for e in stream_events}))

    before = {circ.id for circ in c.get_circuits()}
    circ_events.clear()
    signals = []
    c.add_event_listener(lambda e: signals.append(e.signal), EventType.SIGNAL)
    c.signal(stem.Signal.NEWNYM)
    closed = wait_for(lambda: [e for e in circ_events if e.status == "CLOSED" and e.id in before], 15)
    checks.add(closed, "CIRC CLOSED for the old circuits after NEWNYM (%d)" % len(closed or []))
    checks.add(wait_for(lambda: "NEWNYM" in signals, 5), "SIGNAL NEWNYM event")
    stream_events.clear()
    r2 = download(socks, url.replace("5MiB", "1MiB"), "first")
    checks.add(r2.stdout.startswith("200 1048576"), "download after NEWNYM: %s" % r2.stdout)
    used = {e.circ_id for e in stream_events if e.status == "SUCCEEDED"}
    checks.add(used and not (used & before), "after NEWNYM the stream used new circuits %s (old: %s)"
               % (sorted(used), sorted(before)))
    statuses = {e.status for e in circ_events}
    checks.add({"LAUNCHED", "EXTENDED", "BUILT"} <= statuses,
               "CIRC events as the new circuits were built: %s" % sorted(statuses))
    check_paths(checks, [e for e in circ_events if e.status == "BUILT"], fps, "CIRC BUILT events")


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    net_bin = sys.argv[1]
    keep = "--keep" in sys.argv
    t0 = time.monotonic()
    checks = Checks()
    tmp = tempfile.mkdtemp(prefix="conflux-control-")
    netdir = os.path.join(tmp, "net")
    spec = {"relays": 4, "exits": 2, "bridges": [],
            "relay_options": ["ControlPort auto", "CookieAuthentication 1"],
            "proxies": [{"name": "ctl", "start": False, "conflux": "--single" not in sys.argv}]}
    proxy = None
    try:
        net = netload.net_up(net_bin, netdir, spec)
        ctl = [p for p in net["processes"] if p["name"] == "ctl"][0]
        fps = relay_fingerprints(checks, net)
        proxy, port, _ = start_proxy(ctl, tmp)
        if not checks.add(port, "the proxy wrote ControlPortWriteToFile"):
            return 1
        cookie = os.path.join(ctl["data_dir"], "control_auth_cookie")
        checks.add(os.stat(cookie).st_size == 32 and (os.stat(cookie).st_mode & 0o777) == 0o600,
                   "the cookie file: 32 bytes, mode 0600")
        check_auth(checks, port, cookie)
        socks = "127.0.0.1:%d" % ctl["ports"]["socks"]
        url = [f["url"] for f in net["files"] if f["name"] == "5MiB.bin"][0]
        with Controller.from_port(port=port) as c:
            c.authenticate(password=PASSWORD)
            drive_proxy(checks, c, net, fps, socks, url)
            c.signal(stem.Signal.SHUTDOWN)
        try:
            proxy.wait(timeout=20)
            checks.add(proxy.returncode == 0, "SIGNAL SHUTDOWN: the proxy exited with status %d" % proxy.returncode)
        except subprocess.TimeoutExpired:
            checks.add(False, "SIGNAL SHUTDOWN: the proxy did not exit in 20 s")
    except netload.NetError as e:
        checks.add(False, "conflux-net up: %s" % e)
    except Exception as e:  # report, then tear down
        checks.add(False, "unexpected %s: %s" % (type(e).__name__, e))
    finally:
        if proxy and proxy.poll() is None:
            proxy.kill()
            proxy.wait()
        if keep:
            os.environ["CONFLUX_SYSTEM_KEEP"] = "1"
        netload.tear_down(checks, net_bin, netdir, tmp)
    failed = sum(1 for ok, _ in checks.results if not ok)
    print("%s: %d checks, %d failed, %.1f s" % ("OK" if checks.ok() else "FAILED", len(checks.results), failed,
                                               time.monotonic() - t0))
    return 0 if checks.ok() else 1


if __name__ == "__main__":
    sys.exit(main())
