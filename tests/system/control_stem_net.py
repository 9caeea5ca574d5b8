"""The network and the proxy that the ControlPort tests drive with stem (control_stem.py, nyx_in_tmux.py).

A conflux-net network whose relays all have `ControlPort auto` and `CookieAuthentication 1` (network_spec),
and its proxy started here with ControlPort auto, ControlPortWriteToFile, a cookie and, from start_proxy,
a HashedControlPassword and a ControlSocket; helpers every check module shares (Checks, wait_for,
downloads through curl). Needs Debian's python3-stem (run under /usr/bin/python3): without it, importing
this module ends the test with 77 (skipped).
"""

import hashlib
import os
import re
import subprocess
import sys
import time

import netload

try:
    import stem  # noqa: F401  (the check modules use stem.* through their own imports)
    import stem.connection  # noqa: F401
    from stem.control import Controller, EventType
except ImportError:
    print("SKIP: python3-stem is not installed (scripts/install-deps.sh; run with /usr/bin/python3)")
    sys.exit(77)

PASSWORD = "correct horse battery staple"
RELAY_ROLES = ("authority", "relay", "exit")


def network_spec(single):
    """Four relays (two exits), two bridges, every relay with a ControlPort; the proxies `ctl` (Conflux
    unless `single`) and `brs` (bridges) are not started: the test starts `ctl` itself."""
    return {"relays": 4, "exits": 2, "bridges": [{"name": "brA"}, {"name": "brB"}],
            "relay_options": ["ControlPort auto", "CookieAuthentication 1"],
            "proxies": [{"name": "ctl", "start": False, "conflux": not single},
                        {"name": "brs", "start": False, "use_bridges": True}]}


def process(net, name):
    return [p for p in net["processes"] if p["name"] == name][0]


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


def read_control_port(port_file):
    """The port a ControlPortWriteToFile file names ("PORT=127.0.0.1:N"), or None before it is written."""
    try:
        with open(port_file) as f:
            m = re.match(r"PORT=127\.0\.0\.1:(\d+)\n", f.read())
            return int(m.group(1)) if m else None
    except OSError:
        return None


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


def control_socket_path(workdir):
    return os.path.join(workdir, "sock", "control")


def start_proxy(proc, workdir):
    os.makedirs(os.path.join(workdir, "sock"), mode=0o700)
    return start_proxy_with(proc, workdir, "HashedControlPassword %s\nControlSocket %s\n" % (
        hash_password(PASSWORD), control_socket_path(workdir)))


def start_proxy_with(proc, workdir, extra_torrc=""):
    """The network's proxy `proc` with a ControlPort, a cookie and `extra_torrc`: (process, port, port file)."""
    port_file = os.path.join(workdir, "proxy-control.port")
    with open(proc["torrc"], "a") as f:
        f.write("\nControlPort auto\nControlPortWriteToFile %s\nCookieAuthentication 1\n%s" % (port_file, extra_torrc))
    out = open(os.path.join(workdir, "proxy-output.log"), "wb")
    p = subprocess.Popen([proc["binary"]] + proc["args"], stdin=subprocess.DEVNULL, stdout=out,
                         stderr=subprocess.STDOUT, cwd=proc["dir"])

    # A loaded machine (CI runs the sanitizer build beside other tests) may take long to start it; an exited
    # proxy ends the wait at once, and either way its output says why.
    wait_for(lambda: read_control_port(port_file) or p.poll() is not None, 90)
    port = read_control_port(port_file)
    if not port:
        print("the proxy wrote no ControlPortWriteToFile (%s); its output:\n%s" % (
            "exited with %s" % p.returncode if p.poll() is not None else "still running",
            netload.tail_file(out.name)))
    return p, port, port_file


def download(socks, url, user):
    return subprocess.run(["curl", "-s", "--max-time", "120", "--socks5-hostname", socks, "--proxy-user",
                           user + ":x", "-o", "/dev/null", "-w", "%{http_code} %{size_download}", url],
                          capture_output=True, text=True)


def stream_circuit(c, socks, url, user):
    """Downloads `url`; returns (curl's answer, the circuit id of its SUCCEEDED stream or None)."""
    events = []
    listener = lambda e: events.append(e)  # noqa: E731
    c.add_event_listener(listener, EventType.STREAM)
    r = download(socks, url, user)
    wait_for(lambda: [e for e in events if e.status == "SUCCEEDED"], 3)
    c.remove_event_listener(listener)
    ok = [e.circ_id for e in events if e.status == "SUCCEEDED"]
    return r, (ok[0] if ok else None)


def fps_of(net):
    """Every relay's RSA fingerprint, from its own ControlPort."""
    out = set()
    for proc in net["processes"]:
        port = control_port_from_log(proc["log"], 1) if proc["role"] in RELAY_ROLES else None
        if port:
            with Controller.from_port(port=port) as rc:
                rc.authenticate(chroot_path=None)
                out.add(rc.get_info("fingerprint"))
    return out
