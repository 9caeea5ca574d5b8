#!/usr/bin/env bash
# The structure checks (docs/LAYERING.md): each one's self-test first (a fixture that breaks each rule
# must fail), then the layering and the function sizes of the whole tree. Both read the sources only
# (no build, no compile database): a few seconds. clang-tidy, the function sizes' reference, is run by
# `function_size.py --compare` (a developer command, docs/LAYERING.md), not here.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=/usr/bin/python3
"$PY" scripts/checks/layering.py --self-test
"$PY" scripts/checks/function_size.py --self-test
"$PY" scripts/checks/layering.py
"$PY" scripts/checks/function_size.py
