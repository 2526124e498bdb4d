#!/usr/bin/env bash
# Load test: 20 aiortc viewers that vanish without DELETE (SIGKILL) next to 20 that stay, on
# one served stream; prints when the server reaped the vanished ones, what the staying ones
# received, and the server's open files, threads and RSS before and after. Loopback-only namespace.
set -u
cd "$(dirname "$0")/../../.."
PORT=${PORT:-8443}; SLUICE=${SLUICE:-.build/debug/sluice}; PY=${PYTHON:-.venv/bin/python}; T=$(mktemp -d)
WIDTH=320 HEIGHT=180 FPS=15 "$SLUICE" serve --port $PORT --pipeline Pipelines/serve-av.yaml > $T/serve.log 2>&1 &
S=$!
for i in $(seq 50); do curl -s http://127.0.0.1:$PORT/status.json >/dev/null && break; sleep 0.2; done
res() { echo "fds=$(ls /proc/$S/fd | wc -l) threads=$(ls /proc/$S/task | wc -l) rss=$(awk '/VmRSS/{print $2}' /proc/$S/status)"; }
echo "BASE $(res)"
"$PY" Tests/Interop/aiortc/aiortc_peer.py whep-crowd http://127.0.0.1:$PORT/whep/serve-av --viewers 20 --no-delete --timeout 40 > $T/vanish.out &
V=$!
for i in $(seq 400); do grep -q connected $T/vanish.out && break; sleep 0.1; done
echo "VANISHERS $(cat $T/vanish.out) $(curl -s http://127.0.0.1:$PORT/streams.json)"
"$PY" Tests/Interop/aiortc/aiortc_peer.py whep-crowd http://127.0.0.1:$PORT/whep/serve-av --viewers 20 --decode 3 --seconds 14 --timeout 40 > $T/stay.out &
P=$!
# Both crowds attached (bounded wait), then the first vanishes at once.
for i in $(seq 300); do curl -s http://127.0.0.1:$PORT/streams.json | grep -q '"viewers":40' && break; sleep 0.1; done
kill -9 $V; T0=$(date +%s.%N)
for i in $(seq 150); do curl -s http://127.0.0.1:$PORT/streams.json | grep -q '"viewers":20' && break; sleep 0.1; done
echo "REAPED_AFTER $(awk "BEGIN{print $(date +%s.%N) - $T0}") s $(curl -s http://127.0.0.1:$PORT/streams.json)"
wait $P; echo "STAYERS_DONE_AFTER $(awk "BEGIN{print $(date +%s.%N) - $T0}") s (their last second ends here)"
echo "STAYERS $(cat $T/stay.out)"
sleep 1; echo "END $(curl -s http://127.0.0.1:$PORT/streams.json)"; echo "AFTER $(res)"
kill $S; wait $S
rm -rf "$T"
