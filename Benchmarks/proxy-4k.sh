#!/usr/bin/env bash
# Runs Benchmarks/proxy_4k.py (issue 28: a 4K RTSP camera passed through, per pixel against
# go2rtc's "3% of a CPU"; gst-launch and ffmpeg reading the same camera as references) in a
# loopback-only network namespace. Builds Sluice (release) unless SLUICE names a binary
# (Benchmarks/sluice-binary.sh).
#   RUNS=3 Benchmarks/proxy-4k.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
sluice_binary
exec unshare -n sh -c 'ip link set lo up && exec python3 Benchmarks/proxy_4k.py'
