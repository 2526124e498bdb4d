#!/usr/bin/env bash
# Runs Benchmarks/simulcast_uplink.py: a simulcast publisher with `adaptive_layers` behind a
# link that drops from 3 Mbit/s to 400 kbit/s and back, in namespaces it makes (root). Builds
# Sluice (release) unless SLUICE names a binary (Benchmarks/sluice-binary.sh).
#   RUNS=3 Benchmarks/simulcast-uplink.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
sluice_binary
exec python3 Benchmarks/simulcast_uplink.py
