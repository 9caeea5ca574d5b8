"""The proxy's side of the ControlPort test (control_stem.py), on one authenticated stem Controller: cookie,
SAFECOOKIE and password authentication, the ControlSocket, GETINFO and events during downloads
(drive_proxy), then SETCONF and the other configuration commands (drive_config)."""

import os
import re
import socket
import subprocess
import threading
import time

import stem
import stem.connection
import stem.version
import netload
from control_stem_net import (PASSWORD, Controller, EventType, control_socket_path, download, fps_of, process,
                              stream_circuit, wait_for)
from control_stem_relays import BridgeWatch


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


def check_socket(checks, workdir):
    path = control_socket_path(workdir)
    mode = os.stat(path).st_mode & 0o777
    with Controller.from_socket_file(path) as c:
        c.authenticate(password=PASSWORD)
        checks.add(mode == 0o600 and c.get_info("process/pid").isdigit(),
                   "ControlSocket: mode %o, password authentication and GETINFO over it" % mode)


def check_paths(checks, circuits, fps, what):
    entries = [(fp, nick) for circ in circuits for fp, nick in circ.path]
    good = entries and all(fps.get(nick) == fp for fp, nick in entries)
    checks.add(good, "%s: every path entry is $FINGERPRINT~nickname of that relay (%d entries)" % (what, len(entries)))


def drive_proxy(checks, c, fps, socks, url, single):
    checks.add(stem.version.Version(c.get_info("version")) >= stem.version.Version("0.4.9.0-conflux"),
               "GETINFO version parses as a tor version: %s" % c.get_info("version"))
    phase = wait_for(lambda: "PROGRESS=100" in c.get_info("status/bootstrap-phase")
                     and c.get_info("status/bootstrap-phase"), 60)
    checks.add(phase and 'TAG=done SUMMARY="Done"' in phase, "status/bootstrap-phase: %s" % phase)
    checks.add(c.get_conf("ControlPort") == "auto" and c.get_conf("CookieAuthentication") == "1",
               "GETCONF ControlPort / CookieAuthentication as configured")
    try:
        reply = c.msg("SIGNAL NOSUCHSIGNAL")
        checks.add(reply.content()[0][0] == "552", "SIGNAL of an unknown name: 552")
    except stem.ControllerError as e:
        checks.add(False, "SIGNAL of an unknown name: %s" % e)

    check_network_status(checks, c, fps)
    bw, circ_events, stream_events, stream_bw = [], [], [], []
    c.add_event_listener(lambda e: bw.append((time.monotonic(), e.read)), EventType.BW)
    c.add_event_listener(lambda e: stream_bw.append(e), EventType.STREAM_BW)
    c.add_event_listener(lambda e: circ_events.append(e), EventType.CIRC)
    c.add_event_listener(lambda e: stream_events.append(e), EventType.STREAM)

    result = {}
    t = threading.Thread(target=lambda: result.setdefault("r", download(socks, url, "first")))
    t.start()
    seen = wait_for(lambda: [s for s in c.get_streams() if s.status == "SUCCEEDED"], 60, 0.1)
    circuits = c.get_circuits()
    sets = c.get_info("conflux/sets")
    if single:
        checks.add(sets == "", "GETINFO conflux/sets is empty without Conflux")
    else:
        checks.add(re.search(r"^SET=\d+ STATE=OPEN CIRC=\d+ SRTT_MS=[0-9.]+ MIN_RTT_MS=[0-9.]+ CWND=\d+ INFLIGHT=\d+ "
                             r"SHARE=[0-9.]+ READ=\d+ WRITTEN=\d+$", sets, re.M), "GETINFO conflux/sets during the download:\n%s" % sets)
    if checks.add(seen, "stream-status shows the download's stream SUCCEEDED during the download"):
        s = seen[0]
        checks.add(s.target_port == int(url.split(":")[2].split("/")[0]), "its target is the file server's port")
        on = [circ for circ in circuits if circ.id == s.circ_id]
        checks.add(on and on[0].status == "BUILT", "its circuit %s is in circuit-status, BUILT" % s.circ_id)
    check_paths(checks, [x for x in circuits if x.status == "BUILT"], fps, "circuit-status during the download")
    t.join()
    checks.add(result["r"].stdout.startswith("200 5242880"), "the 5 MiB download: %s" % result["r"].stdout)
    orconns = c.get_info("orconn-status").splitlines()
    # A first hop the consensus does not list (an authority asked over BEGIN_DIR) has no ~nickname.
    named = [re.fullmatch(r"\$([0-9A-F]{40})(?:~(\w+))? (LAUNCHED|CONNECTED)", line) for line in orconns]
    checks.add(orconns and all(named) and any(m.group(3) == "CONNECTED" and fps.get(m.group(2)) == m.group(1)
                                             for m in named),
               "GETINFO orconn-status: the channels to first hops, each $FINGERPRINT[~nickname]: %s" % orconns)
    wait_for(lambda: len(bw) >= 4 and sum(r for _, r in bw) >= 5 << 20, 8)
    spacing = [b[0] - a[0] for a, b in zip(bw, bw[1:])]
    checks.add(sum(r for _, r in bw) >= 5 << 20, "BW events add up to the download (%d bytes read)"
               % sum(r for _, r in bw))
    checks.add(len(bw) >= 3 and all(0.5 < d < 1.6 for d in spacing),
               "BW events once a second (%d, spacing %s)" % (len(bw), ["%.2f" % d for d in spacing[:8]]))
    checks.add(sum(e.read for e in stream_bw) >= 5 << 20 and all(e.time for e in stream_bw),
               "STREAM_BW events (stem-parsed, with TIME) add up to the download (%d bytes in %d events)"
               % (sum(e.read for e in stream_bw), len(stream_bw)))
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


def check_network_status(checks, c, fps):
    """ns/all, ns/id/, ns/name/ (stem parses them as router status entries), md/id/ and md/name/ (as
    microdescriptors) and entry-guards."""
    entries = list(c.get_network_statuses())
    named = {e.nickname: e.fingerprint for e in entries}
    checks.add(entries and all(fps.get(n) == fp for n, fp in named.items()) and set(fps) <= set(named),
               "GETINFO ns/all: every relay with its fingerprint (%d entries)" % len(entries))
    nick, fp = sorted(fps.items())[0]
    by_id, by_name = c.get_network_status(fp), c.get_network_status(nick)
    checks.add(by_id.nickname == nick and by_name.fingerprint == fp and by_id.address == "127.0.0.1",
               "GETINFO ns/id/%s and ns/name/%s: %s %s %s" % (fp, nick, by_id.nickname, by_id.address, by_id.flags))
    # A relay not listed is 552 Unrecognized key and a malformed id 551, as tor answers (issue 17).
    replies = ["%s %s" % c.msg("GETINFO " + key).content()[-1][::2]
               for key in ("ns/id/" + "F" * 40, "ns/name/nobody", "ns/id/nothex")]
    checks.add(replies == ['552 Unrecognized key "ns/id/%s"' % ("F" * 40), '552 Unrecognized key "ns/name/nobody"',
                           "551 Data not decodeable as hex"],
               "GETINFO ns/id/ and ns/name/ of an unknown relay, ns/id/ of a malformed id: %s" % replies)
    # md/id/ and md/name/: the relay's microdescriptor from the proxy's tor directory, as stem parses it.
    md_id, md_name = c.get_microdescriptor(fp, None), c.get_microdescriptor(nick, None)
    checks.add(md_id is not None and md_id.ntor_onion_key and md_id.identifiers.get("ed25519") and
               md_name is not None and str(md_name) == str(md_id),
               "GETINFO md/id/%s and md/name/%s: a microdescriptor with its ntor key and Ed25519 id (%s)" % (
                   fp, nick, md_id and md_id.identifiers))
    guards = c.get_info("entry-guards").splitlines()
    checks.add(guards and all(re.fullmatch(r"\$[0-9A-F]{40}~\w+ (up|down|never-connected|unusable)", g) for g in guards),
               "GETINFO entry-guards: %s" % guards[:3])


def setconf_error(c, params):
    """The 5xx reply to SETCONF `params` as "CODE message", or None when it was accepted."""
    reply = c.msg("SETCONF " + params)
    code, _, message = reply.content()[-1]
    return None if code == "250" else "%s %s" % (code, message)


def check_refusals(checks, c, net, ctl, socks):
    verify = subprocess.run([ctl["binary"], "--verify-config", "-f", ctl["torrc"], "--ConfluxEnabled", "2"],
                            capture_output=True, text=True, cwd=ctl["dir"])
    before = c.get_conf("ConfluxEnabled")
    err = setconf_error(c, "ConfluxEnabled=2 SocksTimeout=60")
    msg = err.split(": ", 1)[1] if err and ": " in err else "?"
    checks.add(err and err.startswith("513 Unacceptable option value: ") and msg in verify.stderr,
               "SETCONF ConfluxEnabled=2: %s (--verify-config: %s)" % (err, verify.stderr.strip()))
    checks.add(c.get_conf("ConfluxEnabled") == before and c.get_conf("SocksTimeout") != "60",
               "after the 513 nothing changed (all or nothing)")
    err = setconf_error(c, "DataDirectory=/tmp/elsewhere")
    checks.add(err and err.startswith("553 Transition not allowed"), "SETCONF DataDirectory: %s" % err)
    taken = [p["ports"]["or"] for p in net["processes"] if p["role"] == "relay"][0]
    listeners = c.get_info("net/listeners/socks")
    err = setconf_error(c, "SocksPort=%s SocksPort=127.0.0.1:%d" % (socks, taken))
    checks.add(err == "553 Unable to set option: Failed to bind one of the listener ports.",
               "SETCONF SocksPort with a port in use (a relay's ORPort): %s" % err)
    checks.add(c.get_info("net/listeners/socks") == listeners and c.get_conf("SocksPort") != str(taken),
               "the SOCKS listeners are as before the failed SETCONF: %s" % listeners)


def check_conflux_switch(checks, c, socks, url, single):
    changed, minor, circ_bw, legs = [], [], [], []
    c.add_event_listener(lambda e: changed.append(e), EventType.CONF_CHANGED)
    c.add_event_listener(lambda e: minor.append(e), EventType.CIRC_MINOR)
    c.add_event_listener(lambda e: circ_bw.append(e), EventType.CIRC_BW)
    try:
        c.add_event_listener(lambda e: legs.append(str(e)), "CONFLUX_LEG")
    except Exception as e:  # stem may refuse a name it does not know
        checks.add(False, "SETEVENTS CONFLUX_LEG through stem: %s" % e)
    # Away from the mode the proxy started in, then back.
    for on in ([True, False] if single else [False, True]):
        value = "1" if on else "0"
        c.set_conf("ConfluxEnabled", value)
        checks.add(wait_for(lambda: [e for e in changed if e.changed.get("ConfluxEnabled") == [value]], 5),
                   "CONF_CHANGED ConfluxEnabled=%s" % value)
        r, circ = stream_circuit(c, socks, url, "switch" + value)
        sets = c.get_info("conflux/sets")
        leg_circs = re.findall(r"CIRC=(\d+)", sets)
        purpose = [x.purpose for x in c.get_circuits() if x.id == circ]
        if on:
            checks.add(r.stdout.startswith("200 1048576") and circ in leg_circs,
                       "ConfluxEnabled 1: the download (%s) rode Conflux leg %s (%s)" % (r.stdout, circ, sets))
        else:
            checks.add(r.stdout.startswith("200 1048576") and circ and circ not in leg_circs and
                       purpose == ["GENERAL"],
                       "ConfluxEnabled 0: the download (%s) rode single circuit %s %s, not in conflux/sets (%s)"
                       % (r.stdout, circ, purpose, sets))
        if on:
            checks.add(wait_for(lambda: [e for e in minor if e.event == "PURPOSE_CHANGED"], 5),
                       "CIRC_MINOR PURPOSE_CHANGED as legs link: %s" % [str(e) for e in minor[:2]])
            checks.add(wait_for(lambda: [x for x in legs if " STATUS=LINKED " in x], 3),
                       "CONFLUX_LEG LINKED: %s" % [x for x in legs if "LINKED" in x][:2])
            checks.add(re.search(r" READ=[1-9]\d* WRITTEN=[1-9]\d*$", sets, re.M),
                       "conflux/sets gives each leg's bytes")
    checks.add([e for e in circ_bw if e.read > 0 and e.written > 0],
               "CIRC_BW events during the downloads (%d): %s" % (len(circ_bw), [str(e) for e in circ_bw[:1]]))


def check_socks_move(checks, c, ctl, socks, url):
    new_port = netload.free_port()
    c.set_conf("SocksPort", "127.0.0.1:%d" % new_port)
    listeners = c.get_info("net/listeners/socks")
    r = download("127.0.0.1:%d" % new_port, url, "moved")
    old = download(socks, url, "old")
    checks.add(listeners == '"127.0.0.1:%d"' % new_port and r.stdout.startswith("200 1048576")
               and not old.stdout.startswith("200"),
               "SETCONF SocksPort: %s serves (%s), the old port closed (%s)" % (listeners, r.stdout, old.stdout))
    return "127.0.0.1:%d" % new_port


def check_bridges(checks, c, net, socks, url):
    brs = process(net, "brs")
    with open(brs["torrc"]) as f:
        lines = [line.split(" ", 1)[1].strip() for line in f if line.startswith("Bridge ")]
    bridges = [p["name"] for p in net["processes"] if p["role"] == "bridge"]
    if not checks.add(lines and bridges, "the network's Bridge lines: %s" % lines):
        return
    port = re.search(r":(\d+) ", lines[0]).group(1)
    name = [p["name"] for p in net["processes"] if p["role"] == "bridge" and str(p["ports"]["or"]) == port][0]
    orconn_events = []
    c.add_event_listener(lambda e: orconn_events.append(e), EventType.ORCONN)
    watch = BridgeWatch(process(net, name))
    c.set_options({"UseBridges": "1", "Bridge": lines[0]})
    got = c.get_conf("Bridge")
    checks.add(c.get_conf("UseBridges") == "1" and got == lines[0],
               "SETCONF UseBridges 1 + Bridge: GETCONF Bridge gives %s" % got)
    r, circ = stream_circuit(c, socks, url, "bridged")
    wait_for(lambda: [x for x in c.get_circuits() if x.id == circ], 3)
    first = [x.path[0][1] for x in c.get_circuits() if x.id == circ and x.path]
    checks.add(r.stdout.startswith("200 1048576") and first == [name],
               "after SETCONF Bridge the download (%s) went through bridge %s (first hop %s)" % (r.stdout, name, first))
    # Named by the RSA fingerprint of its line, or by its address while launched when the line gives only an
    # Ed25519 identity (then by the fingerprint it proved once open).
    line_fp = re.search(r" ([0-9A-F]{40})\b", lines[0])
    ids = {e.id for e in orconn_events if e.status == "LAUNCHED" and
           (e.endpoint_port == int(port) or (line_fp and e.endpoint_fingerprint == line_fp.group(1)))}
    to_bridge = [e for e in orconn_events if e.id in ids]
    checks.add(ids and {"LAUNCHED", "CONNECTED"} <= {e.status for e in to_bridge} and
               any(e.endpoint_fingerprint for e in to_bridge if e.status == "CONNECTED"),
               "ORCONN events (stem-parsed) for the new channel to the bridge: %s"
               % ["%s %s %s" % (e.endpoint, e.status, e.id) for e in orconn_events][:6])
    watch.check(checks, fps_of(net))
    # tor lists its bridges as its guards with UseBridges 1: this one, up after the download through it.
    guards = c.get_info("entry-guards").splitlines()
    checks.add(line_fp and guards == ["$%s~%s up" % (line_fp.group(1), name)] if line_fp else
               len(guards) == 1 and guards[0].endswith(" up"),
               "GETINFO entry-guards lists the bridge in use (%s)" % guards)
    tested = []
    try:
        c.add_event_listener(lambda e: tested.append(str(e)), "CONFLUX_BRIDGE")
    except Exception as e:  # stem may refuse a name it does not know
        checks.add(False, "SETEVENTS CONFLUX_BRIDGE through stem: %s" % e)
    reply = c.msg("CONFLUX_TESTBRIDGES").content()[-1][0]
    addr = lines[0].split(" ")[0]
    checks.add(reply == "250" and wait_for(lambda: [x for x in tested if "ADDR=%s STATUS=OK " % addr in x], 30),
               "CONFLUX_TESTBRIDGES %s: %s" % (reply, tested))


def refuses(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
        return False
    except OSError:
        return True


def check_disable_network(checks, c, socks, url, metrics_port):
    c.set_options({"DisableNetwork": "1", "SocksTimeout": "5"})
    checks.add(wait_for(lambda: not [x for x in c.get_circuits() if x.status == "BUILT"], 15),
               "DisableNetwork 1: no circuit left open: %s" % [(x.id, x.status) for x in c.get_circuits()])
    # tor: no listener but the ControlPort while the network is disabled.
    listeners = c.get_info("net/listeners/socks")
    host, port = socks.rsplit(":", 1)
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
        refused = False
    except OSError:
        refused = True
    checks.add(listeners == "" and refused,
               "DisableNetwork 1: no SOCKS listener (net/listeners/socks %r, %s refused: %s)" % (listeners, socks, refused))
    r = download(socks, url, "held")
    checks.add(not r.stdout.startswith("200"), "DisableNetwork 1: a download fails (%s)" % r.stdout)
    # tor's retry_all_listeners keeps only the control listeners: the MetricsPort closes too.
    checks.add(metrics_port and refuses(metrics_port), "DisableNetwork 1: the MetricsPort %s refuses" % metrics_port)
    c.set_options({"DisableNetwork": "0", "SocksTimeout": "120"})
    listeners = c.get_info("net/listeners/socks")
    checks.add(listeners == '"%s"' % socks, "DisableNetwork 0: the SOCKS listener is back (%s)" % listeners)
    r = download(socks, url, "released")
    checks.add(r.stdout.startswith("200 1048576"), "DisableNetwork 0: a download works again (%s)" % r.stdout)
    checks.add(metrics_port and not refuses(metrics_port), "DisableNetwork 0: the MetricsPort %s is back" % metrics_port)


def check_saveconf(checks, c, ctl):
    with open(ctl["torrc"]) as f:
        hand_written = f.read()
    text = c.get_info("config-text")
    c.save_conf()
    with open(ctl["torrc"]) as f:
        saved = f.read()
    checks.add("UseBridges 1" in text and saved.rstrip("\n").endswith(text.rstrip("\n")),
               "GETINFO config-text is what SAVECONF wrote, without the header")
    try:
        with open(ctl["torrc"] + ".orig.1") as f:
            kept = f.read() == hand_written
    except OSError:
        kept = False
    checks.add(saved.startswith("# This file was generated by Tor; if you edit it, comments will not be preserved\n")
               and "UseBridges 1" in saved and kept,
               "SAVECONF wrote tor's header and the running options; the old torrc is torrc.orig.1")
    verify = subprocess.run([ctl["binary"], "--verify-config", "-f", ctl["torrc"]], capture_output=True, text=True,
                            cwd=ctl["dir"])
    checks.add(verify.returncode == 0, "--verify-config accepts the saved torrc: %s" % verify.stdout.strip())
    try:
        c.load_conf(saved)
        checks.add(True, "LOADCONF of the saved torrc")
    except stem.ControllerError as e:
        checks.add(False, "LOADCONF of the saved torrc: %s" % e)


def check_ownership(checks, c, port):
    with Controller.from_port(port=port) as side:
        side.authenticate(password=PASSWORD)
        took = side.msg("TAKEOWNERSHIP").content()[-1][0]
        dropped = side.msg("DROPOWNERSHIP").content()[-1][0]
    time.sleep(1)
    checks.add(took == "250" and dropped == "250" and c.get_info("process/pid").isdigit(),
               "TAKEOWNERSHIP then DROPOWNERSHIP on another connection, closed: the proxy runs on")


def drive_config(checks, c, net, ctl, socks, url, port, single):
    url = url.replace("5MiB", "1MiB")
    check_refusals(checks, c, net, ctl, socks)
    check_conflux_switch(checks, c, socks, url, single)
    socks = check_socks_move(checks, c, ctl, socks, url)
    check_bridges(checks, c, net, socks, url)
    check_disable_network(checks, c, socks, url, ctl["ports"].get("metrics"))
    check_saveconf(checks, c, ctl)
    check_ownership(checks, c, port)
