#!/usr/bin/env bash
# Fresh machine → running pipeline: installs the missing Debian packages that building and
# running need (Scripts/install.sh's `run` profile: the GStreamer -dev packages and plugins,
# ip/unshare; no browsers, Go, prosody, janus, valgrind or PyPI packages), builds Sluice
# (release), and runs a pipeline file (default Pipelines/loopback.yaml for 10 s) inside a
# network namespace that has only loopback. Prints how long each step took.
#   Scripts/install-and-run.sh [PIPELINE.yaml] [extra `sluice run` arguments]
# Needs Swift 6 on PATH (swift.org's toolchain or swiftly) and root (or sudo) for apt-get and
# unshare. Testing needs more: Scripts/test.sh installs it.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v swift >/dev/null || { echo "install-and-run: no 'swift' on PATH; install Swift 6 (https://www.swift.org/install/linux/, or swiftly) and add its usr/bin to PATH" >&2; exit 1; }
t0=$SECONDS
SLUICE_PROFILE=run Scripts/install.sh
t1=$SECONDS
swift build -c release --product sluice
t2=$SECONDS
echo "install-and-run: packages $((t1 - t0)) s, build $((t2 - t1)) s"
file=${1:-Pipelines/loopback.yaml}; shift || true
[ $# -gt 0 ] || set -- --duration 10
status=0
unshare -n sh -c 'ip link set lo up && exec "$0" "$@"' .build/release/sluice run "$file" "$@" || status=$?
echo "install-and-run: packages $((t1 - t0)) s, build $((t2 - t1)) s, run $((SECONDS - t2)) s (exit $status)"
exit "$status"
