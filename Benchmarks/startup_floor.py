#!/usr/bin/env python3
"""Start-up after GStreamer's one-time DTLS key, against plain webrtcbin on the same graph.

Cold processes, alternating. For each codec (VP8, H.264; 720p30 SMPTE at 2500 kbit/s, the
C comparison's graph) in one run:
  - `sluice run Benchmarks/c-loopback.yaml` and `sluice measure` of it: the first frame minus
    the later of the steps `DTLS key made` and `playing` (the run's start-up steps);
  - the plain C webrtcbin program with Sluice's start-up settings (FAST_START=1: 5 ms
    connectivity checks, no ICE-TCP, 2 ms jitter buffer start) and its key made first
    (WARM_KEY=1): its first decoded frame minus the later of its key and PLAYING. Its
    first keyframe waits at the transport from the first encoded frame on and leaves the
    moment DTLS is up: what webrtcbin itself needs for this graph, nothing of Sluice's around it.
And `sluice run Pipelines/loopback.yaml` (VP8 and Opus; no C twin), issue 50's figure.
RUNS runs (default 5). Results: Benchmarks/results-startup-floor.json.
"""
import json, os, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from load_common import ROOT, SLUICE, write_result  # noqa: E402

RUNS = int(os.environ.get("RUNS", "5"))
CPROG = os.path.join(ROOT, "Benchmarks/c-webrtcbin/webrtc-loopback")
VPX_THREADS = "1" if (os.cpu_count() or 1) <= 2 else "2"  # as c_compare.py and Sluice's preset
STEPS = ("negotiated", "ICE connected", "connected", "keyframe sent", "first RTP received", "first frame")


def from_key(steps):
    """Each step's time after the later of the key and PLAYING; `first frame` is the figure."""
    at = {s["step"]: s["at_ms"] for s in steps}
    zero = max(at.get("DTLS key made", 0), at.get("playing", 0))
    return {k: at[k] - zero for k in STEPS if k in at}


def sluice(mode, file, codec):
    fd, path = tempfile.mkstemp(suffix=".json"); os.close(fd)
    cmd = ([SLUICE, "run", file, "--duration", "1.5", "--quiet", "--report", path] if mode == "run" else
           [SLUICE, "measure", file, "--duration", "3", "--warmup", "1", "--quiet", "--json", path])
    p = subprocess.run(cmd, cwd=ROOT, env=dict(os.environ, CODEC=codec), capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed: {p.stderr[-800:]}")
    with open(path) as f:
        rep = json.load(f)
    os.unlink(path)
    return from_key(rep.get("start_up_steps") or rep["start_up"]["steps"])


def c_program(codec):
    p = subprocess.run([CPROG, codec, "1280", "720", "30", "2500", "2", "smpte", VPX_THREADS], cwd=ROOT,
                       env=dict(os.environ, FAST_START="1", WARM_KEY="1"), capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        sys.exit(f"{CPROG} failed: {p.stderr[-800:]}")
    rep = json.loads(p.stdout.strip().splitlines()[-1])
    return {"first frame": rep["time_to_first_frame_ms"] - max(rep["key_ms"], rep["playing_ms"])}


def cells():
    """(row name, how to measure one run) for every cell of the table."""
    out = []
    for codec, label in (("vp8", "VP8"), ("h264", "H.264")):
        out += [(f"{label} 720p: sluice run", lambda c=codec: sluice("run", "Benchmarks/c-loopback.yaml", c)),
                (f"{label} 720p: sluice measure", lambda c=codec: sluice("measure", "Benchmarks/c-loopback.yaml", c)),
                (f"{label} 720p: plain C, same graph and start-up settings", lambda c=codec: c_program(c))]
    out.append(("Pipelines/loopback.yaml (VP8 + Opus): sluice run", lambda: sluice("run", "Pipelines/loopback.yaml", "vp8")))
    return out


def main():
    table = cells()
    runs = {name: [] for name, _ in table}
    for i in range(RUNS):
        for name, measure in (table if i % 2 == 0 else table[::-1]):
            runs[name].append(measure())
            print(f"run {i + 1} {name}: {runs[name][-1]['first frame']:.0f} ms after the key", flush=True)
    rows = []
    for name, _ in table:
        steps = {k: statistics.median(r[k] for r in runs[name]) for k in STEPS if all(k in r for r in runs[name])}
        rows.append({"cell": name, "first_frame_from_key_ms": steps["first frame"],
                     "range_ms": [min(r["first frame"] for r in runs[name]), max(r["first frame"] for r in runs[name])],
                     "steps_from_key_ms": steps, "runs": runs[name]})
        print(f"{name}: first frame {steps['first frame']:.0f} ms after the key (median of {RUNS})")
    write_result("startup-floor", "Benchmarks/startup-floor.sh", ["RUNS", "SLUICE"],
                 {"figure": "cold process: first decoded frame minus the later of GStreamer's DTLS key and PLAYING",
                  "runs_per_cell": RUNS}, rows)


if __name__ == "__main__":
    main()
