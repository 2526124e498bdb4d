#!/usr/bin/env bash
# Runs Benchmarks/cameras.py (issue 28's scale target: N passthrough RTSP cameras served by
# `sluice serve`, one `sluice load` viewer each, all on this machine) in a loopback-only
# network namespace. Builds Sluice (release) unless SLUICE names a binary
# (Benchmarks/sluice-binary.sh).
#   RUNS=3 Benchmarks/cameras.sh                                   # 10 and 50 cameras, 720p30
#   SLUICE=/tmp/bench-bin/sluice CAMERAS=5 REFERENCE=0 RUNS=1 SEARCH=0 Benchmarks/cameras.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
sluice_binary
exec unshare -n sh -c 'ip link set lo up && exec python3 Benchmarks/cameras.py'
