#!/usr/bin/env bash
# Runs Benchmarks/load_calls.py (a crowd in calls of two through
# `sluice serve`'s AppRTC rooms) in a loopback-only network namespace. Builds Sluice (release)
# unless SLUICE names a binary (Benchmarks/sluice-binary.sh).
#   RUNS=3 Benchmarks/load-calls.sh
#   SLUICE=/tmp/sluice-bench RUNS=1 MAX_N=120 Benchmarks/load-calls.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
sluice_binary
exec unshare -n sh -c 'ip link set lo up && exec python3 Benchmarks/load_calls.py'
