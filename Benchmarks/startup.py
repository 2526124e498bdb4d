#!/usr/bin/env python3
"""Start-up: time to first frame and the first frame's age, Sluice against aiortc.

Both replay the same pre-rendered 720p frames (Benchmarks/aiortc_compare.py's content) at
30 fps as VP8 at 2.5 Mbit/s between two peers in one process on 127.0.0.1, a fresh process
per run, interleaved, RUNS times (default 7); medians. The clock starts where each side's
run starts (Sluice: the run, before its pipeline is built; aiortc: before its peer
connections are made). Sluice's run also lists its start-up steps; "from the DTLS key" is
the first frame minus the later of "DTLS key made" and "playing": what a process pays once
GStreamer's one-time RSA key exists (a server pays it before its first viewer).
Results: Benchmarks/results-startup.json.
"""
import json, os, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aiortc_compare as ac  # noqa: E402

RUNS = int(os.environ.get("RUNS", "7"))
SECONDS = 3
W, H, CODEC, KBPS = 1280, 720, "vp8", 2500


def sluice(frame_dir):
    fd, path = tempfile.mkstemp(suffix=".json"); os.close(fd)
    env = dict(os.environ, REPLAY_DIR=frame_dir, W=str(W), H=str(H), CODEC=CODEC, BITRATE=str(KBPS))
    p = subprocess.run([ac.SLUICE, "measure", "Benchmarks/aiortc-replay.yaml", "--duration", str(SECONDS), "--json", path, "--quiet"],
                       cwd=ac.ROOT, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"sluice measure failed: {p.stderr[-1500:]}")
    with open(path) as f:
        rep = json.load(f)
    os.unlink(path)
    s = rep["start_up"]
    steps = {x["step"]: x["at_ms"] for x in s.get("steps") or []}
    key = max(steps.get("DTLS key made", 0), steps.get("playing", 0))
    return {"ttff_ms": s["time_to_first_frame_ms"], "first_frame_age_ms": s["first_frame_age_ms"],
            "steady_p50_ms": rep["latency"]["p50_ms"], "steps": steps,
            "from_dtls_key_ms": (steps["first frame"] - key) if "first frame" in steps else None}


def aiortc(frame_dir):
    r = ac.run_aiortc(W, H, CODEC, KBPS, SECONDS, frame_dir)
    return {"ttff_ms": r["time_to_first_frame_ms"], "steady_p50_ms": r["p50_ms"]}


def med(rows, key):
    xs = [r[key] for r in rows if r.get(key) is not None]
    return statistics.median(xs) if xs else None


def main():
    frames = ac.prepare_frames(W, H)
    s_rows, a_rows = [], []
    for i in range(RUNS):
        s_rows.append(sluice(frames))
        a_rows.append(aiortc(frames))
        print(f"run {i + 1}: sluice {s_rows[-1]['ttff_ms']:.0f} ms (age {s_rows[-1]['first_frame_age_ms']:.0f}, "
              f"from key {s_rows[-1]['from_dtls_key_ms']:.0f}), aiortc {a_rows[-1]['ttff_ms']:.0f} ms", flush=True)
    step_names = sorted({k for r in s_rows for k in r["steps"]}, key=lambda k: med([{"v": r["steps"].get(k)} for r in s_rows], "v"))
    out = {
        "runs": RUNS, "content": "720p VP8 2.5 Mbit/s, replayed smpte scroll, loopback in one process",
        "sluice": {"ttff_ms": med(s_rows, "ttff_ms"), "first_frame_age_ms": med(s_rows, "first_frame_age_ms"),
                   "steady_p50_ms": med(s_rows, "steady_p50_ms"), "from_dtls_key_ms": med(s_rows, "from_dtls_key_ms"),
                   "steps_ms": {k: med([{"v": r["steps"].get(k)} for r in s_rows], "v") for k in step_names},
                   "ttff_min_ms": min(r["ttff_ms"] for r in s_rows), "ttff_max_ms": max(r["ttff_ms"] for r in s_rows)},
        "aiortc": {"ttff_ms": med(a_rows, "ttff_ms"), "steady_p50_ms": med(a_rows, "steady_p50_ms"),
                   "ttff_min_ms": min(r["ttff_ms"] for r in a_rows), "ttff_max_ms": max(r["ttff_ms"] for r in a_rows)},
        "all_sluice": s_rows, "all_aiortc": a_rows,
    }
    print(json.dumps({k: v for k, v in out.items() if not k.startswith("all_")}, indent=1))
    with open(os.path.join(ac.ROOT, "Benchmarks/results-startup.json"), "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
