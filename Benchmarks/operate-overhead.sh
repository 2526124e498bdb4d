#!/usr/bin/env bash
# Builds Sluice (release) unless SLUICE names a binary (Benchmarks/sluice-binary.sh) and runs
# Benchmarks/operate_overhead.py in a loopback-only network namespace.
#   RUNS=5 WINDOW=10 VIEWERS=32 Benchmarks/operate-overhead.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
sluice_binary
exec unshare -n sh -c 'ip link set lo up && exec python3 Benchmarks/operate_overhead.py'
