#!/usr/bin/env bash
# Fresh machine → running pipeline: installs missing Debian packages, builds Sluice
# (release), and runs a pipeline file (default Pipelines/loopback.yaml for 10 s) inside a
# network namespace that has only loopback.
#   Scripts/install-and-run.sh [PIPELINE.yaml] [extra `sluice run` arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/install.sh
swift build -c release --product sluice
file=${1:-Pipelines/loopback.yaml}; shift || true
[ $# -gt 0 ] || set -- --duration 10
exec unshare -n sh -c 'ip link set lo up && exec "$0" "$@"' .build/release/sluice run "$file" "$@"
