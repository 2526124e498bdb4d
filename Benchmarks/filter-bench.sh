#!/usr/bin/env bash
# Per-frame cost of Swift filters against GStreamer's identity, a C GstVideoFilter doing the
# same work, and videobalance; at 480p, 720p, 1080p and 4K, I420 and RGBA. No sockets.
#   RUNS=5 FRAMES=200 Benchmarks/filter-bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product sluice-filter-bench
exec .build/release/sluice-filter-bench --runs "${RUNS:-5}" --frames "${FRAMES:-200}" --json Benchmarks/results-filter-bench.json
