#!/usr/bin/env python3
"""Passthrough latency benchmark (issue 28): glass-to-glass from an RTSP camera to a WHEP
viewer, passed through against decoded and encoded again, in the same run.

The camera (Tests/Interop/rtsp/server.py --stamp: gst-rtsp-server, x264enc zerolatency,
1280x720 30 fps, GOP 60) writes Sluice's framestamp (its CLOCK_MONOTONIC capture time) into
every frame before encoding. `sluice serve` serves it as it is
(Benchmarks/rtsp-passthrough-720p.yaml) or decoded and encoded again
(Benchmarks/rtsp-transcode-720p.yaml); one viewer (`sluice load Pipelines/load-whep.yaml
--clients 1 --decode all`) decodes it and reads each stamp back on the same clock. Both
paths share the camera's encode, RTSP (TCP, rtspsrc latency 50 ms), WebRTC and the viewer's
decode; the transcoded one adds a decode and an encode in the server. The two modes
alternate, RUNS times; the table gives medians of each run's p50 and p95 and the median of
the per-run differences.

Env: RUNS (5), SECONDS_PER_RUN (10), WARMUP (2: seconds the server runs before the viewer).
"""
import json, os, statistics, subprocess, sys, tempfile, time

from load_common import ROOT, SLUICE, start_server, stop

RUNS = int(os.environ.get("RUNS", "5"))
SECONDS = float(os.environ.get("SECONDS_PER_RUN", "10"))
WARMUP = float(os.environ.get("WARMUP", "2"))
CAMERA_PORT, PORT = 18690, 18691
MODES = {"passthrough": "Benchmarks/rtsp-passthrough-720p.yaml", "transcoded": "Benchmarks/rtsp-transcode-720p.yaml"}


def one_run(mode):
    """The viewer's glass-to-glass p50 and p95 (ms) and frame rate through `mode`."""
    server = start_server(PORT, MODES[mode], env={"RTSP_URL": f"rtsp://127.0.0.1:{CAMERA_PORT}/cam"})
    report = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
    try:
        time.sleep(WARMUP)
        env = dict(os.environ, SLUICE_WHEP=f"http://127.0.0.1:{PORT}/whep/camera")
        viewer = subprocess.run([SLUICE, "load", "Pipelines/load-whep.yaml", "--clients", "1", "--duration", str(SECONDS),
                                 "--decode", "all", "--quiet", "--json", report], cwd=ROOT, env=env,
                                capture_output=True, text=True, timeout=SECONDS + 60)
        if viewer.returncode != 0:
            sys.exit(f"the viewer failed ({viewer.returncode}): {viewer.stderr[-600:]}")
        client = json.load(open(report))["clients"][0]
        if client.get("glass_to_glass_p50_ms") is None:
            sys.exit(f"{mode}: the viewer read no stamp: {client}")
        return {"p50_ms": client["glass_to_glass_p50_ms"], "p95_ms": client["glass_to_glass_p95_ms"], "fps": client["fps"]}
    finally:
        stop(server)
        os.unlink(report)


def main():
    camera = subprocess.Popen(["/usr/bin/python3", "Tests/Interop/rtsp/server.py", "--port", str(CAMERA_PORT), "--stamp",
                               "--size", "1280x720", "--fps", "30", "--gop", "60", "--pattern", "ball"], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True)
    try:
        if not camera.stdout.readline().startswith("READY"):
            sys.exit("the RTSP camera did not start")
        runs = {m: [] for m in MODES}
        for i in range(RUNS):
            for mode in MODES:  # alternating: both modes see the same machine
                r = one_run(mode)
                runs[mode].append(r)
                print(f"run {i + 1} {mode:11s}: p50 {r['p50_ms']:.1f} ms, p95 {r['p95_ms']:.1f} ms, {r['fps']:.1f} fps", flush=True)
    finally:
        stop(camera)
    median = {m: {k: statistics.median(r[k] for r in rs) for k in ("p50_ms", "p95_ms", "fps")} for m, rs in runs.items()}
    saved = {k: statistics.median(t[k] - p[k] for p, t in zip(runs["passthrough"], runs["transcoded"])) for k in ("p50_ms", "p95_ms")}
    result = {"machine": os.uname().release, "cores": os.cpu_count(), "runs": RUNS, "seconds_per_run": SECONDS,
              "camera": "1280x720 30 fps H.264 (x264enc zerolatency, GOP 60) with framestamps, RTSP over TCP",
              "viewer": "sluice load, 1 client decoding (avdec_h264) and reading the stamps",
              "runs_by_mode": runs, "median": median, "median_transcoded_minus_passthrough": saved}
    print(json.dumps({"median": median, "transcoded_minus_passthrough": saved}))
    with open(os.path.join(ROOT, "Benchmarks/results-passthrough-latency.json"), "w") as f:
        json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
