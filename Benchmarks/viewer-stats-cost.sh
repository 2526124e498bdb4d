#!/usr/bin/env bash
# Builds Sluice (release) unless SLUICE names a binary (Benchmarks/sluice-binary.sh) and runs
# Benchmarks/viewer_stats_cost.py in a loopback-only network namespace.
#   RUNS=3 WINDOW=20 VIEWERS=32 Benchmarks/viewer-stats-cost.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
sluice_binary
exec unshare -n sh -c 'ip link set lo up && exec python3 Benchmarks/viewer_stats_cost.py'
