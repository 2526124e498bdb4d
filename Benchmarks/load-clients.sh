#!/usr/bin/env bash
# Runs Benchmarks/load_clients.py (sluice load viewers against aiortc viewers, CPU per
# client-second) in a loopback-only network namespace. Builds Sluice (release) unless SLUICE
# names a binary (Benchmarks/sluice-binary.sh); aiortc comes from .venv (or AIORTC_PYTHON), as the interop tests use it.
#   RUNS=3 Benchmarks/load-clients.sh
#   SLUICE=/tmp/sluice-bench ONLY="not decoding" RUNS=1 Benchmarks/load-clients.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
sluice_binary
PY="${AIORTC_PYTHON:-.venv/bin/python}"
"$PY" -c 'import aiortc' 2>/dev/null || { echo "no aiortc in $PY (set AIORTC_PYTHON)" >&2; exit 1; }
exec unshare -n sh -c 'ip link set lo up && exec python3 Benchmarks/load_clients.py'
