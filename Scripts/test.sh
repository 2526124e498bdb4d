#!/usr/bin/env bash
# Installs what building, running and testing need (Scripts/install.sh, profile `all`:
# GStreamer, the browsers, Go/Pion, prosody, janus, valgrind and the .venv with the PyPI
# peers; it installs nothing when everything is there), then runs the whole test suite.
# Builds first, then runs every test inside a network namespace whose only interface is
# loopback, so no test can send traffic anywhere else (end-to-end
# tests additionally start each `sluice` in a namespace of its own). Needs root, as CI and
# the development machines have. Extra arguments go to `swift test` (e.g. --filter X); without
# them the suite runs in parallel lanes (below).
set -euo pipefail
cd "$(dirname "$0")/.."
SLUICE_PROFILE=all Scripts/install.sh
echo "test.sh: building the tests at ${SECONDS}s"
swift build --build-tests
# The dynamic-plugin tests load the example plugin, built as its own package.
swift build -c release --package-path Plugins/ExamplePlugin
# The outside package (Examples/EmbedSluice: its own kinds through the public API only), built
# into this package's build folder so that only its own targets compile; then this package's
# plan again (nothing to compile), for the tests below.
embed=0
if [ $# -eq 0 ] || [[ "$*" == *Embed* ]]; then
  embed=1
  # SwiftPM would reuse the cached plan of the other root package: plan each build afresh.
  swift build --package-path Examples/EmbedSluice --scratch-path "$PWD/.build" --build-tests --disable-build-manifest-caching
  swift build --build-tests --disable-build-manifest-caching
fi
echo "test.sh: tests start at ${SECONDS}s"
log=$(mktemp)
lanes_dir=$(mktemp -d)
trap 'rm -rf "$log" "$lanes_dir"' EXIT
# Without arguments the whole suite runs in lanes (SLUICE_TEST_LANES, default 2; 1 runs it in
# one `swift test`): the test classes split by their running time in the last whole run
# (Tests/lane-weights.txt, Scripts/test-lanes.py), each lane the test bundle itself (`swift test`
# holds the build folder's lock while it runs) in a network namespace of its own, so ports
# never collide. Each lane's log is printed whole when it ends.
# Classes marked `solo` there run after the lanes, alone: those that assert frame rates,
# timings or figures (browsers, Janus, aiortc's decoding, the run control's report, rung
# moves) failed beside another lane. On two cores the other 1180 s of classes took 600 s in
# two lanes, and the whole suite 36 minutes → 27.
run_lanes() {
  local bundle=.build/debug/SluicePackageTests.xctest lane=0 status=0 pids=() list solo
  "$bundle" --list-tests | python3 Scripts/test-lanes.py "$1" > "$lanes_dir/lanes" || return 1
  while IFS= read -r list; do
    lane=$((lane + 1))
    [ -n "$list" ] || continue
    unshare -n sh -c 'ip link set lo up && exec "$1" "$2"' "sluice-lane-$lane" "$bundle" "$list" > "$lanes_dir/$lane.log" 2>&1 &
    pids+=("$!:$lane")
  done < <(head -n "$1" "$lanes_dir/lanes")
  for entry in "${pids[@]}"; do
    wait "${entry%%:*}" || status=1
    cat "$lanes_dir/${entry##*:}.log" | tee -a "$log"
    echo "test.sh: lane ${entry##*:} ended" | tee -a "$log"
  done
  solo=$(sed -n "$(($1 + 1))p" "$lanes_dir/lanes")
  if [ -n "$solo" ]; then
    unshare -n sh -c 'ip link set lo up && exec "$1" "$2"' sluice-solo "$bundle" "$solo" 2>&1 | tee -a "$log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  fi
  return "$status"
}
set +e
lanes=${SLUICE_TEST_LANES:-2}
if [ $# -eq 0 ] && [ "$lanes" -gt 1 ]; then
  run_lanes "$lanes"
  status=$?
else
  unshare -n sh -c 'ip link set lo up && exec swift test --skip-build --disable-swift-testing "$@"' sluice-tests "$@" 2>&1 | tee "$log"
  status=${PIPESTATUS[0]}
fi
if [ "$embed" -eq 1 ]; then
  unshare -n sh -c 'ip link set lo up && exec swift test --package-path Examples/EmbedSluice --scratch-path "$1" --skip-build' embed-tests "$PWD/.build" 2>&1 | tee -a "$log"
  [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
fi
set -e
# Count test cases (a failing test may report several failed assertions).
passed=$(grep -cE "^Test Case '.*' passed" "$log" || true)
failed=$(grep -cE "^Test Case '.*' failed" "$log" || true)
# Repeat the failures last: a CI record often keeps only the tail of the log.
if [ "$failed" -gt 0 ]; then
  echo "failed tests and their assertions:"
  grep -E "^Test Case '.*' failed|: error: " "$log" | tail -40
fi
echo "tests: $passed passed, $failed failed"
[ "$((passed + failed))" -gt 0 ] || { echo "test.sh: no tests ran"; exit 1; }
exit "$status"
