#!/usr/bin/env bash
# Runs Benchmarks/cameras.py (issue 28's scale target: N passthrough RTSP cameras served by
# `sluice serve`, one `sluice load` viewer each, all on this machine) in a loopback-only
# network namespace. It does not build: it uses the binary at SLUICE (default
# .build/release/sluice; `swift build -c release --product sluice` first).
#   RUNS=3 Benchmarks/cameras.sh                                   # 10 and 50 cameras, 720p30
#   SLUICE=/tmp/bench-bin/sluice CAMERAS=5 REFERENCE=0 RUNS=1 SEARCH=0 Benchmarks/cameras.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export SLUICE="${SLUICE:-.build/release/sluice}"
[ -x "$SLUICE" ] || { echo "no sluice binary at $SLUICE: build it (swift build -c release --product sluice) or set SLUICE" >&2; exit 2; }
exec unshare -n sh -c 'ip link set lo up && exec python3 Benchmarks/cameras.py'
