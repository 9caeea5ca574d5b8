"""The relays' and the bridge's side of the ControlPort test (control_stem.py): each relay's own ControlPort
with cookie authentication (fingerprint, reachability, BW events, version, SETCONF and its refusals,
config-text, address, STATUS_SERVER for a new descriptor, orconn-status after downloads) and a bridge's
while the proxy starts using it (ORCONN both ways, orconn-status, REACHABILITY_SUCCEEDED)."""

import re
import time

import stem.version
from control_stem_net import RELAY_ROLES, Controller, EventType, control_port_from_log, wait_for


def check_relay_setconf(checks, c):
    changed = []
    c.add_event_listener(lambda e: changed.append(e), EventType.CONF_CHANGED)
    c.set_conf("CircuitPriorityHalflife", "7.5")
    checks.add(c.get_conf("CircuitPriorityHalflife") == "7.5" and
               wait_for(lambda: [e for e in changed if e.changed.get("CircuitPriorityHalflife") == ["7.5"]], 5),
               "relay: SETCONF CircuitPriorityHalflife applied, CONF_CHANGED")
    reply = c.msg("SETCONF Nickname=renamed").content()[-1]
    checks.add(reply[0] == "553" and "Nickname" in reply[2], "relay: SETCONF Nickname is 553: %s %s" % (reply[0], reply[2]))
    text = c.get_info("config-text")
    checks.add("ORPort" in text and "CircuitPriorityHalflife 7.5" in text,
               "relay: GETINFO config-text has its torrc's ORPort and the SETCONF just made")
    check_relay_server_status(checks, c)
    address, listeners = c.get_info("address"), c.get_info("net/listeners/or")
    checks.add(re.fullmatch(r"\d+\.\d+\.\d+\.\d+", address) is not None and address == c.get_info("address/v4") and
               ('"%s:' % address) in listeners,
               "relay: GETINFO address is the advertised IPv4 address, its ORPort's (%s; %s)" % (address, listeners))


def check_relay_server_status(checks, c):
    """A new bandwidth is a new descriptor: tor's STATUS_SERVER events for its upload, parsed by stem."""
    status = []
    c.add_event_listener(lambda e: status.append(e), EventType.STATUS_SERVER)
    c.set_options({"BandwidthRate": "1000 MBytes", "BandwidthBurst": "1000 MBytes"})
    good = wait_for(lambda: [e for e in status if e.action == "GOOD_SERVER_DESCRIPTOR"], 20)
    accepted = [e for e in status if e.action == "ACCEPTED_SERVER_DESCRIPTOR"]
    checks.add(good and accepted and all(e.status_type == "SERVER" and e.runlevel == "NOTICE" for e in accepted + good)
               and all(re.fullmatch(r"127\.0\.0\.1:\d+", e.keyword_args.get("DIRAUTH", "")) for e in accepted),
               "relay: SETCONF BandwidthRate: STATUS_SERVER ACCEPTED_SERVER_DESCRIPTOR DIRAUTH=... then "
               "GOOD_SERVER_DESCRIPTOR (%s)" % [(e.action, e.keyword_args) for e in status])


def relay_fingerprints(checks, net):
    """{nickname: fingerprint} from every relay's own ControlPort (cookie authentication)."""
    fps = {}
    bw_seen = False
    for proc in net["processes"]:
        if proc["role"] not in RELAY_ROLES:
            continue
        port = control_port_from_log(proc["log"])
        if not port:
            checks.add(False, "%s logged its Control listener" % proc["name"])
            continue
        with Controller.from_port(port=port) as c:
            c.authenticate(chroot_path=None)
            fps[proc["name"]] = c.get_info("fingerprint")
            reach = wait_for(lambda: c.get_info("status/reachability-succeeded") == "OR=1 DIR=1", 30, 0.5)
            checks.add(reach, "relay %s: GETINFO status/reachability-succeeded OR=1 DIR=1 (%s)"
                       % (proc["name"], c.get_info("status/reachability-succeeded")))
            if not bw_seen:
                got = []
                c.add_event_listener(lambda e: got.append(e), EventType.BW)
                time.sleep(2.5)
                bw_seen = checks.add(len(got) >= 2, "relay %s: BW events (%d in 2.5 s)" % (proc["name"], len(got)))
                checks.add(c.get_version() >= stem.version.Version("0.4.9.0-conflux"), "relay version")
                check_relay_setconf(checks, c)
    checks.add(fps and all(re.fullmatch(r"[0-9A-F]{40}", f) for f in fps.values()),
               "every relay's GETINFO fingerprint is 40 hex digits (%d relays)" % len(fps))
    return fps


def check_relay_orconns(checks, net, fps):
    """After downloads, the relays' orconn-status: every line TARGET STATUS as tor writes it, the channels
    between relays by $FINGERPRINT~nickname (each that relay's), the proxy's by its address."""
    lines = []
    for proc in net["processes"]:
        port = control_port_from_log(proc["log"], 1) if proc["role"] in RELAY_ROLES else None
        if port:  # an authority can be the proxy's guard too
            with Controller.from_port(port=port) as c:
                c.authenticate(chroot_path=None)
                lines += c.get_info("orconn-status").splitlines()
    forms = [re.fullmatch(r"(?:\$([0-9A-F]{40})(?:~(\w+))?|(127\.0\.0\.1:\d+)) (NEW|LAUNCHED|CONNECTED)", x)
             for x in lines]
    checks.add(lines and all(forms) and
               any(m.group(2) and fps.get(m.group(2)) == m.group(1) and m.group(4) == "CONNECTED" for m in forms) and
               any(m.group(3) and m.group(4) == "CONNECTED" for m in forms),
               "relays: GETINFO orconn-status, relays as $FINGERPRINT~nickname and the proxy by address (%d lines): %s"
               % (len(lines), lines[:6]))


def check_bridge_side(checks, bc, at_bridge, reach, reachable_before, bridge, fps):
    """The bridge's own ControlPort while the proxy starts using it: ORCONN NEW then CONNECTED for the proxy's
    channel (a client: named by its address), LAUNCHED then CONNECTED for its channel on to the next hop (named
    by that relay's fingerprint), orconn-status listing both, and its ORPort found reachable by the proxy's
    CREATE (REACHABILITY_SUCCEEDED, status/reachability-succeeded)."""
    inbound = {e.id for e in at_bridge if e.status == "NEW" and e.endpoint_address == "127.0.0.1"}
    connected_in = [e for e in at_bridge if e.id in inbound and e.status == "CONNECTED"]
    outbound = {e.id for e in at_bridge if e.status == "LAUNCHED" and e.endpoint_fingerprint in fps}
    connected_out = [e for e in at_bridge if e.id in outbound and e.status == "CONNECTED"]
    shown = ["%s %s %s" % (e.endpoint, e.status, e.id) for e in at_bridge][:8]
    checks.add(connected_in and all(e.endpoint_fingerprint is None for e in connected_in),
               "bridge: ORCONN NEW then CONNECTED for the proxy's channel, named ADDRESS:PORT: %s" % shown)
    checks.add(connected_out, "bridge: ORCONN LAUNCHED then CONNECTED for its channel to a relay, "
                              "named $FINGERPRINT: %s" % shown)
    lines = bc.get_info("orconn-status").splitlines()
    forms = [re.fullmatch(r"(\$([0-9A-F]{40})(?:~\w+)?|127\.0\.0\.1:\d+) (NEW|LAUNCHED|CONNECTED)", x) for x in lines]
    checks.add(lines and all(forms) and any(m.group(2) in fps and m.group(3) == "CONNECTED" for m in forms) and
               any(m.group(1).startswith("127.") and m.group(3) == "CONNECTED" for m in forms),
               "bridge: GETINFO orconn-status lists its channels in and out: %s" % lines)
    orport = "127.0.0.1:%d" % bridge["ports"]["or"]
    if reachable_before == "0":
        got = wait_for(lambda: [e for e in reach if e.action == "REACHABILITY_SUCCEEDED"], 5)
        checks.add(got and got[0].runlevel == "NOTICE" and got[0].keyword_args.get("ORADDRESS") == orport,
                   "bridge: STATUS_SERVER REACHABILITY_SUCCEEDED ORADDRESS=%s once the proxy's CREATE came: %s"
                   % (orport, [(e.action, e.keyword_args) for e in reach]))
    else:
        print("note: the bridge was found reachable before this check (%s)" % reachable_before)
    checks.add(bc.get_info("status/reachability-succeeded") == "OR=1 DIR=1" and
               bc.get_info("status/reachability-succeeded/or") == "1",
               "bridge: GETINFO status/reachability-succeeded: %s" % bc.get_info("status/reachability-succeeded"))


class BridgeWatch:
    """A bridge's own ControlPort, listening for ORCONN and STATUS_SERVER from before the proxy uses it."""

    def __init__(self, bridge):
        self.bridge = bridge
        self.at_bridge, self.reach = [], []
        self.reachable_before = None
        port = control_port_from_log(bridge["log"], 5)
        self.c = Controller.from_port(port=port) if port else None
        if self.c:
            self.c.authenticate(chroot_path=None)
            self.c.add_event_listener(lambda e: self.at_bridge.append(e), EventType.ORCONN)
            self.c.add_event_listener(lambda e: self.reach.append(e), EventType.STATUS_SERVER)
            self.reachable_before = self.c.get_info("status/reachability-succeeded/or")

    def check(self, checks, fps):
        """check_bridge_side once the proxy's download went through the bridge; closes the connection."""
        if checks.add(self.c, "bridge %s: its ControlPort" % self.bridge["name"]):
            check_bridge_side(checks, self.c, self.at_bridge, self.reach, self.reachable_before, self.bridge, fps)
            self.c.close()
