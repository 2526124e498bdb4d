#!/usr/bin/env bash
# Regenerates the committed Swift code of Protos/*.proto (run by hand when a .proto changes;
# builds and CI never run it). Needs Debian's protobuf-compiler and swift-protobuf's
# protoc-gen-swift at the version Package.swift names, built once outside the project:
#   git clone /opt/swift-packages/apple/swift-protobuf.git /tmp/swpb && cd /tmp/swpb &&
#   git checkout 1.39.0 && swift build -c release --product protoc-gen-swift
set -euo pipefail
cd "$(dirname "$0")/.."
plugin=${PROTOC_GEN_SWIFT:-/tmp/swpb/.build/release/protoc-gen-swift}
protoc --plugin=protoc-gen-swift="$plugin" --swift_opt=Visibility=Public --swift_out=Sources/SluiceSignalling/Cast \
  --proto_path=Protos Protos/cast_channel.proto
echo "generate-protos.sh: wrote Sources/SluiceSignalling/Cast/cast_channel.pb.swift"
