#!/usr/bin/env bash
# Runs Benchmarks/simulcast_links.py: simulcast viewers behind a 400 kbit/s link and a link
# that drops from 3 Mbit/s to 500 kbit/s and back, in namespaces it makes (root). Builds
# Sluice (release) unless SLUICE names a binary (Benchmarks/sluice-binary.sh).
#   RUNS=3 Benchmarks/simulcast-links.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
sluice_binary
exec python3 Benchmarks/simulcast_links.py
