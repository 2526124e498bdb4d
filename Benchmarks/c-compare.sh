#!/usr/bin/env bash
# Builds Sluice (release) unless SLUICE names a binary (Benchmarks/sluice-binary.sh), and
# Benchmarks/c-webrtcbin/webrtc-loopback (its build.sh: gcc + pkg-config), then runs Benchmarks/c_compare.py
# in a loopback-only network namespace.
#   RUNS=5 SECONDS_PER_RUN=20 Benchmarks/c-compare.sh        (CODECS=vp8,h264 PATTERN=smpte)
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
sluice_binary
Benchmarks/c-webrtcbin/build.sh
exec unshare -n sh -c 'ip link set lo up && exec python3 Benchmarks/c_compare.py'
