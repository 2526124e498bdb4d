#!/usr/bin/env bash
# A two-way call's glass-to-glass latency in each direction (Benchmarks/two_way.py): two
# `sluice run`s in a room of `sluice serve`, loopback-only namespace. Builds Sluice (release)
# unless SLUICE names a binary (Benchmarks/sluice-binary.sh); BINARIES (default: SLUICE)
# compares several.
#   RUNS=2 SECONDS_PER_RUN=12 Benchmarks/two-way.sh
#   BINARIES="/tmp/old/sluice .build/release/sluice" Benchmarks/two-way.sh   # before and after
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
sluice_binary --quiet
exec unshare -n sh -c 'ip link set lo up && exec python3 Benchmarks/two_way.py'
