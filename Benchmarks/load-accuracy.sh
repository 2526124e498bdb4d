#!/usr/bin/env bash
# Runs Benchmarks/load_accuracy.py: one decoding `sluice load` viewer of `sluice serve`
# against the same viewer measured alone by `sluice measure --processes 2`, in a
# loopback-only network namespace (measure makes its own namespaces inside it). Builds Sluice
# (release) unless SLUICE names a binary (Benchmarks/sluice-binary.sh).
#   RUNS=5 Benchmarks/load-accuracy.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
sluice_binary
exec unshare -n sh -c 'ip link set lo up && exec python3 Benchmarks/load_accuracy.py'
