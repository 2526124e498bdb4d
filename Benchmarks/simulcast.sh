#!/usr/bin/env bash
# Builds Sluice (release) unless SLUICE names a binary (Benchmarks/sluice-binary.sh) and runs
# Benchmarks/simulcast.py in a loopback-only network namespace: the server's CPU per viewer
# forwarding a WHIP publisher's three simulcast layers, forwarding one stream, and transcoding
# the same three sizes; results in Benchmarks/results-simulcast.json.
#   RUNS=3 SECONDS_PER_RUN=20 VIEWERS=10 Benchmarks/simulcast.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
sluice_binary
exec unshare -n sh -c 'ip link set lo up && exec python3 Benchmarks/simulcast.py'
