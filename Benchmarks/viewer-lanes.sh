#!/usr/bin/env bash
# Runs Benchmarks/viewer_lanes.py (sluice serve's viewers on lanes against a thread each, in
# alternating pairs) in a loopback-only network namespace. Builds Sluice (release) unless
# SLUICE names a binary (Benchmarks/sluice-binary.sh).
#   RUNS=3 VIEWERS=80 Benchmarks/viewer-lanes.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
sluice_binary
exec unshare -n sh -c 'ip link set lo up && exec python3 Benchmarks/viewer_lanes.py'
