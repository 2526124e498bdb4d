#!/usr/bin/env bash
# Builds Sluice (release) unless SLUICE names a binary (Benchmarks/sluice-binary.sh) and runs
# Benchmarks/congestion.py: Pipelines/adaptive.yaml measured across two network namespaces
# through Sluice's relay, adaptive against the same file at a fixed 2.5 Mbit/s, interleaved,
# medians of RUNS. Needs root (namespaces); every packet stays in namespaces this script creates.
#   RUNS=5 DURATION=20 Benchmarks/congestion.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
sluice_binary
exec python3 Benchmarks/congestion.py
