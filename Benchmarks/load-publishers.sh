#!/usr/bin/env bash
# Runs Benchmarks/load_publishers.py (a crowd of WHIP publishers sharing one encoder, into
# `sluice serve --relay`) in a loopback-only network namespace. Builds Sluice (release)
# unless SLUICE names a binary (Benchmarks/sluice-binary.sh).
#   RUNS=3 Benchmarks/load-publishers.sh
#   SLUICE=/tmp/sluice-bench RUNS=1 MAX_N=120 Benchmarks/load-publishers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
sluice_binary
exec unshare -n sh -c 'ip link set lo up && exec python3 Benchmarks/load_publishers.py'
