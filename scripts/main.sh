#!/usr/bin/env bash
# The main job: installs dependencies, builds the optimised tree and runs it.
# Today that is the wire demonstration (a three-hop circuit in one process);
# it grows into "start a local network with a Conflux proxy ready to use".
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "${JOBS:-$(nproc)}"
echo
exec build/release/tools/wire-demo/conflux-wire-demo
