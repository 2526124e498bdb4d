#!/usr/bin/env bash
# Builds the DocC archives of the library targets (GStreamer, Sluice, SluiceRun,
# SluiceMeasure, SluiceLoad, SluiceTransports, SluiceServer,
# SluiceFilterKit, SluiceSignalling) with the swift-docc-plugin, warnings as errors, and
# checks that no public declaration of them lacks a /// comment or shows a raw C type
# (Scripts/undocumented.py).
# The archives land in .build/plugins/Swift-DocC/outputs/TARGET.doccarchive (not committed);
# docs/api.md tells how to look at them.
#
#   Scripts/generate-docs.sh [TARGET ...]     (default: all nine)
#   DOCS_SCRATCH=.build-docs Scripts/generate-docs.sh
#       builds in a folder of its own (CI: beside the tests, which hold .build's lock)
set -euo pipefail
cd "$(dirname "$0")/.."
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(GStreamer Sluice SluiceRun SluiceMeasure SluiceLoad SluiceTransports SluiceServer SluiceFilterKit SluiceSignalling)
paths=()
for t in "${targets[@]}"; do paths+=("Sources/$t"); done
Scripts/undocumented.py --check --summary "${paths[@]}"
args=()
for t in "${targets[@]}"; do args+=(--target "$t"); done
scratch=${DOCS_SCRATCH:-.build}
swift package --scratch-path "$scratch" generate-documentation "${args[@]}" --warnings-as-errors
for t in "${targets[@]}"; do
  archive=$scratch/plugins/Swift-DocC/outputs/$t.doccarchive
  [ -d "$archive" ] || { echo "generate-docs.sh: no archive at $archive" >&2; exit 1; }
  echo "generate-docs.sh: $archive"
done
