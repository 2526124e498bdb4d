#!/usr/bin/env bash
# Runs Benchmarks/proxy_4k.py (issue 28: a 4K RTSP camera passed through, per pixel against
# go2rtc's "3% of a CPU"; gst-launch and ffmpeg reading the same camera as references) in a
# loopback-only network namespace. It does not build: it uses the binary at SLUICE (default
# .build/release/sluice; `swift build -c release --product sluice` first).
#   RUNS=3 Benchmarks/proxy-4k.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export SLUICE="${SLUICE:-.build/release/sluice}"
[ -x "$SLUICE" ] || { echo "no sluice binary at $SLUICE: build it (swift build -c release --product sluice) or set SLUICE" >&2; exit 2; }
exec unshare -n sh -c 'ip link set lo up && exec python3 Benchmarks/proxy_4k.py'
