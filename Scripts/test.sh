#!/usr/bin/env bash
# Runs the whole test suite. Builds first, then runs every test inside a network namespace
# whose only interface is loopback, so no test can send traffic anywhere else (end-to-end
# tests additionally start each `sluice` in a namespace of its own). Needs root, as CI and
# the development machines have. Extra arguments go to `swift test` (e.g. --filter X).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests
# The dynamic-plugin tests load the example plugin, built as its own package.
swift build -c release --package-path Plugins/ExamplePlugin
log=$(mktemp)
trap 'rm -f "$log"' EXIT
set +e
unshare -n sh -c 'ip link set lo up && exec swift test --skip-build --disable-swift-testing "$@"' sluice-tests "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
# XCTest's last "Executed N tests, with F failures" line is the total.
total=$(grep -E "Executed [0-9]+ tests?, with [0-9]+ failures?" "$log" | tail -1 || true)
n=$(sed -E 's/.*Executed ([0-9]+) tests?.*/\1/' <<<"$total")
f=$(sed -E 's/.*with ([0-9]+) failures?.*/\1/' <<<"$total")
if [ -n "$total" ]; then echo "tests: $((n - f)) passed, $f failed"; fi
[ -n "$total" ] && [ "$n" -gt 0 ] || { echo "test.sh: no tests ran"; exit 1; }
exit "$status"
