#!/usr/bin/env bash
# Builds Sluice (release) unless SLUICE names a binary (Benchmarks/sluice-binary.sh) and runs
# Benchmarks/fanout.py in a loopback-only network namespace.
#   RUNS=3 SECONDS_PER_RUN=10 MAX_N=40 Benchmarks/fanout.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
sluice_binary
exec unshare -n sh -c 'ip link set lo up && exec python3 Benchmarks/fanout.py'
