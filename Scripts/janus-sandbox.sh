#!/usr/bin/env bash
# Runs COMMAND beside a throwaway Janus 1.1 (VideoRoom with rooms 1234 and 5678, WebSocket at
# ws://127.0.0.1:8188, HTTP at http://127.0.0.1:8088/janus), then stops Janus and removes its
# files. Both run in a fresh network namespace that reaches nothing outside it: loopback, and
# one end of a veth pair for Janus (it gathers no ICE candidates on a loopback interface).
# Needs root (unshare -n) and Janus (`apt-get install janus`, or Scripts/install.sh testing).
#
#   Scripts/janus-sandbox.sh bash        # a shell beside Janus: run the README's Janus lines in it
#   Scripts/janus-sandbox.sh curl -s http://127.0.0.1:8088/janus/info
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 COMMAND [ARG...]" >&2; exit 2; }
command -v janus >/dev/null || { echo "$0: janus is not installed: apt-get install janus (or Scripts/install.sh testing)" >&2; exit 3; }
[ "$(id -u)" = 0 ] || { echo "$0: needs root, to make a network namespace (unshare -n)" >&2; exit 3; }
if [ -z "${SLUICE_JANUS_SANDBOX:-}" ]; then
    exec env SLUICE_JANUS_SANDBOX=1 unshare -n "$0" "$@"
fi
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d)
ip link set lo up
ip link add sfu0 type veth peer name sfu1
ip addr add 10.55.0.1/24 dev sfu0
ip link set sfu1 up
ip link set sfu0 up
"$root/Tests/Interop/janus/make-config.sh" "$dir" 8088 8188 sfu0
janus -F "$dir" -C "$dir/janus.jcfg" -o > "$dir/janus.log" 2>&1 &
janus=$!
trap 'kill $janus 2>/dev/null; wait $janus 2>/dev/null; rm -rf "$dir"' EXIT
i=0
until curl -s -m 1 -o /dev/null http://127.0.0.1:8088/janus/info; do
    i=$((i + 1))
    if [ $i -ge 300 ] || ! kill -0 $janus 2>/dev/null; then
        echo "$0: Janus did not start; the end of its log:" >&2
        tail -20 "$dir/janus.log" >&2
        exit 3
    fi
    sleep 0.05
done
echo "janus-sandbox: Janus at ws://127.0.0.1:8188 (rooms 1234, 5678); it stops when the command ends" >&2
"$@"
