#!/usr/bin/env bash
# Build time of the CLI before and after a change (Benchmarks/build_time.py): a clean release
# build of `sluice` in a clean clone of each commit, then an edit to one kind's file.
#   COMMITS="f54b20b HEAD" EDIT=JanusTransport.swift Benchmarks/build-time.sh   (~35 min on 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 Benchmarks/build_time.py
