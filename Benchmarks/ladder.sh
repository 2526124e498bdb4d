#!/usr/bin/env bash
# Builds Sluice (release) and runs Benchmarks/ladder.py: a ladder of three renditions served to
# viewers behind different links (root: it makes network namespaces).
#   RUNS=5 Benchmarks/ladder.sh            # 10 viewers, 25 s, medians over RUNS
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product sluice
RATES="${RATES:-4mbit 3.5mbit 3mbit 1.6mbit 1.3mbit 1.2mbit 800kbit 600kbit 450kbit 400kbit}"
for i in $(seq 1 "${RUNS:-5}"); do
  python3 Benchmarks/ladder.py --seconds "${SECONDS_PER_RUN:-25}" $RATES | tail -1
done | python3 -c '
import json, statistics, sys
runs = [json.loads(l) for l in sys.stdin if l.strip()]
right = [r["right_rung"] for r in runs]
print(json.dumps({"runs": runs, "right_rung": right, "median_right_rung": statistics.median(right), "viewers": runs[0]["count"]}))
' | tee Benchmarks/results-ladder.json | python3 -c 'import json,sys; d=json.load(sys.stdin); print("viewers on the right rung per run:", d["right_rung"], "of", d["viewers"])'
