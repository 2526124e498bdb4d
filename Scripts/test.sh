#!/usr/bin/env bash
# Runs the whole test suite. Builds first (with the network the package mirrors may need),
# then runs every test inside a network namespace whose only interface is loopback, so no
# test can send traffic anywhere else. Needs root (as CI and the dev machines have).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests "$@"
exec unshare -n sh -c 'ip link set lo up && swift test --skip-build "$@"' sluice-tests "$@"
