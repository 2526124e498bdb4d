#!/usr/bin/env bash
# The floor under a viewer's cost (issue 28's 5%): what one sendto() of a 1200-byte datagram
# costs the sending thread on loopback, nothing else (Benchmarks/send-floor/send_floor.c,
# built with gcc), in a loopback-only network namespace. Writes Benchmarks/results-send-floor.json.
#   Benchmarks/send-floor.sh
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(mktemp -d)/send-floor"
gcc -O2 -Wall -pthread -o "$bin" Benchmarks/send-floor/send_floor.c
result="$(unshare -n sh -c "ip link set lo up && exec '$bin'")"
python3 - "$result" <<'PY'
import json, os, sys, time
floor = json.loads(sys.argv[1])
floor.update({"machine": os.uname().release, "cores": os.cpu_count(), "how": "Benchmarks/send-floor.sh",
              "recorded_at": time.strftime("%Y-%m-%d")})
with open("Benchmarks/results-send-floor.json", "w") as f:
    json.dump(floor, f, indent=2)
print(f"one sendto() of {floor['bytes']} bytes on loopback: {floor['median_us']:.2f} µs of the sender's CPU (runs: {floor['runs_us']})")
PY
