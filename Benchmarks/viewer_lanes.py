#!/usr/bin/env python3
"""What viewer lanes save `sluice serve` (`FanoutLanes`, `--viewer-lanes`).

The fan-out of Benchmarks/load_fanout.py (one 720p30 H.264 encoder, `sluice serve --pipeline
Benchmarks/fanout-720p-h264.yaml`, N viewers in one `sluice load --decode none` process),
run in alternating pairs: once with a thread per viewer (`--viewer-lanes 0`, how Sluice
served before lanes) and once with the default lanes (four per core). Per run: the server's
CPU over a steady window, per viewer-second over what it used with nobody watching, the load
process's CPU, and the slowest and median viewer's frame rate. The result is the median of
each mode and the median of the pairs' ratios (lanes ÷ own threads): the machine is noisy,
and a pair runs minutes apart at most.

Run through Benchmarks/viewer-lanes.sh (loopback-only namespace).
Env: RUNS (3), VIEWERS (80), WARMUP (10), WINDOW (8), RAMP (20), SLUICE.
"""
import os, statistics, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import load_fanout
from load_common import write_result

RUNS = int(os.environ.get("RUNS", "3"))
VIEWERS = int(os.environ.get("VIEWERS", "80"))
MODES = {"own_threads": ["--viewer-lanes", "0"], "lanes": []}
FIELDS = ("server_cores", "server_added_ms_per_viewer_s", "load_cores", "min_fps", "median_fps", "machine_cores", "other_cores")


def main():
    runs = {mode: [] for mode in MODES}
    for i in range(RUNS):
        order = list(MODES) if i % 2 == 0 else list(reversed(MODES))
        for mode in order:
            r = load_fanout.one_run(VIEWERS, MODES[mode])
            runs[mode].append({k: r[k] for k in FIELDS})
            print(f"run {i + 1} {mode:11s} server {r['server_cores']:.3f} cores ({r['server_added_ms_per_viewer_s']:.2f} ms per "
                  f"viewer-s over alone)  load {r['load_cores']:.3f}  slowest {r['min_fps']:.1f} fps", flush=True)
    medians = {mode: {k: statistics.median(r[k] for r in rs) for k in FIELDS} for mode, rs in runs.items()}
    ratio = {k: statistics.median(l[k] / o[k] for l, o in zip(runs["lanes"], runs["own_threads"]) if o[k])
             for k in ("server_cores", "server_added_ms_per_viewer_s")}
    fields = {"viewers": VIEWERS, "runs": RUNS, "warmup_s": load_fanout.WARMUP, "window_s": load_fanout.WINDOW,
              "ramp_per_s": load_fanout.RAMP, "lanes_default": 4 * os.cpu_count(),
              "stream": "sluice serve Benchmarks/fanout-720p-h264.yaml: 1280x720 30 fps H.264, one encoder, video only",
              "medians": medians, "pair_ratio_lanes_over_own": ratio, "runs_by_mode": runs}
    write_result("viewer-lanes", "Benchmarks/viewer-lanes.sh", ("RUNS", "VIEWERS", "WARMUP", "WINDOW", "RAMP", "SLUICE"), fields, [])
    print(f"lanes / own threads, median of pairs: server {ratio['server_cores']:.3f}, "
          f"per viewer-second over alone {ratio['server_added_ms_per_viewer_s']:.3f}")


if __name__ == "__main__":
    main()
