#!/usr/bin/env bash
# Runs Benchmarks/load_join.py (50 `sluice load` clients joining a running `sluice serve`
# stream at 10 a second: each one's first frame) in a loopback-only network namespace.
# Builds Sluice (release) unless SLUICE names a binary (Benchmarks/sluice-binary.sh);
# SLUICE_BEFORE=/path/to/other/sluice measures that build too, alternating, as the reference.
#   RUNS=3 Benchmarks/load-join.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
sluice_binary
exec unshare -n sh -c 'ip link set lo up && exec python3 Benchmarks/load_join.py'
