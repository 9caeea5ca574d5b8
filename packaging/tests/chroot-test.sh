#!/usr/bin/env bash
# The packages on a fresh Debian 12: installs the .debs of scripts/package.sh
# into a new bookworm chroot (debootstrap), changes only a Nickname and an
# ORPort in the packaged /etc/conflux/torrc, then runs, as the unit's User=,
# the relay unit's own ExecStartPre= (--verify-config) and ExecStart= lines,
# read from the installed conflux-relay.service: the relay must start, open
# its ORPort, write its keys to /var/lib/conflux and stop cleanly on SIGTERM.
#
#   packaging/tests/chroot-test.sh [DEB_DIR]        (default build/packages)
#
# Needs root, debootstrap and Debian's mirror (apt's sources). Slow: a minbase
# debootstrap takes minutes (CONFLUX_CHROOT_CACHE, default
# /var/cache/conflux/bookworm-minbase.tar, keeps one to unpack next time;
# `rm` it to start from debootstrap again). So it is not part of ctest or CI:
# run it after scripts/package.sh (docs/OPERATORS.md, "Packages").
# Exits 0 when everything held, 1 when something failed, 77 (skipped) when
# not root or debootstrap is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
DEBS=$(realpath "${1:-build/packages}")
CACHE=${CONFLUX_CHROOT_CACHE:-/var/cache/conflux/bookworm-minbase.tar}
MIRROR=${CONFLUX_DEBIAN_MIRROR:-http://deb.debian.org/debian}
ORPORT=${CONFLUX_CHROOT_ORPORT:-39001}

if [ "$(id -u)" -ne 0 ]; then echo "SKIP: needs root (chroot, mounts)"; exit 77; fi
if ! command -v debootstrap >/dev/null; then echo "SKIP: needs debootstrap (apt-get install debootstrap)"; exit 77; fi
shopt -s nullglob
debs=("$DEBS"/conflux-{relay,proxy,gui,net}_*.deb)
if [ ${#debs[@]} -eq 0 ]; then echo "no .debs in $DEBS: run scripts/package.sh first"; exit 1; fi

ROOT=$(mktemp -d /tmp/conflux-chroot.XXXXXX)
RELAY_PID=""
cleanup() {
  if [ -n "$RELAY_PID" ]; then kill "$RELAY_PID" 2>/dev/null || true; fi
  for m in dev/pts dev proc; do umount -l "$ROOT/$m" 2>/dev/null || true; done
  rm -rf --one-file-system "$ROOT"
}
trap cleanup EXIT
step() { printf '%s [%4ds] %s\n' "==" "$SECONDS" "$*"; }
fail() { echo "FAIL: $*"; exit 1; }

if [ -f "$CACHE" ]; then
  step "unpacking the cached bookworm minbase $CACHE"
  tar -C "$ROOT" -xf "$CACHE"
else
  step "debootstrap --variant=minbase bookworm from $MIRROR"
  debootstrap --variant=minbase bookworm "$ROOT" "$MIRROR" > "$ROOT.debootstrap.log" 2>&1 ||
    { tail -n 20 "$ROOT.debootstrap.log"; fail "debootstrap"; }
  rm -f "$ROOT.debootstrap.log"
  mkdir -p "$(dirname "$CACHE")" && tar -C "$ROOT" -cf "$CACHE" . && step "cached as $CACHE"
fi
# mktemp -d made the chroot's / mode 0700 (and the cache keeps it): as on any
# system, everyone must be able to enter it, or the unit's User= cannot load
# the relay's libraries and apt's _apt user cannot write its lists.
chmod 755 "$ROOT"
# The same suites as a Debian 12 machine: the packages were linked against
# bookworm with its updates, and shlibdeps may ask for their versions.
cat > "$ROOT/etc/apt/sources.list" <<SOURCES
deb $MIRROR bookworm main
deb $MIRROR bookworm-updates main
deb ${MIRROR%/debian}/debian-security bookworm-security main
SOURCES
mount -t proc proc "$ROOT/proc"
mount --bind /dev "$ROOT/dev"
in_root() { chroot "$ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }

step "apt-get install ${debs[*]##*/}"
mkdir -p "$ROOT/tmp/debs" && cp "${debs[@]}" "$ROOT/tmp/debs/"
in_root apt-get update -qq > /dev/null
in_root sh -c 'apt-get install -y -qq --no-install-recommends /tmp/debs/*.deb' > "$ROOT/tmp/install.log" 2>&1 ||
  { tail -n 30 "$ROOT/tmp/install.log"; fail "apt-get install"; }
for p in conflux-relay conflux-proxy conflux-gui conflux-net; do
  in_root dpkg-query -W -f='${Status}' "$p" | grep -q "install ok installed" || fail "$p is not installed"
done
in_root getent passwd _conflux > /dev/null || fail "no _conflux user"
for prog in conflux-relay conflux-proxy conflux-net; do
  in_root "$prog" --version > /dev/null || fail "$prog --version"
done
in_root env QT_QPA_PLATFORM=offscreen conflux-gui --help > /dev/null || fail "conflux-gui --help"
in_root man -w conflux-relay > /dev/null 2>&1 || [ -f "$ROOT/usr/share/man/man1/conflux-relay.1.gz" ] || fail "no man page"

step "the packaged torrc with only a Nickname and an ORPort"
torrc="$ROOT/etc/conflux/torrc"
sed -i -e 's/^#Nickname .*/Nickname ChrootTest/' -e "s/^#ORPort 9001\$/ORPort 127.0.0.1:$ORPORT/" "$torrc"
changed=$(diff <(dpkg-deb --fsys-tarfile "${DEBS}"/conflux-relay_*.deb | tar -xOf - ./etc/conflux/torrc) "$torrc" |
  grep -c '^[<>]' || true)
[ "$changed" = 4 ] || fail "expected two lines changed in /etc/conflux/torrc (4 diff lines), got $changed"

unit="$ROOT/lib/systemd/system/conflux-relay.service"
value() { sed -n "s/^$1=//p" "$unit" | head -n 1; }
user=$(value User)
pre=$(value ExecStartPre)
start=$(value ExecStart)
[ -n "$user" ] && [ -n "$pre" ] && [ -n "$start" ] || fail "the unit lacks User=, ExecStartPre= or ExecStart="
# What systemd's StateDirectory= would do if the package had not: it has.
[ "$(in_root stat -c '%U %a' /var/lib/conflux)" = "$user 700" ] || fail "/var/lib/conflux is not $user's with mode 700"

step "as $user: $pre"
# shellcheck disable=SC2086 # the unit's command line, split as systemd splits this one
out=$(in_root setpriv --reuid="$user" --regid="$user" --init-groups $pre 2>&1) || { echo "$out"; fail "--verify-config"; }
echo "$out"
grep -qx "Configuration was valid" <<<"$out" || fail "no 'Configuration was valid'"

step "as $user: $start"
log="$ROOT/tmp/relay.log"
# shellcheck disable=SC2086
# exec all the way (subshell, chroot, env, setpriv): the background job is the relay itself.
(exec chroot "$ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
   setpriv --reuid="$user" --regid="$user" --init-groups $start) > "$log" 2>&1 &
RELAY_PID=$!
for _ in $(seq 1 300); do
  grep -q "Opened OR listener on 127.0.0.1:$ORPORT" "$log" && break
  kill -0 "$RELAY_PID" 2>/dev/null || { cat "$log"; fail "the relay exited"; }
  sleep 0.1
done
grep -q "Opened OR listener on 127.0.0.1:$ORPORT" "$log" || { cat "$log"; fail "no OR listener after 30 s"; }
(exec 3<>"/dev/tcp/127.0.0.1/$ORPORT") || fail "cannot connect to the ORPort"
keys=$(ls "$ROOT/var/lib/conflux/keys" | tr '\n' ' ')
[ -n "$keys" ] || fail "no keys in /var/lib/conflux/keys"
[ "$(in_root stat -c %U /var/lib/conflux/keys)" = "$user" ] || fail "keys/ is not $user's"
step "running; keys: $keys"
kill -TERM "$RELAY_PID"
status=0
wait "$RELAY_PID" || status=$?
RELAY_PID=""
[ "$status" -eq 0 ] || { cat "$log"; fail "the relay exited with $status after SIGTERM"; }
grep -q "Catching signal TERM" "$log" || { cat "$log"; fail "no clean exit on SIGTERM"; }
step "relay log:"
sed 's/^/   /' "$log"
echo "ok: packages installed in a fresh bookworm chroot; the relay verified and started from the packaged torrc (${SECONDS} s)"
