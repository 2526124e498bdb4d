"""Joins the JSON lines of two `aiortc_peer.py whep-crowd` runs into one, as if they were one
crowd: per-viewer lists are concatenated (the first file's viewers first), counts added.
Per-decoder lists come from the viewers that decode, per-counter lists from those that
do not, so each list keeps its meaning. A file that is not a crowd report is an error."""
import json
import sys

PER_VIEWER = ["packets_last_2s", "packets", "seq_missing", "max_gap_ms"]
PER_DECODER = ["frames_last_2s", "frames"]
PER_COUNTER = ["encoded_frames", "pli_answered_ms", "pli_unanswered"]


def report(path):
    lines = [line for line in open(path).read().splitlines() if line.startswith("{")]
    if not lines:
        sys.exit(f"{path}: no crowd report (the crowd printed: {open(path).read()[-500:]!r})")
    return json.loads(lines[-1])


parts = [report(p) for p in sys.argv[1:]]
merged = {"viewers": sum(p["viewers"] for p in parts), "decoding": sum(p["decoding"] for p in parts)}
for key in PER_DECODER + PER_COUNTER + PER_VIEWER:
    merged[key] = [x for p in parts for x in p[key]]
print(json.dumps(merged))
