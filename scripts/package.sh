#!/usr/bin/env bash
# Builds the Debian packages (conflux-relay, conflux-proxy, conflux-gui,
# conflux-net) with debhelper, checks them with lintian, and leaves the .debs
# in OUT (default ./build/packages).
#
#   scripts/package.sh [OUT]
#
# It copies the source tree (the files git knows, committed or not, without
# build/) to a staging directory (CONFLUX_PACKAGE_STAGE, default
# /tmp/conflux-package) with packaging/debian/ as debian/ at its top, which is
# Debian's layout, and runs dpkg-buildpackage there: debian/rules configures
# with CMake, builds the four programs and their man pages, and the install()
# rules place every file (docs/OPERATORS.md, "Packages"). The version is the
# changelog's with +gitDATE.HASH added, so each build upgrades the last.
#
# Needs, and installs with apt-get when missing (root or sudo): debhelper,
# lintian, fakeroot, dpkg-dev and help2man, then whatever Build-Depends of
# packaging/debian/control dpkg-checkbuilddeps finds missing (a subset of
# scripts/install-deps.sh's). None of them is in scripts/install-deps.sh: CI
# does not build packages (and the chroot test, packaging/tests/chroot-test.sh,
# is too slow for it).
# JOBS (default 2) limits the build's parallelism; the build runs under nice.
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=$PWD
OUT=$(realpath -m "${1:-build/packages}")
STAGE=${CONFLUX_PACKAGE_STAGE:-/tmp/conflux-package}
JOBS=${JOBS:-2}

TOOLS=(debhelper lintian fakeroot dpkg-dev help2man)
missing=()
for p in "${TOOLS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
apt_install() {
  echo "Installing: $*"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
}
if [ ${#missing[@]} -ne 0 ]; then apt_install "${missing[@]}"; fi
# "dpkg-checkbuilddeps: error: Unmet build dependencies: cmake (>= 3.25) libssl-dev ..."
unmet=$(dpkg-checkbuilddeps packaging/debian/control 2>&1 | sed -n 's/.*Unmet build dependencies: //p' |
  sed 's/([^)]*)//g')
# shellcheck disable=SC2086 # package names, one word each
if [ -n "$unmet" ]; then apt_install $unmet; fi

# The staged tree: always at the same path, so ccache hits from one build to
# the next (debian/rules sets CCACHE_BASEDIR to it).
VERSION_BASE=$(dpkg-parsechangelog -l packaging/debian/changelog -S Version)
if git rev-parse --git-dir >/dev/null 2>&1; then
  VERSION="$VERSION_BASE+git$(git log -1 --format=%cd --date=format:%Y%m%d%H%M%S).$(git rev-parse --short=8 HEAD)"
  [ -z "$(git status --porcelain --untracked-files=no)" ] || VERSION="$VERSION.dirty"
else
  VERSION=$VERSION_BASE
fi
TREE="$STAGE/conflux"
rm -rf "$TREE" && mkdir -p "$TREE" "$OUT"
rm -f "$STAGE"/conflux*_*.deb "$STAGE"/conflux_*.buildinfo "$STAGE"/conflux_*.changes
git ls-files -z --cached --others --exclude-standard | grep -zv '^build/' |
  while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
  tar -C "$SRC" --null -T - -cf - | tar -C "$TREE" -xf -
cp -r packaging/debian "$TREE/debian"
if [ "$VERSION" != "$VERSION_BASE" ]; then
  { printf 'conflux (%s) unstable; urgency=medium\n\n  * Built by scripts/package.sh from %s.\n\n -- %s  %s\n\n' \
      "$VERSION" "$(git rev-parse --short=12 HEAD)" "Conflux developers <dev@conflux.invalid>" "$(date -R)"
    cat packaging/debian/changelog; } > "$TREE/debian/changelog"
fi

# ccache's cache stays the caller's (debhelper gives the build its own HOME).
if command -v ccache >/dev/null; then export CCACHE_DIR="${CCACHE_DIR:-$(ccache -k cache_dir)}"; fi
echo "Building conflux $VERSION in $TREE (log: $STAGE/build.log)"
(cd "$TREE" && DEB_BUILD_OPTIONS="parallel=$JOBS nocheck" nice -n 10 dpkg-buildpackage -b -us -uc) \
  > "$STAGE/build.log" 2>&1 || { tail -n 40 "$STAGE/build.log"; echo "dpkg-buildpackage failed: $STAGE/build.log"; exit 1; }

debs=()
for d in "$STAGE"/conflux-*_"${VERSION}"_*.deb; do mv "$d" "$OUT/"; debs+=("$OUT/$(basename "$d")"); done
mv "$STAGE"/conflux_"${VERSION}"_*.{buildinfo,changes} "$OUT/" 2>/dev/null || true
echo "Packages in $OUT:"
ls -l "${debs[@]}"

# lintian: errors fail the script; warnings are printed (docs/OPERATORS.md records them).
echo "lintian:"
lintian --tag-display-limit 0 "${debs[@]}" | tee "$OUT/lintian.txt" || true
if grep -q '^E:' "$OUT/lintian.txt"; then echo "lintian reports errors"; exit 1; fi
echo "ok: $(grep -c '^W:' "$OUT/lintian.txt" || true) lintian warnings, no errors ($OUT/lintian.txt)"
