#!/usr/bin/env bash
# The guard of the headline figures (Benchmarks/guard.py): short versions of the latency and
# CPU comparison with plain C webrtcbin, time to first frame, fan-out, congestion and the
# filter chain, each compared with Benchmarks/results-guard.json. Exits 1 if a figure is
# worse than recorded by more than its measured noise band. Under 6 minutes on 2 cores.
#   Benchmarks/guard.sh                 the full guard
#   GUARD=fast Benchmarks/guard.sh      what CI runs: latency and CPU vs C, audio mouth-to-ear, a 2× band (< 2 min)
#   GUARD_RECORD=3 Benchmarks/guard.sh  measure 3 times and record medians and noise bands
#   SLUICE=/path/to/sluice ...          guard another build (e.g. an older commit's)
# Builds Sluice in release, quietly (and sluice-filter-bench for the full guard), unless SLUICE
# names a binary: then the full guard looks for sluice-filter-bench beside it and builds it
# only when that folder is .build/release or .build/debug (Benchmarks/sluice-binary.sh).
# A failed build, or a missing binary, exits 2.
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
if [ "${GUARD:-full}" = fast ]; then
  sluice_binary --quiet
else
  sluice_binary --quiet sluice-filter-bench
fi
Benchmarks/c-webrtcbin/build.sh
exec unshare -n sh -c 'ip link set lo up && exec python3 Benchmarks/guard.py'
