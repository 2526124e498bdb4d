#!/usr/bin/env bash
# Load test: WHEP viewers and WHIP publishers created and DELETEd one after another (real
# aiortc offers, POSTed with curl); prints the server's open files, threads and RSS before and
# after (BASE/AFTER lines) and the DELETE status codes. Run inside a loopback-only namespace.
# N cycles of each kind (default 50); KINDS="whep whip".
set -u
cd "$(dirname "$0")/../../.."
PORT=${PORT:-8443}; SLUICE=${SLUICE:-.build/debug/sluice}; PY=${PYTHON:-.venv/bin/python}; T=$(mktemp -d)
"$SLUICE" serve --port $PORT --pipeline Pipelines/serve-av.yaml --receive Pipelines/server.yaml > $T/serve.log 2>&1 &
S=$!
for i in $(seq 50); do curl -s http://127.0.0.1:$PORT/status.json >/dev/null && break; sleep 0.2; done
"$PY" Tests/Interop/load/offers.py whep > $T/whep.sdp
"$PY" Tests/Interop/load/offers.py whip > $T/whip.sdp
res() { echo "fds=$(ls /proc/$S/fd | wc -l) threads=$(ls /proc/$S/task | wc -l) rss=$(awk '/VmRSS/{print $2}' /proc/$S/status)"; }
# warm up: one cycle each
for kind in whep whip; do
  loc=$(curl -s -D - -o /dev/null -X POST -H 'Content-Type: application/sdp' --data-binary @$T/$kind.sdp http://127.0.0.1:$PORT/$kind/$( [ $kind = whep ] && echo serve-av || echo server) | awk 'tolower($1)=="location:"{print $2}' | tr -d '\r')
  curl -s -o /dev/null -X DELETE http://127.0.0.1:$PORT$loc
done
sleep 2; echo "BASE $(res)"
for n in $(seq ${N:-50}); do
  for kind in ${KINDS:-whep whip}; do
    loc=$(curl -s -D - -o /dev/null -X POST -H 'Content-Type: application/sdp' --data-binary @$T/$kind.sdp http://127.0.0.1:$PORT/$kind/$( [ $kind = whep ] && echo serve-av || echo server) | awk 'tolower($1)=="location:"{print $2}' | tr -d '\r')
    [ -n "$loc" ] || echo "no location for $kind"
    curl -s -o /dev/null -w "%{http_code} " -X DELETE http://127.0.0.1:$PORT$loc >> $T/del.codes
  done
done
sleep 2; echo "AFTER $(res)"; sort $T/del.codes | uniq -c | head; rm -f $T/del.codes
curl -s http://127.0.0.1:$PORT/streams.json; echo
kill $S; wait $S
rm -rf "$T"
