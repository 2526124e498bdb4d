#!/usr/bin/env bash
# Builds the plain C webrtcbin reference, Benchmarks/c-webrtcbin/webrtc-loopback (gcc and
# pkg-config; GStreamer's and libnice's development packages, which Scripts/install.sh
# installs). Used by Benchmarks/c-compare.sh, guard.sh and startup-floor.sh.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
gcc -O2 -Wall -o "$here/webrtc-loopback" "$here/webrtc-loopback.c" \
    $(pkg-config --cflags --libs gstreamer-1.0 gstreamer-video-1.0 gstreamer-webrtc-1.0 gstreamer-sdp-1.0 nice) -lm
