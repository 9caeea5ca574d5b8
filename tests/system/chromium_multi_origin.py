#!/usr/bin/python3
"""System test: headless Chromium fetches 60 resources from 6 origins at once through conflux-proxy.

Usage: chromium_multi_origin.py PATH/TO/conflux-net [--bin-dir DIR]

Starts a network on loopback whose file server answers on 6 origins
(127.0.0.1 to 127.0.0.6, one port; spec "file_origins": 6), writes 60
resources of mixed sizes (1 KiB to 700 KiB, 10 per origin) and a page into
its files directory, and has Chromium load the page through the proxy's
SOCKS port, twice (fresh profiles; fetches with cache "no-store"). The page's script fetches all 60
resources concurrently (as a browser loads a page's sub-resources: up to 6
connections per origin, all on the proxy's one circuit for a client without
SOCKS credentials), hashes each with crypto.subtle (127.0.0.0/8 is a secure
context), compares with a manifest, and writes "PASS 60/60" or each failure
into the page, which the test reads with --dump-dom (--virtual-time-budget
makes the dump wait for the fetches). A control page whose manifest has one
wrong hash must report "FAIL 59/60", so the page's check can fail. The
proxy's received-bytes counter must rise by at least the resources' size per
load, so the resources provably came through the proxy. The proxy logs at
info into DIR/proxy/info.log; neither of its logs may name an origin's
address and port. On a failure the test prints the page's failure lines,
chromium's stderr tail, the proxy's key counters and its info log's tail.

Exit status: 0 all passed; 1 a check failed; 2 usage; 77 when Chromium is not
installed (ctest reports the test as skipped).
Environment: CHROMIUM (default /usr/bin/chromium), CONFLUX_SYSTEM_KEEP=1,
CONFLUX_CHROMIUM_NETLOG=1 (chromium_through_proxy.py). As root it runs in a
network namespace of its own (private_network.py says why).
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import chromium_through_proxy as ctp  # noqa: E402  (run_chromium, Report)
import netload  # noqa: E402
import private_network  # noqa: E402

ORIGINS = 6
RESOURCES = 60
SIZES = [1024, 17 * 1024, 64 * 1024 + 7, 150 * 1024, 333 * 1024 + 1, 700 * 1024]  # cycled
VIRTUAL_TIME_BUDGET_MS = 120000  # virtual time stands still while fetches are pending
SKIP = 77
ctp.CHROMIUM_TIMEOUT_S = 120  # one load (about 12 s under ASan); 3 loads + up + down stay under ctest's 600 s

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>loading</title></head>
<body><pre id="result">loading</pre>
<script>
const manifest = %(manifest)s;
function hex(buf) { return Array.from(new Uint8Array(buf), b => b.toString(16).padStart(2, "0")).join(""); }
async function check(m) {
  try {
    const r = await fetch(m.url, {cache: "no-store"});
    if (!r.ok) return m.url + ": HTTP " + r.status;
    const body = await r.arrayBuffer();
    const sha = hex(await crypto.subtle.digest("SHA-256", body));
    if (body.byteLength !== m.size || sha !== m.sha256)
      return m.url + ": " + body.byteLength + " bytes (want " + m.size + "), sha256 " + sha + " (want " + m.sha256 + ")";
    return null;
  } catch (e) {
    return m.url + ": " + e;
  }
}
Promise.all(manifest.map(check)).then(results => {
  const bad = results.filter(x => x !== null);
  const verdict = (bad.length ? "FAIL " : "PASS ") + (manifest.length - bad.length) + "/" + manifest.length;
  document.title = verdict;
  document.getElementById("result").textContent = [verdict].concat(bad).join("\\n");
});
</script>
</body></html>
"""


def write_resources(net, files_dir):
    """Writes the 60 resources and the two pages; returns the page URLs (good, control)."""
    origins = net.get("file_origins") or []
    if len(origins) != ORIGINS:
        raise netload.NetError("network.json lists %d file origins, want %d: %r" % (len(origins), ORIGINS, origins))
    manifest = []
    for i in range(RESOURCES):
        name = "res-%02d.bin" % i
        data = hashlib.shake_256(b"conflux-multi-origin-" + name.encode()).digest(SIZES[i % len(SIZES)])
        with open(os.path.join(files_dir, name), "wb") as f:
            f.write(data)
        manifest.append({"url": origins[i % ORIGINS] + name, "size": len(data),
                         "sha256": hashlib.sha256(data).hexdigest()})
    with open(os.path.join(files_dir, "multi.html"), "w") as f:
        f.write(PAGE % {"manifest": json.dumps(manifest)})
    control = [dict(m) for m in manifest]
    control[17]["sha256"] = "0" * 64
    with open(os.path.join(files_dir, "multi-control.html"), "w") as f:
        f.write(PAGE % {"manifest": json.dumps(control)})
    return origins[0] + "multi.html", origins[0] + "multi-control.html", sum(m["size"] for m in manifest)


def received(metrics_url):
    return netload.metric(netload.metrics(metrics_url), "conflux_proxy_bytes_total", 'direction="received"')


def load_page(report, chromium, net, tmp, url, name, want, total):
    """One load of `url`; True when every check of it passed. A failed load prints the page's
    failure lines and the tail of chromium's stderr."""
    socks, metrics_url = net["proxy"]["socks"], net["proxy"]["metrics"]
    before = received(metrics_url)
    started = time.monotonic()
    status, out, err = ctp.run_chromium(chromium, socks, os.path.join(tmp, "profile-" + name),
                                        ["--dump-dom", "--virtual-time-budget=%d" % VIRTUAL_TIME_BUDGET_MS], url)
    took = time.monotonic() - started
    ok = report.add(status == 0, "%s: chromium --dump-dom of %s exited %s in %.1f s" % (
        name, url, "on timeout" if status is None else status, took))
    if ok:
        dom = (out or b"").decode("utf-8", "replace")
        m = re.search(r'<pre id="result">(.*?)</pre>', dom, re.S)
        text = m.group(1).strip() if m else "(no result element in the DOM)"
        verdict = text.splitlines()[0] if text else ""
        if not report.add(verdict == want, "%s: the page says %r (want %r)" % (name, verdict, want)):
            ok = False
            print("    ---- %s: the page's failure lines ----" % name)
            print(netload.tail_text(text, 70))
        # Chromium reuses its connections (6 per origin), so streams do not
        # count requests; the bytes the proxy received do.
        after = received(metrics_url)
        ok = report.add(after - before >= total, "%s: the proxy received %d bytes during the load (at least the "
                        "resources' %d): they came through it" % (name, after - before, total)) and ok
    if not ok:
        print("    ---- %s: last lines of chromium's stderr ----" % name)
        print(netload.tail_text(err or b"(none)", 40))
    return ok


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("net_bin")
    ap.add_argument("--bin-dir")
    args = ap.parse_args(argv[1:])
    net_bin = os.path.abspath(args.net_bin)
    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not os.access(chromium, os.X_OK):
        print("SKIP  no Chromium at %s (scripts/install-deps.sh installs Debian's chromium)" % chromium)
        return SKIP
    where = private_network.enter(argv)

    t0 = time.monotonic()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the finally below still stops the network
    signal.signal(signal.SIGHUP, lambda *_: sys.exit(129))
    report = ctp.Report()
    report.add(True, "network: %s" % ("a namespace of its own (loopback only)" if where == "private" else "the host's"))
    tmp = tempfile.mkdtemp(prefix="conflux-multi-origin-")
    netdir = os.path.join(tmp, "net")
    spec = {"bridges": [], "file_origins": ORIGINS, "files": [{"name": "16KiB.bin", "size": 16384}],
            "proxies": [netload.proxy_spec(netdir, "proxy", True)]}
    net = None
    try:
        net = netload.net_up(net_bin, netdir, spec, args.bin_dir)
        report.add(True, "conflux-net up with %d file origins in %.1f s" % (ORIGINS, net["_up_seconds"]))
        good, control, total = write_resources(net, os.path.join(netdir, "files"))
        print("      %d resources, %.1f MiB, on %s" % (RESOURCES, total / 2**20, ", ".join(net["file_origins"])))
        for n in (1, 2):
            load_page(report, chromium, net, tmp, good, "load %d" % n, "PASS %d/%d" % (RESOURCES, RESOURCES), total)
        load_page(report, chromium, net, tmp, control, "control (one wrong hash in the manifest)",
                  "FAIL %d/%d" % (RESOURCES - 1, RESOURCES), total)
        netload.check_no_destinations(report, net, "proxy", [o.split("/")[2] for o in net["file_origins"]])
    except netload.NetError as e:
        report.add(False, str(e))
    except Exception as e:  # any surprise is a failed check, and the network still goes down
        report.add(False, "unexpected error: %s: %s" % (type(e).__name__, e))
    finally:
        if net is not None and not report.ok():
            netload.print_proxy_diagnostics(net, "proxy", 80)
        netload.tear_down(report, net_bin, netdir, tmp)
    return netload.summary(report, t0)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
