#!/usr/bin/env python3
"""Audio mouth-to-ear and A/V offset beside video glass-to-glass (issue 46).

`sluice measure Pipelines/loopback.yaml` (720p30 VP8 2000 kbit/s, a 440 Hz tone in Opus
64 kbit/s, an audio stamp every 400 ms) RUNS times in each of these set-ups:
  one process        send and receive in one process (loopback)
  …, lip-sync        the same with `receive.playout: lip-sync` (0 ± 5 ms expected, and with
                     sound held back 80 ms too: the picture waits for it)
  two processes      --processes 2: two network namespaces joined by a veth pair
  two processes, 40 ms  the same with `--netem "delay 40ms"` on the sender's side: what the
                     link adds shows in both media (the accuracy check)
  Janus EchoTest     Pipelines/janus-echo.yaml (640x360 VP8 800 kbit/s, Opus 32 kbit/s)
                     through a throwaway Janus (Scripts/janus-sandbox.sh): the round trip
                     (skipped, and said so, when janus is not installed)
  Chromium echo      Pipelines/room-echo.yaml --round-trip (640x360 VP8, Opus 32 kbit/s) with
                     headless Chromium sending back what it receives (Benchmarks/room-echo-peer.sh):
                     the round trip through its jitter buffers, NetEq, decoders and encoders
  Firefox echo       the same through headless Firefox ESR (marionette-driver)
  aiortc echo        the same through aiortc's MediaRelay
Per set-up, medians over the runs of: video glass-to-glass p50/p95, audio mouth-to-ear
p50/p95/p99, the A/V offset p50 (audio minus video for the same capture instant, positive:
audio late), stamps read, and the means of the audio path's encode stage and of what its
stages leave unaccounted. Written to Benchmarks/results-audio-measure.json.

Run through Benchmarks/audio-measure.sh (release build, root). Env: RUNS (3), SECONDS_PER_RUN (10), ONLY (above).
"""
import json, os, shutil, statistics, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench_common import ROOT, SLUICE, settings_given  # noqa: E402

RUNS = int(os.environ.get("RUNS", "3"))
# ONLY="one process;one process, audio held 80 ms" (set-up names, separated by semicolons)
# measures only those and puts their rows into the recorded results.
ONLY = [n.strip() for n in os.environ.get("ONLY", "").split(";") if n.strip()]
SECONDS = float(os.environ.get("SECONDS_PER_RUN", "10"))
STAMPS = ["--set", "send.audio.filters=[{filter: audiostamp, interval_ms: 400}]"]
# The accuracy check of the A/V offset: a queue after the stamps that lets sound go only once
# it holds 90 ms of the test source's 10 ms buffers holds each 80 ms (a queue counts a
# buffer's end), so the offset must read 80 ms more than "one process".
HELD = ["--set", "send.audio.filters=[{filter: audiostamp, interval_ms: 400}, {gst: \"queue min-threshold-time=90000000 "
        "max-size-time=0 max-size-buffers=0 max-size-bytes=0\"}]"]
# `receive.playout: lip-sync`: sound and picture played together, the readers after the wait.
LIPS = ["--set", "receive.playout=lip-sync"]
SETUPS = [
    ("one process", [], "Pipelines/loopback.yaml", []),
    ("one process, audio held 80 ms", [], "Pipelines/loopback.yaml", HELD),
    ("one process, lip-sync", [], "Pipelines/loopback.yaml", STAMPS + LIPS),
    ("one process, lip-sync, audio held 80 ms", [], "Pipelines/loopback.yaml", HELD + LIPS),
    ("two processes", [], "Pipelines/loopback.yaml", ["--processes", "2"]),
    ("two processes, 40 ms", [], "Pipelines/loopback.yaml", ["--processes", "2", "--netem", "delay 40ms"]),
    ("Janus EchoTest", ["Scripts/janus-sandbox.sh"], "Pipelines/janus-echo.yaml", []),
    ("Chromium echo", ["Benchmarks/room-echo-peer.sh", "chromium"], "Pipelines/room-echo.yaml", ["--round-trip", "--warmup", "3"]),
    ("Firefox echo", ["Benchmarks/room-echo-peer.sh", "firefox"], "Pipelines/room-echo.yaml", ["--round-trip", "--warmup", "3"]),
    ("aiortc echo", ["Benchmarks/room-echo-peer.sh", "aiortc"], "Pipelines/room-echo.yaml", ["--round-trip", "--warmup", "3"]),
]


def measure(prefix, file, extra):
    fd, path = tempfile.mkstemp(suffix=".json"); os.close(fd)
    warmup = [] if "--warmup" in extra else ["--warmup", "1"]
    stamps = [] if "--set" in extra else STAMPS
    cmd = prefix + [SLUICE, "measure", file, "--duration", str(SECONDS), "--quiet", "--json", path] + warmup + stamps + extra
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=SECONDS + 120)
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr[-800:]}")
    with open(path) as f:
        rep = json.load(f)
    os.unlink(path)
    audio = rep.get("audio") or {}
    m2e, offset = audio.get("mouth_to_ear") or {}, audio.get("av_offset") or {}
    return {"video_p50_ms": rep["latency"]["p50_ms"], "video_p95_ms": rep["latency"]["p95_ms"],
            "audio_p50_ms": m2e.get("p50_ms"), "audio_p95_ms": m2e.get("p95_ms"), "audio_p99_ms": m2e.get("p99_ms"),
            "av_offset_p50_ms": offset.get("p50_ms"), "stamps_read": audio.get("stamps_read", 0),
            "audio_encode_mean_ms": stage_mean(audio, "encode"),
            "audio_unaccounted_mean_ms": (audio.get("unaccounted") or {}).get("mean_ms"),
            "note": audio.get("note")}


def stage_mean(figures, name):
    """The mean of one of the audio path's stages (`audio.stages`), or None."""
    return next((s["mean_ms"] for s in figures.get("stages") or [] if s["stage"] == name), None)


def median(rows, key):
    values = [r[key] for r in rows if r.get(key) is not None]
    return statistics.median(values) if values else None


def main():
    results = []
    for name, prefix, file, extra in SETUPS:
        if ONLY and name not in ONLY:
            continue
        missing = {"Scripts/janus-sandbox.sh": "janus", "chromium": "chromium", "firefox": "firefox-esr"}.get(prefix[-1] if prefix else "")
        if missing and not shutil.which(missing):
            print(f"{name}: skipped, {missing} is not installed", flush=True)
            continue
        rows = [measure(prefix, file, extra) for _ in range(RUNS)]
        med = {k: median(rows, k) for k in rows[0] if k != "note"}
        results.append({"setup": name, "file": file, "arguments": extra, "median": med, "all": rows})
        print(f"{name}: video p50 {med['video_p50_ms']:.1f} ms, audio p50 {med['audio_p50_ms'] or 0:.1f} ms "
              f"p95 {med['audio_p95_ms'] or 0:.1f} ms, A/V offset p50 {med['av_offset_p50_ms'] or 0:.1f} ms "
              f"({med['stamps_read']:.0f} stamps)", flush=True)
    how = " ".join(x for x in [settings_given(["RUNS", "SECONDS_PER_RUN", "SLUICE"]), "Benchmarks/audio-measure.sh"] if x)
    out = {"how": how, "runs": RUNS, "seconds_per_run": SECONDS, "machine": os.uname().release,
           "cores": os.cpu_count(), "stamps": "every 400 ms", "results": results}
    path = os.path.join(HERE, "results-audio-measure.json")
    if ONLY and os.path.exists(path):
        out = merged(path, results, how)
    with open(path, "w") as f:
        json.dump(out, f, indent=2)
    print("docs/benchmarks.md table: Scripts/bench-tables.py")


def merged(path, results, how):
    """The recorded results with these set-ups' rows put in (in SETUPS order), noting which
    rows came from which command."""
    with open(path) as f:
        out = json.load(f)
    rows = {r["setup"]: r for r in out["results"]}
    for r in results:
        r["how"] = f"ONLY='{r['setup']}' {how}"
        rows[r["setup"]] = r
    out["results"] = [rows[name] for name, *_ in SETUPS if name in rows]
    return out


if __name__ == "__main__":
    main()
