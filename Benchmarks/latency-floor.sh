#!/usr/bin/env bash
# Builds Sluice (release) unless SLUICE names a binary (Benchmarks/sluice-binary.sh) and runs
# Benchmarks/latency_floor.py in a loopback-only namespace.
#   RUNS=5 SECONDS_PER_RUN=20 WARMUP=2 Benchmarks/latency-floor.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
sluice_binary
exec unshare -n sh -c 'ip link set lo up && exec python3 Benchmarks/latency_floor.py'
