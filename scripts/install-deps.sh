#!/usr/bin/env bash
# Installs the Debian 12 packages Conflux needs to build, test and run.
# Only calls apt when something is missing, so repeated runs are fast.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config git
  libssl-dev libboost1.81-dev nlohmann-json3-dev
  libspdlog-dev catch2 libbenchmark-dev
  clang libfuzzer-14-dev libclang-rt-14-dev  # the fuzz preset: ASan/UBSan and libFuzzer runtimes
  clang-tidy  # scripts/checks/function_size.py: readability-function-size (clang-tidy 14)
  python3 curl
  chromium  # tests/system: the headless-browser test through the proxy
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
