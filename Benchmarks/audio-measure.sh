#!/usr/bin/env bash
# Builds Sluice (release) unless SLUICE names a binary (Benchmarks/sluice-binary.sh) and runs
# Benchmarks/audio_measure.py: audio mouth-to-ear and A/V offset beside video glass-to-glass,
# in one process, two processes (with and without 40 ms on the link) and through Janus's
# EchoTest. Needs root (network namespaces); every packet stays in namespaces it makes.
#   RUNS=3 SECONDS_PER_RUN=10 Benchmarks/audio-measure.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
sluice_binary
exec unshare -n sh -c 'ip link set lo up && exec python3 Benchmarks/audio_measure.py'
