#!/usr/bin/python3
"""nyx, tor's terminal monitor, against conflux-proxy and conflux-relay (issue 17, docs/CONTROL.md).

    nyx_in_tmux.py CONFLUX_NET [--screenshots DIR] [--keep]

A conflux-net network whose relays have `ControlPort auto` and `CookieAuthentication 1`, and a Conflux
proxy started here with a ControlPort and a cookie. Debian's `nyx` runs in a tmux session of a tmux
server of our own (132x42), first against the proxy while downloads run through it, then against an exit
relay, and the test reads the screen with `tmux capture-pane`:
  - the bandwidth page: nyx's header names the program's version (0.4.9.0-conflux) and the ControlPort,
    the graph's "Download" and "Upload" titles are there, and the downloads made the download rate
    non-zero (nyx reads it from BW events);
  - the connection page (right arrow): its title counts the connections, and at least one line names a
    relay of the network by nickname, which nyx finds by matching the process's sockets (GETINFO
    process/pid and /proc) with the consensus (GETINFO ns/all);
  - the relay watched is a middle relay moved to 127.0.0.2 (restarted with its ORPort there, before the
    proxy starts), once it carries the downloads and opened a channel to another relay's ORPort (NEWNYM
    every 6 s until a download's circuit goes through it as guard or middle). nyx names
    a connection only by the remote address and port, and at a relay it takes every connection to the
    relay's own `GETINFO address` for the relay itself: with every relay on 127.0.0.1 it names none.
  - nyx stays up (no traceback on the screen) and quits on "q".
--screenshots DIR: each page as PNG, drawn by headless Chromium from `capture-pane -e` (the pane's text
and colours): DIR/nyx-proxy-graph.png, nyx-proxy-connections.png, nyx-relay-graph.png,
nyx-relay-connections.png.
Exit status 0 when every check passed, 1 otherwise, 77 when nyx or tmux is missing (skip).
"""

import html
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

if not shutil.which("nyx") or not shutil.which("tmux"):
    print("SKIP: nyx or tmux is not installed (scripts/install-deps.sh)")
    sys.exit(77)

import netload  # noqa: E402
from control_stem_net import Checks, Controller, read_control_port, start_proxy_with, wait_for  # noqa: E402  (77 without stem)

COLUMNS, ROWS = 132, 42
PAGE_WAIT_S = 60  # nyx's first screen under ASan on 2 busy cores
WATCHED_ADDRESS = "127.0.0.2"  # the watched relay's address: loopback, not the others' 127.0.0.1
# Every wait ends by then (after start), so that the network is always stopped before ctest's
# TIMEOUT (300 s) would kill the script and leave it running.
BUDGET_S = 240
_deadline = time.monotonic() + BUDGET_S


class Tmux:
    """A tmux server of our own (-S socket in the test's directory): the user's tmux is never touched."""

    def __init__(self, workdir):
        self.socket = os.path.join(workdir, "tmux.sock")

    def run(self, *args, check=True):
        return subprocess.run(["tmux", "-S", self.socket, "-f", "/dev/null"] + list(args), capture_output=True,
                              text=True, check=check, timeout=20)

    def start(self, name, command, home):
        # nyx keeps its state under $HOME/.nyx; a clean environment and tmux's own TERM (whose standout,
        # which nyx draws its graph's bars with, is reverse video: screen's is italics).
        env = ["env", "-i", "HOME=" + home, "TERM=tmux-256color", "LANG=C.UTF-8",
               "PATH=" + os.environ.get("PATH", "/usr/bin:/bin")]
        self.run("new-session", "-d", "-s", name, "-x", str(COLUMNS), "-y", str(ROWS), *(env + command))

    def keys(self, name, *keys):
        self.run("send-keys", "-t", name, *keys, check=False)

    def text(self, name, escapes=False):
        r = self.run("capture-pane", "-p", "-t", name, *(["-e"] if escapes else []), check=False)
        return r.stdout if r.returncode == 0 else ""

    def alive(self, name):
        return self.run("has-session", "-t", name, check=False).returncode == 0

    def kill(self):
        self.run("kill-server", check=False)


# --- the screenshot: the pane's text and SGR colours as HTML, drawn by headless Chromium ----------

_COLOURS = ["#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
            "#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff"]
_FG, _BG = "#e5e5e5", "#101010"


def _colour256(n):
    if n < 16:
        return _COLOURS[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return "#%02x%02x%02x" % (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + (n - 232) * 10
    return "#%02x%02x%02x" % (v, v, v)


def _apply_sgr(state, codes):
    i = 0
    while i < len(codes):
        c = codes[i]
        if c == 0:
            state.update(fg=None, bg=None, bold=False, reverse=False)
        elif c == 1:
            state["bold"] = True
        elif c == 22:
            state["bold"] = False
        elif c == 7:
            state["reverse"] = True
        elif c == 27:
            state["reverse"] = False
        elif 30 <= c <= 37 or 90 <= c <= 97:
            state["fg"] = _COLOURS[c - 30 if c < 90 else c - 82]
        elif 40 <= c <= 47 or 100 <= c <= 107:
            state["bg"] = _COLOURS[c - 40 if c < 100 else c - 92]
        elif c == 39:
            state["fg"] = None
        elif c == 49:
            state["bg"] = None
        elif c in (38, 48) and i + 2 < len(codes) and codes[i + 1] == 5:
            state["fg" if c == 38 else "bg"] = _colour256(codes[i + 2])
            i += 2
        i += 1


def ansi_to_html(text):
    """tmux capture-pane -e output as a <pre> of coloured spans."""
    state = {"fg": None, "bg": None, "bold": False, "reverse": False}
    out = []
    for line in text.split("\n")[:ROWS]:
        pos = 0
        for m in re.finditer(r"\x1b\[([0-9;]*)m|\x1b[()][0-9A-B]|\x1b\[[0-9;?]*[A-Za-z]", line + "\x1b[0m"):
            chunk = line[pos:m.start()]
            if chunk:
                fg, bg = state["fg"] or _FG, state["bg"] or _BG
                if state["reverse"]:
                    fg, bg = bg, fg
                style = "color:%s;background:%s%s" % (fg, bg, ";font-weight:bold" if state["bold"] else "")
                out.append('<span style="%s">%s</span>' % (style, html.escape(chunk)))
            if m.group(0).endswith("m") and m.group(1) is not None:
                _apply_sgr(state, [int(x) if x else 0 for x in m.group(1).split(";")])
            pos = m.end()
        out.append("\n")
    return ("<!doctype html><html><body style='margin:0;background:%s'><pre style='margin:8px;font:14px/17px "
            "DejaVu Sans Mono,monospace;color:%s'>%s</pre></body></html>" % (_BG, _FG, "".join(out)))


def screenshot(pane_text, png, workdir):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        return "chromium is not installed"
    page = os.path.join(workdir, os.path.basename(png) + ".html")
    with open(page, "w") as f:
        f.write(ansi_to_html(pane_text))
    width, height = COLUMNS * 9 + 16, ROWS * 17 + 16
    r = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        "--user-data-dir=" + os.path.join(workdir, "chromium"),
                        "--window-size=%d,%d" % (width, height), "--screenshot=" + png, "file://" + page],
                       capture_output=True, text=True, timeout=120)
    return None if r.returncode == 0 and os.path.exists(png) else "chromium: " + (r.stderr or "")[-300:]


# --- the test ----------------------------------------------------------------------------------------

def wait_screen(tmux, name, predicate, timeout=PAGE_WAIT_S):
    """The pane's text once `predicate(text)` holds (or the last text after `timeout`)."""
    timeout = max(1.0, min(timeout, _deadline - time.monotonic()))
    found = wait_for(lambda: (lambda t: t if predicate(t) else None)(tmux.text(name)), timeout, step=0.5)
    return found or tmux.text(name)


def downloads_in_background(socks, url, stop):
    def loop():
        while not stop.is_set():
            subprocess.run(["curl", "-s", "-o", "/dev/null", "--max-time", "60", "--socks5-hostname", socks,
                            url], stdin=subprocess.DEVNULL)
    t = threading.Thread(target=loop, daemon=True)
    t.start()
    return t


def rate_of(text, title):
    """The rate in nyx's graph title ("Download (12.3 KB/sec"), in bytes per second; None if absent."""
    m = re.search(title + r" \(([0-9.]+) ([KMGT]?)B/sec", text)
    if not m:
        return None
    return float(m.group(1)) * {"": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[m.group(2)]


def nameable_connections(pid, listen_ports):
    """The process's established TCP connections to one of `listen_ports` on the far side: the only ones
    nyx can name when every relay is on 127.0.0.1 (it names by address and ORPort/DirPort; inbound
    connections come from ephemeral ports)."""
    out = subprocess.run(["ss", "-tnpH", "state", "established"], capture_output=True, text=True).stdout
    mine = [line.split() for line in out.splitlines() if "pid=%d," % pid in line]
    return [f for f in mine if len(f) >= 4 and f[3].rsplit(":", 1)[-1].isdigit() and
            int(f[3].rsplit(":", 1)[-1]) in listen_ports]


def process_gone(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def move_relay(relay, address, workdir):
    """Restarts the network's `relay` with its ORPort on `address` (same port, keys and DataDirectory; its
    descriptor then says `address`) and a ControlPortWriteToFile: (process, control port)."""
    os.kill(relay["pid"], signal.SIGTERM)
    if not wait_for(lambda: process_gone(relay["pid"]), 30):
        os.kill(relay["pid"], signal.SIGKILL)
        wait_for(lambda: process_gone(relay["pid"]), 10)
    port_file = os.path.join(workdir, "watched-control.port")
    with open(relay["torrc"]) as f:
        torrc = f.read()
    torrc = torrc.replace("ORPort 127.0.0.1:%d\n" % relay["ports"]["or"], "ORPort %s:%d\n" % (address, relay["ports"]["or"]))
    with open(relay["torrc"], "w") as f:
        f.write(torrc + "ControlPortWriteToFile %s\n" % port_file)
    # Its output.log, appended: the network's tear-down looks there for sanitizer reports.
    out = open(os.path.join(relay["dir"], "output.log"), "ab")
    p = subprocess.Popen([relay["binary"]] + relay["args"], stdin=subprocess.DEVNULL, stdout=out,
                         stderr=subprocess.STDOUT, cwd=relay["dir"])

    port = wait_for(lambda: read_control_port(port_file), 30)
    if port and not wait_for(lambda: listed_at(port, relay["rsa_fingerprint"], address), 60, step=1):
        port = None  # the new address did not reach the consensus
    return p, port


def listed_at(control_port, fingerprint, address):
    """True once the consensus the relay at `control_port` holds lists `fingerprint` at `address`."""
    try:
        with Controller.from_port(port=control_port) as c:
            c.authenticate()  # the cookie named by PROTOCOLINFO
            entry = c.get_network_status(fingerprint, None)
            return entry is not None and entry.address == address
    except Exception:  # not up yet
        return False


def relay_read(control_port):
    """The relay's GETINFO traffic/read: bytes its channels read so far."""
    with Controller.from_port(port=control_port) as c:
        c.authenticate()
        return int(c.get_info("traffic/read"))


def wait_through(checks, proxy_port, relay, relay_pid, relay_port, listen_ports, timeout=110):
    """Downloads run through the proxy; NEWNYM every 6 s gives the next download new circuits, until one
    goes through `relay` as guard or middle: it then carries the downloads (more than 50 KB read in 2 s,
    again 15 s later without a NEWNYM between, so that it is not a download still on a circuit the last
    NEWNYM retired: later downloads keep that circuit) and has opened a channel to the next relay's
    ORPort. Those connections."""
    outbound, moving, seen = [], False, False
    end = time.monotonic() + max(1.0, min(timeout, _deadline - time.monotonic() - 60))
    with Controller.from_port(port=proxy_port) as c:
        c.authenticate()
        while time.monotonic() < end:
            before = relay_read(relay_port)
            time.sleep(2)
            moving = relay_read(relay_port) - before > 50000
            outbound = nameable_connections(relay_pid, set(listen_ports))
            if outbound and moving and seen:
                break
            seen = bool(outbound and moving)
            if seen:
                time.sleep(15)  # past the end of the download seen
            else:
                c.signal("NEWNYM")
                time.sleep(4)
    checks.add(outbound and moving and seen, "%s carries the downloads and opened a connection to another "
               "relay's ORPort or DirPort (%s)" % (relay["name"], [f[3] for f in outbound]))
    return outbound


def watch(checks, tmux, what, port, nicknames, workdir, shots, busy, relay_line=None, relay_pid=None,
          listen_ports=()):
    """nyx against the ControlPort `port`: the graph page, then the connection page. `relay_line`: what
    nyx's header says of a relay ("nickname - address:orport"); None for the proxy ("Relaying Disabled").
    `relay_pid`, `listen_ports`: the relay's process and every relay's ORPort and DirPort."""
    name = "nyx-" + what
    home = os.path.join(workdir, "home-" + what)
    os.makedirs(home)
    tmux.start(name, ["nyx", "-i", "127.0.0.1:%d" % port], home)
    graph = wait_screen(tmux, name, lambda t: "0.4.9.0-conflux" in t and "Download (" in t and "Upload (" in t)
    ports = relay_line or "Relaying Disabled"
    checks.add("Tor 0.4.9.0-conflux" in graph and ports in graph and "Control Port (cookie): %d" % port in graph,
               "%s: nyx's header shows the version, '%s' and the ControlPort" % (what, ports))
    checks.add("Download (" in graph and "Upload (" in graph, "%s: nyx draws the bandwidth graph" % what)
    if busy:
        graph = wait_screen(tmux, name, lambda t: (rate_of(t, "Download") or 0) > 0)
        checks.add((rate_of(graph, "Download") or 0) > 0,
                   "%s: the graph's download rate moved during the downloads (%s b/s)" % (
                       what, rate_of(graph, "Download")))
    if shots:
        time.sleep(10)  # ten seconds of bars on the graph
    shot_graph = tmux.text(name, escapes=True)
    tmux.keys(name, "Right")
    conns = wait_screen(tmux, name, lambda t: re.search(r"Connections \(", t) and any(n in t for n in nicknames))
    named = sorted(n for n in nicknames if re.search(r"\b%s\b" % re.escape(n), conns))
    checks.add(re.search(r"Connections \(", conns), "%s: nyx's connection page is up" % what)
    outbound = [f[3] for f in nameable_connections(relay_pid, set(listen_ports))] if relay_pid else None
    checks.add(named, "%s: the connection list names relays of the network (%s)%s" % (
        what, ", ".join(named), "" if outbound is None else "; its connections to their ports: %s" % outbound))
    shot_conns = tmux.text(name, escapes=True)
    checks.add("Traceback" not in graph + conns and tmux.alive(name), "%s: nyx is still running" % what)
    if shots:
        for page, text in (("graph", shot_graph), ("connections", shot_conns)):
            png = os.path.join(shots, "nyx-%s-%s.png" % (what, page))
            problem = screenshot(text, png, workdir)
            checks.add(problem is None, "%s: screenshot %s%s" % (what, png, "" if problem is None else ": " + problem))
    tmux.keys(name, "q")
    gone = wait_for(lambda: not tmux.alive(name), 20)
    if not gone:  # nyx asks "Are you sure (q again to confirm)?" when configured to
        tmux.keys(name, "q")
        # Its threads stop at their next poll: slow on a loaded machine (one run in the whole ctest took
        # more than 30 s; alone it quits at once).
        gone = wait_for(lambda: not tmux.alive(name), 40)
    checks.add(gone, "%s: nyx quits on q%s" % (what, "" if gone else "; its screen:\n" + tmux.text(name)))
    if not gone:
        print(tmux.text(name))


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        print(__doc__)
        return 2
    net_bin = args[0]
    shots = os.path.abspath(args[args.index("--screenshots") + 1]) if "--screenshots" in args else None
    if shots:
        os.makedirs(shots, exist_ok=True)
    t0 = time.monotonic()
    checks = Checks()
    tmp = tempfile.mkdtemp(prefix="conflux-nyx-")
    netdir = os.path.join(tmp, "net")
    spec = {"relays": 4, "exits": 2,
            "relay_options": ["ControlPort auto", "CookieAuthentication 1"],
            "proxies": [{"name": "nyx", "start": False, "conflux": True}]}
    tmux = Tmux(tmp)
    proxy = moved = None
    stop = threading.Event()
    try:
        net = netload.net_up(net_bin, netdir, spec)
        relays = [p for p in net["processes"] if p["role"] in ("authority", "relay", "exit")]
        nicknames = [p["name"] for p in relays]
        proc = [p for p in net["processes"] if p["name"] == "nyx"][0]
        middle = [p for p in relays if p["role"] == "relay"][0]
        moved, relay_port = move_relay(middle, WATCHED_ADDRESS, tmp)
        if not checks.add(relay_port, "%s restarted with its ORPort on %s, listed there in the consensus" % (
                middle["name"], WATCHED_ADDRESS)):
            return 1
        proxy, port, _ = start_proxy_with(proc, tmp)
        if not checks.add(port, "the proxy wrote ControlPortWriteToFile"):
            return 1
        socks = "127.0.0.1:%d" % proc["ports"]["socks"]
        url = [f["url"] for f in net["files"] if f["name"] == "5MiB.bin"][0]
        downloads_in_background(socks, url, stop)
        watch(checks, tmux, "proxy", port, nicknames, tmp, shots, busy=True)
        listen_ports = [v for p in relays if p is not middle for k, v in p["ports"].items() if k in ("or", "dir")]
        outbound = wait_through(checks, port, middle, moved.pid, relay_port, listen_ports)
        watch(checks, tmux, "relay", relay_port, [n for n in nicknames if n != middle["name"]], tmp, shots,
              busy=True, relay_line="%s - %s:%d" % (middle["name"], WATCHED_ADDRESS, middle["ports"]["or"]),
              relay_pid=moved.pid if outbound else None, listen_ports=listen_ports)
    except netload.NetError as e:
        checks.add(False, "conflux-net up: %s" % e)
    except Exception as e:  # report, then tear down
        checks.add(False, "unexpected %s: %s" % (type(e).__name__, e))
    finally:
        stop.set()
        tmux.kill()
        for p in (proxy, moved):
            if p and p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        if "--keep" in args:
            os.environ["CONFLUX_SYSTEM_KEEP"] = "1"
        netload.tear_down(checks, net_bin, netdir, tmp)
    return netload.summary(checks, t0)


if __name__ == "__main__":
    sys.exit(main())
