#!/usr/bin/env bash
# The main job: installs dependencies, builds the optimised tree, starts a whole Conflux network on this
# machine in the background (conflux-net up: directory authority, relays, exits, bridges, a SOCKS proxy and
# a web server with test files, all on 127.0.0.1), fetches a test file through the proxy with curl and
# checks its SHA-256, then prints what is needed to go on using the network. It keeps running until
# `conflux-net down`; CONFLUX_NET_DIR (default ./run/net) says where it lives.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "${JOBS:-$(nproc)}"
echo

NET=build/release/tools/conflux-net/conflux-net
NET_DIR="${CONFLUX_NET_DIR:-$PWD/run/net}"
# A network left by an earlier run is stopped and replaced by a new one.
if [ -f "$NET_DIR/network.json" ]; then "$NET" down --dir "$NET_DIR" >/dev/null; fi
"$NET" up --dir "$NET_DIR"

# What up wrote: the proxy's SOCKS address and the 1 MiB file's URL and SHA-256.
field() {
  python3 - "$NET_DIR/network.json" "$1" <<'PY'
import json, sys
net = json.load(open(sys.argv[1]))
files = {f["name"]: f for f in net["files"]}
print({"socks": net["proxy"]["socks"], "url": files["1MiB.bin"]["url"], "sha256": files["1MiB.bin"]["sha256"],
       "files": net["file_server"] + " (" + " ".join(files) + ")"}[sys.argv[2]])
PY
}
SOCKS=$(field socks)
URL=$(field url)
WANT=$(field sha256)
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT

echo
echo "Fetching $URL through the proxy ..."
if ! SECS=$(curl --fail --silent --show-error --max-time 60 --socks5-hostname "$SOCKS" -o "$OUT" -w '%{time_total}' "$URL"); then
  echo "the download through the proxy failed; the proxy's log ends with:"
  tail -n 15 "$NET_DIR/proxy/notice.log" || true
  "$NET" down --dir "$NET_DIR"
  exit 1
fi
GOT=$(sha256sum "$OUT" | cut -d' ' -f1)
if [ "$GOT" != "$WANT" ]; then
  echo "SHA-256 mismatch: got $GOT, want $WANT"
  "$NET" down --dir "$NET_DIR"
  exit 1
fi
echo "ok: $(stat -c %s "$OUT") bytes in ${SECS} s through the proxy, SHA-256 $GOT as network.json lists it"

cat <<TXT

The network keeps running in the background. To go on using it:
  SOCKS5 proxy   $SOCKS   (curl --socks5-hostname, or a browser's SOCKS v5 proxy setting with remote DNS)
  test files     $(field files)
  try            curl --socks5-hostname $SOCKS -o /tmp/5MiB.bin ${URL%/*}/5MiB.bin
  test page      curl --socks5-hostname $SOCKS ${URL%/*}/
  via bridges    build/release/client/app/conflux-proxy -f $NET_DIR/proxy-bridges/torrc   (a second proxy; its
                 ports are in that torrc; stop it with Ctrl-C)
  status         $NET status --dir $NET_DIR
  stop           $NET down --dir $NET_DIR
  details        $NET_DIR/network.json (every process, port, log and file), docs/CONFLUX-NET.md
TXT
