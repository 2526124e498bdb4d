#!/usr/bin/env bash
# Runs Benchmarks/load_fanout.py (the fan-out of `sluice serve` to one `sluice load` process of
# N viewers) in a loopback-only network namespace. Builds Sluice (release) unless SLUICE names
# a binary (Benchmarks/sluice-binary.sh).
#   RUNS=3 Benchmarks/load-fanout.sh
#   SLUICE=/tmp/sluice-bench RUNS=1 MAX_N=160 Benchmarks/load-fanout.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
sluice_binary
exec unshare -n sh -c 'ip link set lo up && exec python3 Benchmarks/load_fanout.py'
