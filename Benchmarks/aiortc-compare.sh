#!/usr/bin/env bash
# Builds Sluice (release) unless SLUICE names a binary (Benchmarks/sluice-binary.sh), creates
# Benchmarks/.venv-aiortc (aiortc, numpy from PyPI) if needed, then runs
# Benchmarks/aiortc_compare.py in a loopback-only network namespace.
#   RUNS=5 SECONDS_PER_RUN=20 Benchmarks/aiortc-compare.sh
#   CONFIGS="480p VP8,720p H.264" limits the configurations (480p VP8, 480p H.264, 720p VP8, 720p H.264).
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
sluice_binary
VENV=Benchmarks/.venv-aiortc
if ! "$VENV/bin/python" -c 'import aiortc, numpy' 2>/dev/null; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q aiortc numpy
fi
"$VENV/bin/python" Benchmarks/aiortc_compare.py selftest
exec unshare -n sh -c "ip link set lo up && exec $VENV/bin/python Benchmarks/aiortc_compare.py"
