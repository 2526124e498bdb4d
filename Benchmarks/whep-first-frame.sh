#!/usr/bin/env bash
# Time from a WHEP POST to the first decoded frame at the viewer, per peer stack, against a
# `sluice serve` whose shared encoder is already running (Pipelines/serve-av.yaml, 640x360
# VP8 at 30 fps, keyframe every 2 s; a new viewer asks the encoder for a keyframe).
# Each viewer is a fresh process in the same loopback-only namespace; RUNS per stack
# (default 7), medians printed with min and max. Needs Scripts/install.sh (aiortc, Pion).
#   Benchmarks/whep-first-frame.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-7}
swift build -c debug >/dev/null
Tests/Interop/pion/build.sh .build/interop/pionpeer >/dev/null
unshare -n sh -c "ip link set lo up; exec bash -s" <<EOS
set -u
.build/debug/sluice serve --port 18700 --pipeline Pipelines/serve-av.yaml >/dev/null 2>&1 &
S=\$!
for i in \$(seq 100); do curl -s -m 1 http://127.0.0.1:18700/status.json >/dev/null && break; sleep 0.1; done
sleep 2   # the encoder runs before the first viewer: the case a live stream is in
for stack in aiortc pion; do
  ms=()
  for n in \$(seq $RUNS); do
    if [ \$stack = aiortc ]; then
      out=\$(.venv/bin/python Tests/Interop/aiortc/aiortc_peer.py whep-play http://127.0.0.1:18700/whep/serve-av --seconds 0.5 --codec vp8)
    else
      out=\$(.build/interop/pionpeer whep-play --url http://127.0.0.1:18700/whep/serve-av --seconds 1 --codec vp8 2>/dev/null)
    fi
    ms+=(\$(echo "\$out" | python3 -c 'import json,sys; print(json.loads(sys.stdin.read().strip().splitlines()[-1])["first_frame_ms"])'))
  done
  printf '%s\n' "\${ms[@]}" | sort -n | python3 -c "
import sys; v=[float(x) for x in sys.stdin]; m=v[len(v)//2]
print(f'\$stack: median {m:.0f} ms (min {v[0]:.0f}, max {v[-1]:.0f}, {len(v)} runs)')"
done
kill \$S; wait \$S 2>/dev/null
EOS
