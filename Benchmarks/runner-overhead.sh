#!/usr/bin/env bash
# Builds Sluice (release) unless SLUICE names a binary (Benchmarks/sluice-binary.sh) and runs
# Benchmarks/runner_overhead.py in a loopback-only network namespace.
#   RUNS=5 SECONDS_PER_RUN=20 Benchmarks/runner-overhead.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
sluice_binary
exec unshare -n sh -c 'ip link set lo up && exec python3 Benchmarks/runner_overhead.py'
