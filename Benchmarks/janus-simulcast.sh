#!/usr/bin/env bash
# Runs Benchmarks/janus_simulcast.py beside a throwaway Janus (Scripts/janus-sandbox.sh: its own
# network namespace, nothing outside it reachable): a Sluice publisher sends three simulcast
# layers into a VideoRoom and a `sluice load` crowd, split in three groups, asks Janus for one
# substream each (issue 48: 30 viewers, each at its layer's size and >= 29 fps).
# Builds Sluice (release) unless SLUICE names a binary (Benchmarks/sluice-binary.sh).
# Needs root and Janus (Scripts/install.sh testing).
#   RUNS=3 CLIENTS=30 SECONDS_PER_RUN=20 Benchmarks/janus-simulcast.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
sluice_binary
exec Scripts/janus-sandbox.sh python3 Benchmarks/janus_simulcast.py
