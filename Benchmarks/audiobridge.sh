#!/usr/bin/env bash
# Runs Benchmarks/audiobridge_load.py (crowds of `sluice load` members in one room of Janus's
# AudioBridge, speaking in turns and measuring each other through the mixer) beside a
# throwaway Janus (Scripts/janus-sandbox.sh: its own network namespace, nothing outside it
# reachable). Builds Sluice (release) unless SLUICE names a binary (Benchmarks/sluice-binary.sh).
# Needs root and Janus (Scripts/install.sh testing).
#   RUNS=3 SECONDS_PER_RUN=20 Benchmarks/audiobridge.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
sluice_binary
exec Scripts/janus-sandbox.sh python3 Benchmarks/audiobridge_load.py
