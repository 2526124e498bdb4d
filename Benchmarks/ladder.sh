#!/usr/bin/env bash
# Builds Sluice (release) unless SLUICE names a binary (Benchmarks/sluice-binary.sh) and runs
# Benchmarks/ladder.py RUNS times: a ladder of three renditions (Benchmarks/ladder-720p.yaml)
# served to 10 viewers behind different links, and in the same run the reference: one adaptive
# encoder shared by the same viewers (Benchmarks/ladder-shared-720p.yaml). Root: it makes
# network namespaces.
#   RUNS=5 SECONDS_PER_RUN=25 Benchmarks/ladder.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/sluice-binary.sh
sluice_binary
RATES="${RATES:-4mbit 3.5mbit 3mbit 1.6mbit 1.3mbit 1.2mbit 800kbit 600kbit 450kbit 400kbit}"
for i in $(seq 1 "${RUNS:-5}"); do
  for p in Benchmarks/ladder-720p.yaml Benchmarks/ladder-shared-720p.yaml; do
    python3 Benchmarks/ladder.py --pipeline "$p" --seconds "${SECONDS_PER_RUN:-25}" $RATES | tail -1
  done
done | python3 -c '
import json, statistics, sys
runs = [json.loads(l) for l in sys.stdin if l.strip()]
ladder = [r for r in runs if "shared" not in r["pipeline"]]
shared = [r for r in runs if "shared" in r["pipeline"]]
def per_viewer(rs, key):  # the median over runs, per viewer
    return [statistics.median(r[key][k] or 0 for r in rs) for k in range(len(rs[0][key]))]
out = {"rates": sys.argv[1].split(), "runs": runs,
       "ladder_right_rung": [r["right_rung"] for r in ladder], "viewers": ladder[0]["count"],
       "ladder_kbps": per_viewer(ladder, "kbps"), "shared_kbps": per_viewer(shared, "kbps"),
       "ladder_heights": per_viewer(ladder, "heights"), "shared_heights": per_viewer(shared, "heights")}
print(json.dumps(out))
' "$RATES" | tee Benchmarks/results-ladder.json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("viewers on the right rung per run:", d["ladder_right_rung"], "of", d["viewers"])
print("link      ladder kbit/s (height)   shared encoder kbit/s (height)   medians of runs")
for rate, lk, lh, sk, sh in zip(d["rates"], d["ladder_kbps"], d["ladder_heights"], d["shared_kbps"], d["shared_heights"]):
    print(f"{rate:>8}  {lk:>8.0f} ({lh:.0f})              {sk:>8.0f} ({sh:.0f})")
'
