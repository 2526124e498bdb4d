#!/usr/bin/env bash
# Time from a WHEP POST to the first decoded frame at the viewer, per peer stack, against a
# `sluice serve` whose shared encoder is already running (Pipelines/serve-av.yaml, 640x360
# VP8 at 30 fps, keyframe every 2 s; a new viewer asks the encoder for a keyframe).
# Each viewer is a fresh process in the same loopback-only namespace; RUNS per stack
# (default 7), medians printed with min and max. The reference, in the same run: the same
# client against its own stack's WHEP server (aiortc_peer.py whep-serve encoding the same
# size; pionpeer whep-serve sending a VP8 file, keyframe first). Needs Scripts/install.sh.
# Builds Sluice (debug, every product) unless SLUICE names a binary, which is then used and
# nothing is built (Benchmarks/sluice-binary.sh); the Pion peer is built either way.
#   Benchmarks/whep-first-frame.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-7}
if [ -n "${SLUICE:-}" ]; then
  . Benchmarks/sluice-binary.sh
  sluice_binary
else
  swift build -c debug >/dev/null
  export SLUICE="$PWD/.build/debug/sluice"
fi
Tests/Interop/pion/build.sh .build/interop/pionpeer >/dev/null
unshare -n sh -c "ip link set lo up; exec bash -s" <<EOS
set -u
"\$SLUICE" serve --port 18700 --pipeline Pipelines/serve-av.yaml >/dev/null 2>&1 &
S=\$!
for i in \$(seq 100); do curl -s -m 1 http://127.0.0.1:18700/status.json >/dev/null && break; sleep 0.1; done
T=\$(mktemp -d)
gst-launch-1.0 -q videotestsrc num-buffers=300 pattern=ball ! video/x-raw,width=640,height=360,framerate=30/1 ! vp8enc deadline=1 keyframe-max-dist=60 ! avmux_ivf ! filesink location=\$T/v.ivf
gst-launch-1.0 -q audiotestsrc num-buffers=500 ! audio/x-raw,rate=48000,channels=2 ! opusenc ! oggmux max-page-delay=1 ! filesink location=\$T/a.ogg
.venv/bin/python Tests/Interop/aiortc/aiortc_peer.py whep-serve --port 18701 --seconds 600 --codec vp8 2>/dev/null &
A=\$!
.build/interop/pionpeer whep-serve --listen 127.0.0.1:18702 --video \$T/v.ivf --audio \$T/a.ogg --seconds 600 >/dev/null 2>&1 &
P=\$!
sleep 2   # the encoder runs before the first viewer: the case a live stream is in
for case in "aiortc sluice" "aiortc aiortc-server" "pion sluice" "pion pion-server"; do
  set -- \$case; stack=\$1; server=\$2
  case \$server in
    sluice) url=http://127.0.0.1:18700/whep/serve-av ;;
    aiortc-server) url=http://127.0.0.1:18701/whep/x ;;
    pion-server) url=http://127.0.0.1:18702/whep ;;
  esac
  ms=()
  for n in \$(seq $RUNS); do
    if [ \$stack = aiortc ]; then
      out=\$(.venv/bin/python Tests/Interop/aiortc/aiortc_peer.py whep-play \$url --seconds 0.5 --codec vp8 --no-audio)
    else
      out=\$(.build/interop/pionpeer whep-play --url \$url --seconds 1 --codec vp8 2>/dev/null)
    fi
    ms+=(\$(echo "\$out" | python3 -c 'import json,sys; print(json.loads(sys.stdin.read().strip().splitlines()[-1])["first_frame_ms"])'))
  done
  printf '%s\n' "\${ms[@]}" | sort -n | python3 -c "
import sys; v=[float(x) for x in sys.stdin]; m=v[len(v)//2]
print(f'\$stack viewer, \$server: median {m:.0f} ms (min {v[0]:.0f}, max {v[-1]:.0f}, {len(v)} runs)')"
done
kill \$S \$A \$P; wait 2>/dev/null; rm -rf \$T
EOS
