#!/usr/bin/env bash
# The structure checks (docs/LAYERING.md): each one's self-test first (a fixture that breaks each rule
# must fail), then the layering and the function sizes of the whole tree. Configures build/tidy (the
# 'tidy' preset, never built) for clang-tidy's compile database. JOBS (default: the cores) clang-tidy runs
# at once.
set -euo pipefail
cd "$(dirname "$0")/../.."
JOBS="${JOBS:-$(nproc)}"
PY=/usr/bin/python3
"$PY" scripts/checks/layering.py --self-test
"$PY" scripts/checks/function_size.py --self-test
"$PY" scripts/checks/layering.py
"$PY" scripts/checks/function_size.py -j "$JOBS"
