#!/usr/bin/env bash
# Runs COMMAND (a `sluice measure Pipelines/room-echo.yaml --round-trip …`) against an echo
# peer in an AppRTC room of a `sluice serve` on 127.0.0.1: PEER is `chromium` or `firefox`
# (the headless browser sending back what it receives, Tests/Browser/browser_echo.py) or
# `aiortc` (aiortc's MediaRelay, Tests/Interop/aiortc/aiortc_peer.py room-echo). The measure
# joins first and offers; the peer joins once the room has it. Exits with COMMAND's status, or
# 92 if COMMAND succeeded and the peer failed. The peer's JSON line goes to ECHO_PEER_OUT
# (default: nowhere); ECHO_PEER_ARGS are more arguments for a browser peer (for example
# `--e2ee-passphrase P`: it decrypts and encrypts in LiveKit's format). Run in a loopback-only
# namespace (Benchmarks/audio-measure.sh and the tests run it in one); SLUICE is the binary.
#   Benchmarks/room-echo-peer.sh chromium "$SLUICE" measure Pipelines/room-echo.yaml --round-trip --duration 10
set -euo pipefail
cd "$(dirname "$0")/.."
peer=$1; shift
port=${ROOM_ECHO_PORT:-18640}
python=${PYTHON:-.venv/bin/python}
"$SLUICE" serve --port "$port" >/dev/null 2>&1 &
server=$!
trap 'kill -INT $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
i=0; until curl -s -m 1 -o /dev/null "http://127.0.0.1:$port/status.json"; do
  i=$((i + 1)); [ $i -lt 300 ] || { echo "$0: sluice serve did not answer" >&2; exit 90; }; sleep 0.05
done
SLUICE_ROOM_SERVER=http://127.0.0.1:$port SLUICE_ROOM=echo "$@" </dev/null &
run=$!
i=0; until curl -s -m 1 "http://127.0.0.1:$port/status.json" | grep -q '"clients":1'; do
  i=$((i + 1)); [ $i -lt 300 ] || { echo "$0: the measure never joined the room" >&2; exit 91; }; sleep 0.05
done
out=${ECHO_PEER_OUT:-/dev/null}
case $peer in
  chromium | firefox)
    "$python" Tests/Browser/browser_echo.py "http://127.0.0.1:$port" --room echo --seconds 60 --browser "$peer" ${ECHO_PEER_ARGS:-} >"$out" & ;;
  aiortc) "$python" Tests/Interop/aiortc/aiortc_peer.py room-echo "http://127.0.0.1:$port" --room echo --seconds 60 >"$out" & ;;
  *) echo "$0: unknown peer '$peer' (chromium, firefox or aiortc)" >&2; exit 2 ;;
esac
echo_peer=$!
status=0; wait $run || status=$?
if ! wait $echo_peer; then
  echo "$0: the $peer echo peer failed" >&2
  [ "$status" -ne 0 ] || status=92
fi
exit $status
