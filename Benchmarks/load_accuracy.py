#!/usr/bin/env python3
"""Does `sluice load` measure a viewer as `sluice measure` does?

Each run, sides alternating:
- load: `sluice serve --pipeline Pipelines/serve-stamped-av.yaml`, and one `sluice load
  Pipelines/load-whep-av.yaml --clients 1 --decode all` viewer of it for SECONDS;
- measure: `sluice measure Benchmarks/load-accuracy-measure.yaml --processes 2` (the same
  send section served over WHEP by one process, played by the other) for SECONDS.

Both read the framestamps the sender draws into each picture after capture and the audio
stamps it writes into the sound (a stamp every 400 ms), so glass-to-glass, mouth-to-ear and the
A/V offset (audio minus video for the same capture instant) are the same quantities: capture to decoded picture, through encoder, WHEP, DTLS/SRTP, jitter
buffer and decoder. Time to first frame is not defined the same way by the two: `sluice
measure` counts from its receiving process's start (the pipeline going to playing, and
GStreamer's one-time DTLS key, come first), `sluice load` from its client's request. Both give
the part after the connection: connected to first frame (measure: its `connected` start-up
step; load: the client's `dtls_ms`, the peer connection's `connected`), which is compared.

Medians over RUNS runs of each side's figures, and the median of the per-run differences
(load − measure). Writes Benchmarks/results-load-accuracy.json.
Env: RUNS (5), SECONDS (8), SLUICE.
"""
import json, os, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from load_common import ROOT, SLUICE, start_server, stop

RUNS = int(os.environ.get("RUNS", "5"))
SECONDS = float(os.environ.get("SECONDS", "8"))
PORT = 18630


def run_load():
    server = start_server(PORT, "Pipelines/serve-stamped-av.yaml")
    fd, path = tempfile.mkstemp(suffix=".json"); os.close(fd)
    try:
        subprocess.run([SLUICE, "load", "Pipelines/load-whep-av.yaml", "--clients", "1", "--decode", "all", "--duration", str(SECONDS),
                        "--quiet", "--json", path], cwd=ROOT, check=True, stdout=subprocess.DEVNULL, timeout=SECONDS + 60,
                       env=dict(os.environ, SLUICE_WHEP=f"http://127.0.0.1:{PORT}/whep/serve-stamped-av"))
        c = json.load(open(path))["clients"][0]
    finally:
        stop(server); os.unlink(path)
    audio = c.get("audio") or {}
    return {"p50_ms": c["glass_to_glass_p50_ms"], "p95_ms": c["glass_to_glass_p95_ms"], "samples": c["glass_to_glass_samples"],
            "first_frame_ms": c["time_to_first_frame_ms"], "connected_to_first_frame_ms": c["time_to_first_frame_ms"] - c["dtls_ms"],
            "audio_p50_ms": audio.get("mouth_to_ear_p50_ms"), "audio_p95_ms": audio.get("mouth_to_ear_p95_ms"),
            "av_offset_p50_ms": audio.get("av_offset_p50_ms"), "audio_stamps": audio.get("mouth_to_ear_samples", 0)}


def run_measure():
    fd, path = tempfile.mkstemp(suffix=".json"); os.close(fd)
    try:
        subprocess.run([SLUICE, "measure", "Benchmarks/load-accuracy-measure.yaml", "--processes", "2", "--duration", str(SECONDS),
                        "--quiet", "--json", path], cwd=ROOT, check=True, stdout=subprocess.DEVNULL, timeout=SECONDS + 60)
        m = json.load(open(path))
    finally:
        os.unlink(path)
    steps = {s["step"]: s["at_ms"] for s in m["start_up"]["steps"]}
    audio = m.get("audio") or {}
    return {"p50_ms": m["latency"]["p50_ms"], "p95_ms": m["latency"]["p95_ms"], "samples": m["latency"]["samples"],
            "first_frame_ms": m["time_to_first_frame_ms"], "connected_to_first_frame_ms": steps["first frame"] - steps["connected"],
            "audio_p50_ms": (audio.get("mouth_to_ear") or {}).get("p50_ms"), "audio_p95_ms": (audio.get("mouth_to_ear") or {}).get("p95_ms"),
            "av_offset_p50_ms": (audio.get("av_offset") or {}).get("p50_ms"), "audio_stamps": audio.get("stamps_read", 0)}


def main():
    runs = []
    for i in range(RUNS):
        order = [("load", run_load), ("measure", run_measure)]
        if i % 2:
            order.reverse()
        run = {name: f() for name, f in order}
        runs.append(run)
        print(f"run {i + 1}: " + "; ".join(f"{k} p50 {v['p50_ms']:.1f} p95 {v['p95_ms']:.1f} ms, connected → first frame "
                                           f"{v['connected_to_first_frame_ms']:.1f} ms, mouth-to-ear p50 {v['audio_p50_ms']}, A/V offset "
                                           f"{v['av_offset_p50_ms']}" for k, v in run.items()), flush=True)
    figures = ["p50_ms", "p95_ms", "connected_to_first_frame_ms", "first_frame_ms", "audio_p50_ms", "audio_p95_ms", "av_offset_p50_ms"]
    median = {side: {f: median_of([r[side][f] for r in runs]) for f in figures} for side in ("load", "measure")}
    difference = {f: median_of([r["load"][f] - r["measure"][f] for r in runs if None not in (r["load"][f], r["measure"][f])])
                  for f in figures}
    out = {"how": f"RUNS={RUNS} Benchmarks/load-accuracy.sh", "runs": RUNS, "seconds_per_run": SECONDS,
           "viewer": "640x360 VP8 1000 kbit/s with framestamps and a tone in Opus 32 kbit/s with an audio stamp every "
                     "400 ms, WHEP on loopback", "median": median,
           "median_difference_load_minus_measure": difference, "all_runs": runs}
    with open(os.path.join(ROOT, "Benchmarks/results-load-accuracy.json"), "w") as f:
        json.dump(out, f, indent=1)
    for f in figures:
        print(f"{f}: load {median['load'][f]}, measure {median['measure'][f]}, difference (median of runs) {difference[f]}")


def median_of(values):
    """The median of the values measured (None where a run read no stamp), or None."""
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


if __name__ == "__main__":
    main()
