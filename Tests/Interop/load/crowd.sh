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
# The staying viewers: 3 that decode pictures in a process of their own, 17 that count what
# arrives in another, both ahead of other work on the machine (nice -10). Decoding in the
# same event loop as 17 others, on two busy cores, measured aiortc's lag: late
# retransmissions and keyframes, decoders waiting, while the server kept sending.
crowd() { nice -n -10 "$PY" Tests/Interop/aiortc/aiortc_peer.py whep-crowd http://127.0.0.1:$PORT/whep/serve-av --seconds 14 --timeout 40 "$@"; }
crowd --viewers 3 --decode 3 > $T/decoders.out &
D=$!
crowd --viewers 17 --decode 0 > $T/counters.out &
P=$!
# Both crowds attached (bounded wait), then the first vanishes at once.
for i in $(seq 300); do curl -s http://127.0.0.1:$PORT/streams.json | grep -q '"viewers":40' && break; sleep 0.1; done
kill -9 $V; T0=$(date +%s.%N)
for i in $(seq 150); do curl -s http://127.0.0.1:$PORT/streams.json | grep -q '"viewers":20' && break; sleep 0.1; done
echo "REAPED_AFTER $(awk "BEGIN{print $(date +%s.%N) - $T0}") s $(curl -s http://127.0.0.1:$PORT/streams.json)"
wait $D; wait $P; echo "STAYERS_DONE_AFTER $(awk "BEGIN{print $(date +%s.%N) - $T0}") s (their last second ends here)"
# One report for the 20: the decoders' figures first, as if one crowd of 20 with --decode 3.
echo "STAYERS $("$PY" Tests/Interop/load/merge_crowds.py $T/decoders.out $T/counters.out)"
sleep 1; echo "END $(curl -s http://127.0.0.1:$PORT/streams.json)"; echo "AFTER $(res)"
kill $S; wait $S
rm -rf "$T"
