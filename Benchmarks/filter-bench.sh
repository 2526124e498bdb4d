#!/usr/bin/env bash
# Per-frame cost of Swift filters against GStreamer's identity, a C GstVideoFilter doing the
# same work, and videobalance; at 480p, 720p, 1080p and 4K, I420 and RGBA. No sockets.
# Builds sluice-filter-bench (release); with SLUICE set it runs the one beside that binary
# instead, built only when that folder is .build/release or .build/debug.
#   RUNS=5 FRAMES=200 Benchmarks/filter-bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${SLUICE:-}" ]; then  # the bench beside that binary (Benchmarks/sluice-binary.sh)
  . Benchmarks/sluice-binary.sh
  sluice_binary sluice-filter-bench
  BENCH="$(dirname "$SLUICE")/sluice-filter-bench"
else
  swift build -c release --product sluice-filter-bench
  BENCH=.build/release/sluice-filter-bench
fi
exec "$BENCH" --runs "${RUNS:-5}" --frames "${FRAMES:-200}" --json Benchmarks/results-filter-bench.json
