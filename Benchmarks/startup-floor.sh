#!/usr/bin/env bash
# Start-up after the DTLS key against its floor (Benchmarks/startup_floor.py): `sluice run`
# and `sluice measure` of the C comparison's graph, and the plain C program with Sluice's
# start-up settings, cold processes, alternating, in a loopback-only network namespace.
# Builds Sluice (release) unless SLUICE names a binary (Benchmarks/sluice-binary.sh), and the
# C program (gcc + pkg-config).
#   RUNS=5 Benchmarks/startup-floor.sh        (~3 min)
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
sluice_binary
Benchmarks/c-webrtcbin/build.sh
exec unshare -n sh -c 'ip link set lo up && exec python3 Benchmarks/startup_floor.py'
