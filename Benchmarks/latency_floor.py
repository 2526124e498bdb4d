#!/usr/bin/env python3
"""Latency floor benchmark (issue 5, row 4).

`sluice measure Benchmarks/loopback-h264-video.yaml` (720p30 H.264, realtime preset, WebRTC
loopback in one process) RUNS times: glass-to-glass p50/p99 over the frames after the first
WARMUP seconds, and where the time goes, as Sluice measures it with pad probes: encoder
residence (frame in → encoded frame out), jitter-buffer residence per RTP packet, decoder
residence; the rest (payloading, SRTP, ICE over loopback, depayloading, conversion) is the
mean total minus the measured means. Medians over the runs. Targets: p50 < 50 ms, p99 < 100 ms.

Run through Benchmarks/latency-floor.sh (release build, loopback-only namespace).
Env: RUNS (5), SECONDS_PER_RUN (20), WARMUP (2).
"""
import json, os, statistics, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLUICE = os.path.join(ROOT, ".build/release/sluice")
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
    runs = []
    for i in range(RUNS):
        rep = measure()
        stages = {s["stage"]: s for s in rep["stages"]}
        lat = rep["latency"]
        mean_total = lat["mean_ms"]
        parts = {k: stages[k]["mean_ms"] for k in ("encode", "jitter buffer", "decode") if k in stages}
        row = {"p50_ms": lat["p50_ms"], "p95_ms": lat["p95_ms"], "p99_ms": lat["p99_ms"], "max_ms": lat["max_ms"],
               "mean_ms": mean_total, "frames": lat["samples"], "lost": rep["frames"]["lost"],
               "delivered_fps": rep["delivered_fps"], "cpu_cores": rep["cpu_seconds"] / rep["duration_s"],
               **{f"{k}_mean_ms": v for k, v in parts.items()},
               **{f"{k}_p50_ms": stages[k]["p50_ms"] for k in parts},
               "rest_mean_ms": mean_total - sum(parts.values())}
        runs.append(row)
        print(f"run {i + 1}: p50 {row['p50_ms']:.1f} ms  p99 {row['p99_ms']:.1f} ms  "
              + "  ".join(f"{k} {v:.1f}" for k, v in parts.items()) + f"  rest {row['rest_mean_ms']:.1f} (means, ms)", flush=True)
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    result = {"file": FILE, "runs": RUNS, "seconds_per_run": SECONDS, "warmup_s": WARMUP, "machine": os.uname().release,
              "cores": os.cpu_count(), "median": med, "all": runs,
              "targets_met": {"p50_under_50ms": med["p50_ms"] < 50, "p99_under_100ms": med["p99_ms"] < 100}}
    with open(os.path.join(ROOT, "Benchmarks/results-latency-floor.json"), "w") as f:
        json.dump(result, f, indent=2)
    print("\n| figure (median of %d runs, %g s each, first %g s left out) | value |" % (RUNS, SECONDS, WARMUP))
    print("|---|---|")
    for k in ["p50_ms", "p95_ms", "p99_ms", "max_ms", "mean_ms", "encode_mean_ms", "jitter buffer_mean_ms",
              "decode_mean_ms", "rest_mean_ms", "encode_p50_ms", "jitter buffer_p50_ms", "decode_p50_ms",
              "delivered_fps", "lost", "cpu_cores"]:
        if k in med:
            print(f"| {k.replace('_', ' ')} | {med[k]:.2f} |")


if __name__ == "__main__":
    main()
