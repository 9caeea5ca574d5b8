#!/usr/bin/env bash
# Installs the Debian 12 packages Conflux needs to build, test and run.
# Only calls apt when something is missing, so repeated runs are fast.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git
  libssl-dev libboost1.81-dev nlohmann-json3-dev
  libc-ares-dev  # exit/: the exit's DNS resolver (asynchronous, on the io_context; no getaddrinfo threads)
  libsodium-dev  # common/crypto: Ed25519 signing with the Ed25519 form of an X25519 key (the ntor-onion-key crosscert)
  libspdlog-dev catch2 libbenchmark-dev
  clang libfuzzer-14-dev libclang-rt-14-dev  # the fuzz preset: ASan/UBSan and libFuzzer runtimes
  clang-tidy  # scripts/checks/function_size.py --clang-tidy / --compare: the reference measurer (clang-tidy 14)
  python3 curl
  iproute2  # conflux-net's emulated networks (issue 21): namespaces, TUN devices and addresses with ip(8)
  chromium  # tests/system: the headless-browser test through the proxy
  tor  # tests/stocktor: a private network of stock tor 0.4.9 relays, our reference peer (tests/stocktor/tornet)
  obfs4proxy  # pluggable transports: tests/unit/test_ptnet_* launch it as a managed proxy (issue 19)
  qt6-base-dev  # conflux-gui (Qt 6 Widgets and Network; its tests use QtTest and the offscreen platform)
  python3-stem  # the stock-tor tests read tor's control ports and descriptors with Debian's /usr/bin/python3
  python3-matplotlib  # bench/experiment_plots.py: the experiments' CDF and throughput PNGs (issue 21), with Debian's /usr/bin/python3
  nyx tmux  # tests/system/nyx_in_tmux.py: tor's terminal monitor against our ControlPorts, read from a tmux pane
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
