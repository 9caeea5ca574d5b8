"""Runs a browser test in a network namespace of its own, with loopback only.

Chromium watches the host's addresses (rtnetlink) and fails every request in flight with
ERR_NETWORK_CHANGED when one changes. Other tests of the same ctest run make TUN devices and
namespaces, so a browser sharing the host's network failed now and then for nothing under test
(stop 31's system_chromium_multi_origin: 8 fetches, each ERR_NETWORK_CHANGED in Chromium's net log,
at the moment of a NETWORK_IP_ADDRESSES_CHANGED). In a namespace of its own it sees no change.
Needs root (CI runs as root) and util-linux's unshare; without them the test runs on the host's
network, as before. CONFLUX_SYSTEM_HOST_NETWORK=1 keeps it there.
"""

import fcntl
import os
import shutil
import socket
import struct
import subprocess
import sys

_MARK = "CONFLUX_SYSTEM_PRIVATE_NETWORK"
_SIOCGIFFLAGS = 0x8913
_SIOCSIFFLAGS = 0x8914
_IFF_UP = 0x1
_IFREQ = "16sH22x"  # struct ifreq: the name, then ifr_flags in the 24-byte union


def _loopback_up():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        got = fcntl.ioctl(s.fileno(), _SIOCGIFFLAGS, struct.pack(_IFREQ, b"lo", 0))
        flags = struct.unpack(_IFREQ, got)[1]
        fcntl.ioctl(s.fileno(), _SIOCSIFFLAGS, struct.pack(_IFREQ, b"lo", flags | _IFF_UP))


def enter(argv):
    """Runs this script again in a new network namespace if it can (never returns then); in that
    namespace, brings loopback up and returns "private". Returns "host" when it stays."""
    if os.environ.get(_MARK) == "1":
        _loopback_up()
        return "private"
    if os.environ.get("CONFLUX_SYSTEM_HOST_NETWORK") == "1" or os.geteuid() != 0 or not shutil.which("unshare"):
        return "host"
    if subprocess.run(["unshare", "--net", "true"], stdin=subprocess.DEVNULL, capture_output=True).returncode != 0:
        return "host"  # a container that forbids new namespaces
    os.environ[_MARK] = "1"
    sys.stdout.flush()
    sys.stderr.flush()
    # Without --fork, unshare execs in this very process: ctest's timeout still reaches the test.
    os.execvp("unshare", ["unshare", "--net", "--", sys.executable] + list(argv))
