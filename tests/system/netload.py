"""Shared pieces of the load tests (tests/system) and the soak (bench/soak_web.py).

Standard library only: a conflux-net network started and always stopped, a
hand-written asyncio SOCKS5 client (username/password = isolation group, as
tor's IsolateSOCKSAuth) with HTTP/1.1 GET and POST on top, every body hashed
with SHA-256 as it arrives, and every step bounded by a timeout.
"""

import asyncio
import hashlib
import ipaddress
import json
import os
import re
import shutil
import random
import signal
import socket
import struct
import subprocess
import time
import urllib.request

UP_TIMEOUT_S = 120
DOWN_TIMEOUT_S = 30
HEADER_LIMIT = 16 * 1024
READ_PIECE = 64 * 1024


# --- the network -------------------------------------------------------------------------------

class NetError(Exception):
    pass


def tail_text(text, lines=15, indent="    | "):
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return "\n".join(indent + line for line in text.strip().splitlines()[-lines:])


def tail_file(path, lines=40):
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 256 * 1024))
            return tail_text(f.read(), lines)
    except OSError as e:
        return "    | (cannot read %s: %s)" % (path, e)


def free_port():
    """A port on 127.0.0.1 free a moment ago, from below the kernel's ephemeral range as conflux-net picks
    them (common/net listen_ports.hpp): an outgoing connection cannot take it before the test binds it."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            first = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        first = 32768
    candidates = list(range(25000, first)) if first >= 26000 else []
    random.shuffle(candidates)
    for port in candidates[:200] + [0]:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return s.getsockname()[1]
    raise OSError("no free port on 127.0.0.1")


def net_up(net_bin, netdir, spec, bin_dir=None, timeout=UP_TIMEOUT_S):
    """Starts a network from `spec` (a dict) in `netdir`; returns network.json as a dict.
    On failure raises NetError with conflux-net's output (it has stopped what it started)."""
    os.makedirs(netdir, exist_ok=True)
    spec_file = os.path.join(os.path.dirname(netdir.rstrip("/")) or ".", os.path.basename(netdir) + "-spec.json")
    with open(spec_file, "w") as f:
        json.dump(spec, f)
    args = [net_bin, "up", "--dir", netdir, "--spec", spec_file, "--timeout", str(timeout)]
    if bin_dir:
        args += ["--bin-dir", bin_dir]
    started = time.monotonic()
    try:
        up = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout + 30)
    except subprocess.TimeoutExpired as e:
        raise NetError("conflux-net up did not return in %d s\n%s" % (
            timeout + 30, tail_text((e.stdout or b"") + (e.stderr or b""), 30)))
    if up.returncode != 0:
        raise NetError("conflux-net up exited %d after %.1f s\n%s" % (
            up.returncode, time.monotonic() - started, tail_text(up.stdout + up.stderr, 30)))
    with open(os.path.join(netdir, "network.json")) as f:
        net = json.load(f)
    net["_up_seconds"] = time.monotonic() - started
    return net


def net_down(net_bin, netdir):
    """Stops the network in `netdir` if there is one; returns a problem as text, or None."""
    if not os.path.exists(os.path.join(netdir, "network.json")):
        return None
    try:
        down = subprocess.run([net_bin, "down", "--dir", netdir], stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=DOWN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return "conflux-net down did not finish in %d s" % DOWN_TIMEOUT_S
    if down.returncode != 0:
        return "conflux-net down exited %d\n%s" % (down.returncode, tail_text(down.stdout + down.stderr))
    return None


def kill_group(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


_SANITIZER = re.compile(r"ERROR: (Address|Leak|Thread|Memory)Sanitizer|runtime error:")


def sanitizer_reports(netdir):
    """[(process name, tail of its output.log)] for every output.log with a sanitizer report."""
    found = []
    for name in sorted(os.listdir(netdir)):
        path = os.path.join(netdir, name, "output.log")
        if not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
        m = _SANITIZER.search(text)
        if m:
            found.append((name, tail_text(text[m.start():], 40)))
    return found


def tear_down(report, net_bin, netdir, tmp):
    """Stops the network, checks its logs for sanitizer reports, removes tmp (unless CONFLUX_SYSTEM_KEEP=1)."""
    problem = net_down(net_bin, netdir)
    report.add(problem is None, problem or "conflux-net down")
    if os.path.isdir(netdir):
        found = sanitizer_reports(netdir)
        for name, text in found:
            print("    ---- sanitizer report in %s/output.log ----\n%s" % (name, text))
        report.add(not found, "no sanitizer reports in the network's output logs%s" % (
            "" if not found else " (found in: %s)" % ", ".join(n for n, _ in found)))
    if os.environ.get("CONFLUX_SYSTEM_KEEP") == "1":
        print("kept %s" % tmp)
    else:
        shutil.rmtree(tmp, ignore_errors=True)


def summary(report, t0):
    """The closing line; the process's exit code."""
    failed = sum(1 for ok, _ in report.results if not ok)
    print("%s: %d checks, %d failed, %.1f s" % ("OK" if report.ok() else "FAILED", len(report.results), failed,
                                               time.monotonic() - t0))
    return 0 if report.ok() else 1


def proxies(net):
    """{name: process record} of the started proxies."""
    return {p["name"]: p for p in net["processes"] if p["role"] == "proxy" and p["started"]}


def file_table(net):
    """{name: (size, sha256, path)} of network.json's files."""
    return {f["name"]: (f["size"], f["sha256"], "/" + f["name"]) for f in net["files"]}


# Loopback, or the private ranges conflux-net's emulation allows (10/8, 172.16/12, 192.168/16).
_FILE_SERVER_URL = re.compile(r"^http://(127\.[0-9.]+|10\.[0-9.]+|172\.(?:1[6-9]|2[0-9]|3[01])\.[0-9.]+"
                              r"|192\.168\.[0-9.]+):([0-9]+)/$")


def file_server_address(net):
    """(IPv4 address, port) of the file server: 127.0.0.1 on loopback, its own private address in an
    emulated network (docs/CONFLUX-NET.md, "Emulated networks")."""
    m = _FILE_SERVER_URL.match(net["file_server"])
    if not m:
        raise NetError("file_server is not a loopback or private IPv4 URL: %r" % net["file_server"])
    return m.group(1), int(m.group(2))


# --- metrics ---------------------------------------------------------------------------------

_METRIC = re.compile(r'^([a-z_]+)(?:\{([^}]*)\})?\s+([0-9.eE+-]+)\s*$')


def metrics(url):
    """{(name, labels text): value} from a MetricsPort (never through a proxy: loopback)."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=10) as r:
        body = r.read().decode("utf-8", "replace")
    out = {}
    for line in body.splitlines():
        m = _METRIC.match(line)
        if m:
            out[(m.group(1), m.group(2) or "")] = float(m.group(3))
    return out


def metric(values, name, label_part=""):
    return sum(v for (n, labels), v in values.items() if n == name and label_part in labels)


# --- the proxy's info log and counters: what a failure prints (issue 14) ----------------------

INFO_LOG_NAME = "info.log"
# The counters that say why streams waited or failed, printed even when zero.
KEY_METRICS = [("conflux_proxy_stream_socks_timeouts_total", "", "streams answered at SocksTimeout"),
               ("conflux_proxy_stream_retries_total", "", "streams retried on another circuit"),
               ("conflux_proxy_conflux_streams_fallback_total", "", "streams fallen back from Conflux"),
               ("conflux_proxy_conflux_set_events_total", 'event="evicted"', "Conflux sets evicted")]
_PER_SET_NOISE = ("switches", "leg_cells", "rtt", "cwnd", "reorder_cells_max")


def info_log_path(netdir, name):
    return os.path.join(netdir, name, INFO_LOG_NAME)


def proxy_spec(netdir, name, conflux):
    """A spec's proxy that also logs at info into DIR/NAME/info.log (conflux-net's per-proxy "options")."""
    return {"name": name, "conflux": conflux, "options": ["Log info file " + info_log_path(netdir, name)]}


def print_proxy_diagnostics(net, name="proxy", lines=80):
    """The proxy's key counters and its other non-zero stream and Conflux counters, the last `lines`
    of its info log (its notice log when it has none) and of its output."""
    p = proxies(net)[name]
    try:
        values = metrics("http://127.0.0.1:%d/metrics" % p["ports"]["metrics"])
        print("    ---- %s: why streams waited ----" % name)
        for metric_name, labels, what in KEY_METRICS:
            print("    | %s: %g" % (what, metric(values, metric_name, labels)))
        print("    ---- %s: its stream and Conflux counters now (non-zero) ----" % name)
        for (m, labels), v in sorted(values.items()):
            if v and (m.startswith("conflux_proxy_conflux") or m.startswith("conflux_proxy_stream")
                      or m == "conflux_proxy_circuits") and not any(n in m for n in _PER_SET_NOISE):
                print("    | %s{%s} %g" % (m, labels, v))
    except OSError as e:
        print("    (no metrics from %s: %s)" % (name, e))
    info = os.path.join(os.path.dirname(p["log"]), INFO_LOG_NAME)
    log = info if os.path.exists(info) else p["log"]
    print("    ---- last lines of %s ----" % log)
    print(tail_file(log, lines))
    print("    ---- last lines of %s ----" % p["output"])
    print(tail_file(p["output"], 20))


def lines_naming(path, needles, limit=5):
    """Up to `limit` lines of the log at `path` that contain any of `needles` (a destination the
    proxy must not log above debug: the house rule)."""
    found = []
    try:
        with open(path, "rb") as f:
            for raw in f:
                line = raw.decode("utf-8", "replace").rstrip("\n")
                if any(n in line for n in needles):
                    found.append(line)
                    if len(found) >= limit:
                        break
    except OSError:
        pass
    return found


def check_no_destinations(report, net, name, destinations):
    """Fails a check when the proxy's notice or info log names one of `destinations` ("host:port")."""
    p = proxies(net)[name]
    info = os.path.join(os.path.dirname(p["log"]), INFO_LOG_NAME)
    report.add(os.path.isfile(info) and os.path.getsize(info) > 0, "%s has the proxy's info log" % info)
    for log in (p["log"], info):
        found = lines_naming(log, destinations)
        if not report.add(not found, "%s names no destination (%s)" % (log, ", ".join(destinations))):
            print(tail_text("\n".join(found), 5))


# --- memory ----------------------------------------------------------------------------------

def rss_kib(pid):
    """VmRSS of `pid` in KiB, or None when it is gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


# --- SOCKS5 + HTTP/1.1 -------------------------------------------------------------------------

class Result:
    """What one request did; `ok` only when every byte hashed as expected."""

    def __init__(self, label, user, method, url, expect_len, expect_sha):
        self.label, self.user, self.method, self.url = label, user, method, url
        self.expect_len, self.expect_sha = expect_len, expect_sha
        self.status = None
        self.got = 0
        self.sha = None
        self.error = None
        self.stage = "start"
        self.seconds = 0.0
        self.first_byte = None  # seconds from the start to the response header (time to first byte)

    @property
    def ok(self):
        return (self.error is None and self.status == 200 and self.got == self.expect_len
                and self.sha == self.expect_sha)

    def describe(self):
        why = self.error or ("HTTP %s" % self.status if self.status != 200 else
                             "length %d, want %d" % (self.got, self.expect_len) if self.got != self.expect_len else
                             "SHA-256 differs")
        return ("%s: %s %s as %r: %s (stage %s, %d of %d bytes, sha256 %s, want %s, %.1f s)" % (
            self.label, self.method, self.url, self.user, why, self.stage, self.got, self.expect_len,
            self.sha, self.expect_sha, self.seconds))


SOCKS_REPLIES = {1: "general failure", 2: "not allowed by ruleset", 3: "network unreachable",
                 4: "host unreachable", 5: "connection refused", 6: "TTL expired",
                 7: "command not supported", 8: "address type not supported"}


async def _read_exactly(reader, n, timeout, what):
    try:
        return await asyncio.wait_for(reader.readexactly(n), timeout)
    except asyncio.IncompleteReadError as e:
        raise ConnectionError("%s: connection closed after %d of %d bytes" % (what, len(e.partial), n))
    except asyncio.TimeoutError:
        raise TimeoutError("%s: nothing for %.0f s" % (what, timeout))


async def socks5_connect(socks, user, password, host, port, timeout):
    """A SOCKS5 CONNECT to an IPv4 `host`:`port` with username/password auth
    (RFC 1928, 1929); returns (reader, writer)."""
    shost, sport = socks.rsplit(":", 1)
    reader, writer = await asyncio.wait_for(asyncio.open_connection(shost, int(sport), limit=READ_PIECE * 4),
                                            timeout)
    try:
        u, p = user.encode(), password.encode()
        writer.write(b"\x05\x01\x02")
        await writer.drain()
        ver, method = await _read_exactly(reader, 2, timeout, "SOCKS method reply")
        if ver != 5 or method != 2:
            raise ConnectionError("SOCKS: server chose method %d (want 2, username/password)" % method)
        writer.write(b"\x01" + bytes([len(u)]) + u + bytes([len(p)]) + p)
        await writer.drain()
        aver, status = await _read_exactly(reader, 2, timeout, "SOCKS auth reply")
        if aver != 1 or status != 0:
            raise ConnectionError("SOCKS: username/password refused (%d)" % status)
        writer.write(b"\x05\x01\x00\x01" + ipaddress.IPv4Address(host).packed + struct.pack(">H", port))
        await writer.drain()
        # The proxy answers once the exit has (or has not) connected: the
        # circuit may have to be built first.
        head = await _read_exactly(reader, 4, timeout, "SOCKS CONNECT reply")
        if head[0] != 5 or head[1] != 0:
            raise ConnectionError("SOCKS CONNECT failed: reply %d (%s)" % (head[1], SOCKS_REPLIES.get(head[1], "?")))
        alen = {1: 4, 4: 16}.get(head[3])
        if alen is None:
            if head[3] != 3:
                raise ConnectionError("SOCKS CONNECT reply with address type %d" % head[3])
            alen = (await _read_exactly(reader, 1, timeout, "SOCKS reply"))[0]
        await _read_exactly(reader, alen + 2, timeout, "SOCKS reply address")
        return reader, writer
    except BaseException:
        writer.close()
        raise


async def _read_head(reader, timeout):
    try:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
    except asyncio.LimitOverrunError:
        raise ConnectionError("HTTP response header over the reader's limit")
    except asyncio.IncompleteReadError as e:
        raise ConnectionError("connection closed in the HTTP response header (%d bytes)" % len(e.partial))
    except asyncio.TimeoutError:
        raise TimeoutError("no HTTP response header for %.0f s" % timeout)
    if len(head) > HEADER_LIMIT:
        raise ConnectionError("HTTP response header of %d bytes" % len(head))
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
        raise ConnectionError("not an HTTP status line: %r" % lines[0][:80])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            k, v = line.split(":", 1)
            headers[k.strip().lower()] = v.strip()
    return int(parts[1]), headers


async def http_request(result, socks, user, host, port, path, timeout, body=None, progress=None):
    """GET `path` (or POST `body` to it) through the proxy as isolation group
    `user`; fills `result` (status, bytes got, SHA-256 of the body) and never
    raises: an error is result.error. `timeout` bounds every wait (no
    progress for that long fails the request); `progress(n)` is called per
    piece received."""
    started = time.monotonic()
    writer = sender = None
    try:
        result.stage = "socks"
        reader, writer = await socks5_connect(socks, user, "x", host, port, timeout)
        result.stage = "request"
        method = "GET" if body is None else "POST"
        req = "%s %s HTTP/1.1\r\nHost: %s:%d\r\nUser-Agent: conflux-load\r\nConnection: close\r\n" % (
            method, path, host, port)
        if body is not None:
            req += "Content-Type: application/octet-stream\r\nContent-Length: %d\r\n" % len(body)
        writer.write((req + "\r\n").encode())
        await asyncio.wait_for(writer.drain(), timeout)
        if body is not None:
            # The body goes out while the response is read: the file server's
            # /echo answers at once and echoes each piece as it arrives, so
            # the timeout below measures the upload's progress, not the time
            # a body sat in socket buffers and crossed the circuit.
            sender = asyncio.ensure_future(_send_body(writer, body, timeout))
        result.stage = "response header"
        status, headers = await _read_head(reader, timeout)
        result.first_byte = time.monotonic() - started
        result.status = status
        length = headers.get("content-length")
        if length is None or not length.isdigit():
            raise ConnectionError("HTTP %d without a Content-Length" % status)
        length = int(length)
        result.stage = "body"
        h = hashlib.sha256()
        while result.got < length:
            try:
                piece = await asyncio.wait_for(reader.read(min(READ_PIECE, length - result.got)), timeout)
            except asyncio.TimeoutError:
                raise TimeoutError("body stalled: nothing for %.0f s" % timeout)
            if not piece:
                raise ConnectionError("connection closed in the body")
            h.update(piece)
            result.got += len(piece)
            if progress:
                progress(len(piece))
        result.sha = h.hexdigest()
        if sender is not None:
            await sender  # done once the echo is whole; raises what the sending met
        result.stage = "done"
    except asyncio.CancelledError:
        result.error = result.error or "cancelled (the round's deadline)"
        raise
    except (OSError, ConnectionError, TimeoutError, asyncio.TimeoutError, ValueError) as e:
        result.error = "%s: %s" % (type(e).__name__, e)
    finally:
        result.seconds = time.monotonic() - started
        if sender is not None:
            if not sender.done():
                sender.cancel()
            elif not sender.cancelled():
                sender.exception()  # retrieved: the reader's error is the one reported
        if writer is not None:
            writer.close()
    return result


async def _send_body(writer, body, timeout):
    view = memoryview(body)
    for i in range(0, len(body), READ_PIECE):
        writer.write(view[i:i + READ_PIECE])
        try:
            await asyncio.wait_for(writer.drain(), timeout)
        except asyncio.TimeoutError:
            raise TimeoutError("upload stalled: nothing sent for %.0f s" % timeout)


def upload_body(seed, size):
    """`size` bytes that differ per seed (SHAKE-256 output: cheap, never constant)."""
    return hashlib.shake_256(b"conflux-load-upload-%d" % seed).digest(size)
