#!/usr/bin/env bash
# Time to first frame and the first frame's age on loopback, Sluice against aiortc, medians
# of RUNS fresh processes (Benchmarks/startup.py). Loopback only (its own namespace). Builds
# Sluice (release) unless SLUICE names a binary (Benchmarks/sluice-binary.sh).
#   RUNS=7 Benchmarks/startup.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
sluice_binary
PY=.venv/bin/python
"$PY" -c 'import aiortc, numpy' 2>/dev/null || { python3 -m venv .venv && .venv/bin/pip install -q aiortc numpy; }
exec unshare -n sh -c "ip link set lo up && exec $PY Benchmarks/startup.py"
