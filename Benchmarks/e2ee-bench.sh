#!/usr/bin/env bash
# What `e2ee` costs against the encode it follows: 1280x720 30 fps VP8 and H.264 at 2.5 Mbit/s
# (Sluice's realtime vp8enc and x264enc settings) through sluice-e2ee and through identity, each
# timed from its sink pad to its src pad per frame, against the encoder's own span. No sockets.
# Builds sluice-e2ee-bench (release); with SLUICE set it runs the one beside that binary
# (Benchmarks/sluice-binary.sh).
#   RUNS=5 FRAMES=300 Benchmarks/e2ee-bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${SLUICE:-}" ]; then
  . Benchmarks/sluice-binary.sh
  sluice_binary sluice-e2ee-bench
  BENCH="$(dirname "$SLUICE")/sluice-e2ee-bench"
else
  swift build -c release --product sluice-e2ee-bench
  BENCH=.build/release/sluice-e2ee-bench
fi
exec "$BENCH" --runs "${RUNS:-5}" --frames "${FRAMES:-300}" --json Benchmarks/results-e2ee-bench.json
