#!/usr/bin/env bash
# Per-buffer cost of Swift audio filters (gain, level) against GStreamer's volume and level
# and identity, 48 kHz stereo F32LE and S16LE, 10 and 20 ms buffers. No sockets.
# Builds sluice-audio-filter-bench (release); with SLUICE set it runs the one beside that
# binary (Benchmarks/sluice-binary.sh).
#   RUNS=5 BUFFERS=2000 Benchmarks/audio-filter-bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${SLUICE:-}" ]; then
  . Benchmarks/sluice-binary.sh
  sluice_binary sluice-audio-filter-bench
  BENCH="$(dirname "$SLUICE")/sluice-audio-filter-bench"
else
  swift build -c release --product sluice-audio-filter-bench
  BENCH=.build/release/sluice-audio-filter-bench
fi
exec "$BENCH" --runs "${RUNS:-5}" --buffers "${BUFFERS:-2000}" --json Benchmarks/results-audio-filter-bench.json
