#!/usr/bin/env python3
"""Latency floor benchmark (issue 5, row 4).

`sluice measure Benchmarks/loopback-h264-video.yaml` (720p30 H.264, realtime preset, WebRTC
loopback in one process) RUNS times: glass-to-glass p50/p99 over the frames after the first
WARMUP seconds, and where the time goes, as `sluice measure` reports it: each stage of a
frame's path (capture → encoder, encode, payload + SRTP, network, SRTP + jitter buffer,
depayload, decode, decoder → reader) and what they leave unaccounted (the mean total minus
the stages' means). Medians over the runs. Targets: p50 < 50 ms, p99 < 100 ms.

Run through Benchmarks/latency-floor.sh (release build, loopback-only namespace).
Env: RUNS (5), SECONDS_PER_RUN (20), WARMUP (2).
"""
import json, os, statistics, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLUICE = os.path.abspath(os.environ.get("SLUICE") or os.path.join(ROOT, ".build/release/sluice"))
RUNS = int(os.environ.get("RUNS", "5"))
SECONDS = float(os.environ.get("SECONDS_PER_RUN", "20"))
WARMUP = float(os.environ.get("WARMUP", "2"))
FILE = "Benchmarks/loopback-h264-video.yaml"


def measure():
    fd, path = tempfile.mkstemp(suffix=".json"); os.close(fd)
    p = subprocess.run([SLUICE, "measure", FILE, "--duration", str(SECONDS), "--warmup", str(WARMUP), "--quiet",
                        "--json", path], cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"sluice measure failed ({p.returncode}): {p.stderr[-800:]}")
    with open(path) as f:
        rep = json.load(f)
    os.unlink(path)
    return rep


def main():
    runs, stage_runs = [], []
    for i in range(RUNS):
        rep = measure()
        lat = rep["latency"]
        stages = {s["stage"]: s for s in rep["stages"]}
        unaccounted = (rep.get("unaccounted") or {}).get("mean_ms")
        row = {"p50_ms": lat["p50_ms"], "p95_ms": lat["p95_ms"], "p99_ms": lat["p99_ms"], "max_ms": lat["max_ms"],
               "mean_ms": lat["mean_ms"], "frames": lat["samples"], "lost": rep["frames"]["lost"],
               "delivered_fps": rep["delivered_fps"], "cpu_cores": rep["cpu_seconds"] / rep["duration_s"],
               "unaccounted_mean_ms": unaccounted}
        runs.append(row)
        stage_runs.append(stages)
        print(f"run {i + 1}: p50 {row['p50_ms']:.1f} ms  p99 {row['p99_ms']:.1f} ms  "
              + "  ".join(f"{k} {v['mean_ms']:.1f}" for k, v in stages.items())
              + (f"  unaccounted {unaccounted:.1f}" if unaccounted is not None else "") + " (means, ms)", flush=True)
    med = {k: statistics.median(r[k] for r in runs if r[k] is not None) for k in runs[0] if any(r[k] is not None for r in runs)}
    # Each stage's mean and p50, medians over the runs, in the path's order; then what they leave.
    names = [n for n in stage_runs[0]]
    stages = [{"stage": n, "mean_ms": statistics.median(s[n]["mean_ms"] for s in stage_runs if n in s),
               "p50_ms": statistics.median(s[n]["p50_ms"] for s in stage_runs if n in s)} for n in names]
    if "unaccounted_mean_ms" in med:
        stages.append({"stage": "unaccounted (latency mean − the stages' means)", "mean_ms": med["unaccounted_mean_ms"], "p50_ms": None})
    result = {"file": FILE, "runs": RUNS, "seconds_per_run": SECONDS, "warmup_s": WARMUP, "machine": os.uname().release,
              "cores": os.cpu_count(), "median": med, "stages": stages, "all": runs,
              "targets_met": {"p50_under_50ms": med["p50_ms"] < 50, "p99_under_100ms": med["p99_ms"] < 100}}
    with open(os.path.join(ROOT, "Benchmarks/results-latency-floor.json"), "w") as f:
        json.dump(result, f, indent=2)
    print("docs/benchmarks.md table: Scripts/bench-tables.py")


if __name__ == "__main__":
    main()
