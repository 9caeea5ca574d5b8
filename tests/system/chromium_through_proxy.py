#!/usr/bin/env python3
"""System test: headless Chromium loads conflux-net's test page through conflux-proxy.

Usage: chromium_through_proxy.py PATH/TO/conflux-net

Starts a whole network on loopback (`conflux-net up`), has Chromium take a
screenshot of the file server's index.html and dump its DOM through the
proxy's SOCKS port, checks the screenshot's pixels and the page title, and
checks the proxy's opened-streams counter rose for each load, so the page
provably came through the network and not around it. The network is always
stopped again.

Exit status: 0 when every check passed; 1 when one failed; 2 usage;
77 when Chromium is not installed (ctest reports the test as skipped).
Environment: CHROMIUM (the browser, default /usr/bin/chromium),
CONFLUX_SYSTEM_KEEP=1 (keep the temporary directory for inspection),
CONFLUX_CHROMIUM_NETLOG=1 (Chromium writes its net log beside each profile:
PROFILE.netlog.json, with each failed request's net error). As root it runs
in a network namespace of its own (private_network.py says why).
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import page_check  # noqa: E402
import png_image  # noqa: E402
import private_network  # noqa: E402

CHROMIUM_TIMEOUT_S = 60
UP_TIMEOUT_S = 120          # conflux-net's own default; it stops everything itself when it gives up
DOWN_TIMEOUT_S = 30         # down waits up to 10 s before SIGKILL
EXPECTED_TITLE = "conflux-net test page"
SKIP = 77
_OPENED = re.compile(r'^conflux_proxy_streams_total\{([^}]*)\}\s+([0-9.eE+]+)\s*$')


class Report:
    def __init__(self):
        self.results = []

    def add(self, ok, what):
        self.results.append((bool(ok), what))
        print("%s  %s" % ("PASS" if ok else "FAIL", what), flush=True)
        return ok

    def ok(self):
        return bool(self.results) and all(ok for ok, _ in self.results)


def tail(text, lines=15):
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return "\n".join("    | " + line for line in text.strip().splitlines()[-lines:])


# --- self-checks: the checks themselves must be able to fail -------------------------------------

def self_checks(report):
    # Every filter type, RGB and RGBA, through the writer and back.
    def noise(x, y):
        return ((x * 37 + y * 11) & 0xFF, (x * y + 91) & 0xFF, (255 - x * 5 - y) & 0xFF, (x ^ y) & 0xFF)
    for channels in (3, 4):
        data = png_image.encode(37, 23, noise, channels=channels, filters=(0, 1, 2, 3, 4))
        img = png_image.decode(data)
        same = all(img.rgb(x, y) == noise(x, y)[:3] for y in range(23) for x in range(37))
        report.add(same, "self-check: PNG round trip through filter types 0-4, %d channels" % channels)

    def page(x, y):
        return page_check.BLOCK_RGB if y < 400 else (255, 255, 255)
    good = png_image.decode(png_image.encode(800, 600, page))
    report.add(page_check.passed(page_check.check(good)),
               "self-check: a synthetic image of the expected page passes the screenshot check")

    white = png_image.decode(png_image.encode(800, 600, lambda x, y: (255, 255, 255)))
    report.add(not page_check.passed(page_check.check(white)),
               "self-check: a synthetic all-white 800x600 PNG fails the screenshot check")

    full = png_image.decode(png_image.encode(800, 600, lambda x, y: page_check.BLOCK_RGB))
    report.add(not page_check.passed(page_check.check(full)),
               "self-check: an image all of the block's colour fails the below-the-block check")

    small = png_image.decode(png_image.encode(640, 480, page))
    report.add(not page_check.passed(page_check.check(small)),
               "self-check: a 640x480 image of the page fails the size check")

    broken = bytearray(png_image.encode(8, 8, page))
    broken[40] ^= 0x55  # inside IDAT: the CRC no longer matches
    try:
        png_image.decode(bytes(broken))
        rejected = False
    except png_image.PngError:
        rejected = True
    report.add(rejected, "self-check: a PNG with a corrupted chunk is rejected")


# --- the network and the browser ----------------------------------------------------------------

def opened_streams(metrics_url):
    # No proxy for this request, whatever the environment says: it is loopback.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(metrics_url, timeout=10) as r:
        body = r.read().decode("utf-8", "replace")
    for line in body.splitlines():
        m = _OPENED.match(line)
        if m and 'outcome="opened"' in m.group(1):
            return int(float(m.group(2)))
    raise RuntimeError("no conflux_proxy_streams_total{outcome=\"opened\"} in %s" % metrics_url)


def run_chromium(chromium, socks, profile, extra, url, proxy_loopback=True):
    """Runs one headless Chromium; returns (exit status or None on timeout, stdout, stderr)."""
    args = [chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
            "--proxy-server=socks5://" + socks]
    if proxy_loopback:
        # Chromium never proxies loopback unless told to: without this the
        # page would be fetched directly and the test would prove nothing.
        args.append("--proxy-bypass-list=<-loopback>")
    args += ["--user-data-dir=" + profile,
            "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-extensions",
            "--disable-dev-shm-usage", "--hide-scrollbars"] + extra + [url]
    if os.environ.get("CONFLUX_CHROMIUM_NETLOG") == "1":
        args.insert(1, "--log-net-log=" + profile + ".netlog.json")
    env = dict(os.environ, XDG_CONFIG_HOME=profile + "-config", XDG_CACHE_HOME=profile + "-cache")
    # Its own session, so a timeout can stop the browser's helper processes too.
    p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=env, start_new_session=True)
    try:
        out, err = p.communicate(timeout=CHROMIUM_TIMEOUT_S)
        status = p.returncode
    except subprocess.TimeoutExpired:
        status = None
        _kill_group(p.pid)
        out, err = p.communicate()
    _kill_group(p.pid)  # helpers that outlived the browser
    return status, out, err


def _kill_group(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def screenshot_test(report, chromium, net, tmp):
    socks, metrics = net["proxy"]["socks"], net["proxy"]["metrics"]
    url = net["file_server"]
    shot = os.path.join(tmp, "shot.png")
    before = opened_streams(metrics)
    started = time.monotonic()
    status, _out, err = run_chromium(chromium, socks, os.path.join(tmp, "profile-shot"),
                                     ["--screenshot=" + shot, "--window-size=800,600"], url)
    took = time.monotonic() - started
    if not report.add(status == 0 and os.path.isfile(shot),
                      "chromium --screenshot via socks5://%s exited %s in %.1f s and wrote the PNG" % (
                          socks, "on timeout" if status is None else status, took)):
        print(tail(err))
        return
    after = opened_streams(metrics)
    report.add(after > before, "proxy opened streams rose during the screenshot: %d -> %d" % (before, after))
    try:
        image = png_image.decode(open(shot, "rb").read())
    except png_image.PngError as e:
        report.add(False, "screenshot decodes as PNG: %s" % e)
        return
    report.add(True, "screenshot decodes: %dx%d, %d channels" % (image.width, image.height, image.channels))
    for ok, what in page_check.check(image):
        report.add(ok, "screenshot: " + what)


def dom_test(report, chromium, net, tmp, proxy_loopback=True):
    """--dump-dom through the proxy; with proxy_loopback=False, the control run
    that goes around it, which shows the opened-streams check can fail."""
    socks, metrics = net["proxy"]["socks"], net["proxy"]["metrics"]
    name = "--dump-dom" if proxy_loopback else "control: --dump-dom without <-loopback>"
    before = opened_streams(metrics)
    started = time.monotonic()
    status, out, err = run_chromium(chromium, socks, os.path.join(tmp, "profile-dom-%d" % proxy_loopback),
                                    ["--dump-dom"], net["file_server"], proxy_loopback)
    took = time.monotonic() - started
    if not report.add(status == 0, "chromium %s exited %s in %.1f s" % (
            name, "on timeout" if status is None else status, took)):
        print(tail(err))
        return
    dom = out.decode("utf-8", "replace")
    m = re.search(r"<title>(.*?)</title>", dom, re.S)
    title = m.group(1).strip() if m else None
    report.add(title == EXPECTED_TITLE, "%s: DOM title is %r (want %r)" % (name, title, EXPECTED_TITLE))
    after = opened_streams(metrics)
    if proxy_loopback:
        report.add(after > before, "proxy opened streams rose during %s: %d -> %d" % (name, before, after))
    else:
        report.add(after == before, "%s: proxy opened streams stayed at %d (now %d): the page came directly" % (
            name, before, after))


def network_test(report, net_bin, chromium, tmp):
    netdir = os.path.join(tmp, "net")
    started = time.monotonic()
    try:
        up = subprocess.run([net_bin, "up", "--dir", netdir], stdin=subprocess.DEVNULL, capture_output=True,
                            timeout=UP_TIMEOUT_S + 30)
        up_status = up.returncode
    except subprocess.TimeoutExpired as e:
        up, up_status = e, None
    if not report.add(up_status == 0, "conflux-net up exited %s in %.1f s" % (up_status, time.monotonic() - started)):
        print(tail((up.stdout or b"") + (up.stderr or b""), 30))
        return
    with open(os.path.join(netdir, "network.json")) as f:
        net = json.load(f)
    if not report.add(net.get("proxy") and net.get("file_server"),
                      "network.json names a proxy (%s) and a file server (%s)" % (
                          (net.get("proxy") or {}).get("socks"), net.get("file_server"))):
        return
    screenshot_test(report, chromium, net, tmp)
    dom_test(report, chromium, net, tmp)
    dom_test(report, chromium, net, tmp, proxy_loopback=False)


_SANITIZER = re.compile(r"ERROR: (Address|Leak|Thread|Memory)Sanitizer|runtime error:")


def sanitizer_check(report, netdir):
    """In a sanitizer build the network's processes report into their
    output.log (leaks at exit, after down); any report fails the test."""
    found = []
    for name in sorted(os.listdir(netdir)):
        path = os.path.join(netdir, name, "output.log")
        if not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
        if _SANITIZER.search(text):
            found.append(name)
            print(tail(text, 30))
    report.add(not found, "no sanitizer reports in the network's output logs%s" % (
        "" if not found else " (found in: %s)" % ", ".join(found)))


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    net_bin = os.path.abspath(argv[1])
    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not os.access(chromium, os.X_OK):
        print("SKIP  no Chromium at %s (scripts/install-deps.sh installs Debian's chromium)" % chromium)
        return SKIP
    where = private_network.enter(argv)

    report = Report()
    report.add(True, "network: %s" % ("a namespace of its own (loopback only)" if where == "private" else "the host's"))
    self_checks(report)
    tmp = tempfile.mkdtemp(prefix="conflux-chromium-")
    netdir = os.path.join(tmp, "net")
    try:
        network_test(report, net_bin, chromium, tmp)
    except Exception as e:  # any surprise is a failed check, and the network still goes down
        report.add(False, "unexpected error: %s: %s" % (type(e).__name__, e))
    finally:
        if os.path.exists(os.path.join(netdir, "network.json")):
            try:
                down = subprocess.run([net_bin, "down", "--dir", netdir], stdin=subprocess.DEVNULL,
                                      capture_output=True, timeout=DOWN_TIMEOUT_S)
                report.add(down.returncode == 0, "conflux-net down exited %d" % down.returncode)
            except subprocess.TimeoutExpired:
                report.add(False, "conflux-net down did not finish in %d s" % DOWN_TIMEOUT_S)
        if os.path.isdir(netdir):
            sanitizer_check(report, netdir)
        if os.environ.get("CONFLUX_SYSTEM_KEEP") == "1":
            print("kept %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)

    failed = sum(1 for ok, _ in report.results if not ok)
    print("%s: %d checks, %d failed" % ("OK" if report.ok() else "FAILED", len(report.results), failed))
    return 0 if report.ok() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
