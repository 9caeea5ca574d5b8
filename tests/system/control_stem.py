#!/usr/bin/python3
"""The ControlPort driven by stem (issue 17, docs/CONTROL.md).

    control_stem.py CONFLUX_NET [--single] [--keep]

--single: the proxy runs single circuits (ConfluxEnabled 0) instead of Conflux sets.

The checks live in control_stem_proxy.py (the proxy's) and control_stem_relays.py (the relays' and the
bridge's), over the network of control_stem_net.py: a conflux-net network whose relays all have
`ControlPort auto` and `CookieAuthentication 1`, and a Conflux proxy started here with ControlPort auto,
ControlPortWriteToFile, a cookie and a HashedControlPassword. With Debian's python3-stem (this must run under /usr/bin/python3) it checks:
  - cookie, SAFECOOKIE and password authentication, each on its own connection; a wrong password fails;
  - ControlSocket: the socket's mode is 0600 and a controller authenticates and reads over it;
  - version (stem parses it) and status/bootstrap-phase reaching PROGRESS=100 TAG=done;
  - GETCONF of options as the proxy holds them, SIGNAL of an unknown name 552;
  - during a 5 MiB download: circuit-status with paths of $FINGERPRINT~nickname (each the fingerprint
    the relay named so reports on its own ControlPort), stream-status with the stream on one of them;
  - BW events about once a second, CIRC events LAUNCHED/EXTENDED/BUILT as circuits are built and
    CLOSED after SIGNAL NEWNYM, and a download after NEWNYM on circuits that did not exist before;
  - ns/* and md/id/, md/name/ (stem parses them as router statuses and microdescriptors), entry-guards;
  - the relays' GETINFO fingerprint and BW events, and a relay's STATUS_SERVER ACCEPTED_SERVER_DESCRIPTOR and
    GOOD_SERVER_DESCRIPTOR after SETCONF BandwidthRate (a new descriptor uploaded); SIGNAL SHUTDOWN ends the proxy (with --single: TAKEOWNERSHIP
    and the connection closing end it, and TAKEOWNERSHIP then DROPOWNERSHIP on another connection does not);
  - SETCONF (drive_config): a bad value is 513 with the message --verify-config prints and changes nothing,
    an option that cannot change while running 553, a SocksPort already in use 553 "Failed to bind";
    ConfluxEnabled switched takes effect for the next download (a single circuit, absent from
    conflux/sets, or a Conflux leg), CONF_CHANGED for each change, CIRC_BW per circuit during a download,
    CIRC_MINOR PURPOSE_CHANGED and CONFLUX_LEG LINKED as legs link; SocksPort moved (the old port closes,
    the new serves); UseBridges 1 with one of the network's Bridge lines: the next circuit starts at that
    bridge, entry-guards lists that bridge up, and CONFLUX_TESTBRIDGES gets its CONFLUX_BRIDGE STATUS=OK; DisableNetwork 1 closes every circuit, the SOCKS listener (net/listeners/socks empty, the port
    refuses) and the MetricsPort, and a download then fails, DisableNetwork 0 opens both again and a download works; SAVECONF writes tor's header, keeps the hand-written torrc as torrc.orig.1, and
    `conflux-proxy --verify-config -f` accepts the file; LOADCONF of that file's text is OK.
Exit status 0 when every check passed, 1 otherwise, 77 when stem is missing (skip).
"""

import os
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import netload  # noqa: E402
from control_stem_net import (PASSWORD, Checks, Controller, control_socket_path, network_spec, process,  # noqa: E402
                              start_proxy, stem)  # (77 without stem)
from control_stem_proxy import check_auth, check_socket, drive_config, drive_proxy  # noqa: E402
from control_stem_relays import check_relay_orconns, relay_fingerprints  # noqa: E402


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
    single = "--single" in sys.argv
    spec = network_spec(single)
    proxy = None
    try:
        net = netload.net_up(net_bin, netdir, spec)
        ctl = process(net, "ctl")
        fps = relay_fingerprints(checks, net)
        proxy, port, _ = start_proxy(ctl, tmp)
        if not checks.add(port, "the proxy wrote ControlPortWriteToFile"):
            return 1
        cookie = os.path.join(ctl["data_dir"], "control_auth_cookie")
        checks.add(os.stat(cookie).st_size == 32 and (os.stat(cookie).st_mode & 0o777) == 0o600,
                   "the cookie file: 32 bytes, mode 0600")
        check_auth(checks, port, cookie)
        check_socket(checks, tmp)
        socks = "127.0.0.1:%d" % ctl["ports"]["socks"]
        url = [f["url"] for f in net["files"] if f["name"] == "5MiB.bin"][0]
        with Controller.from_port(port=port) as c:
            c.authenticate(password=PASSWORD)
            drive_proxy(checks, c, fps, socks, url, single)
            check_relay_orconns(checks, net, fps)
            drive_config(checks, c, net, ctl, socks, url, port, single)
            # --single: the controller takes ownership and leaves; else SIGNAL SHUTDOWN.
            how = "TAKEOWNERSHIP, then the connection closed" if single else "SIGNAL SHUTDOWN"
            if single:
                checks.add(c.msg("TAKEOWNERSHIP").content()[-1][0] == "250", "TAKEOWNERSHIP: 250")
            else:
                c.signal(stem.Signal.SHUTDOWN)
        try:
            proxy.wait(timeout=20)
            checks.add(proxy.returncode == 0, "%s: the proxy exited with status %d" % (how, proxy.returncode))
            checks.add(not os.path.exists(control_socket_path(tmp)), "the ControlSocket file is gone after exit")
        except subprocess.TimeoutExpired:
            checks.add(False, "%s: the proxy did not exit in 20 s" % how)
        if single:
            logged = ""
            for path in (os.path.join(tmp, "proxy-output.log"), ctl.get("log") or ""):
                if path and os.path.exists(path):
                    with open(path, errors="replace") as f:
                        logged += f.read()
            checks.add("Owning controller connection has closed -- exiting now." in logged,
                       "the proxy logged tor's words for its owner leaving")
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
