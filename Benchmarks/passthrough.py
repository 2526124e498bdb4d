#!/usr/bin/env python3
"""Passthrough benchmark (issue 28): what serving an RTSP camera costs without transcoding.

One 720p30 H.264 camera (Tests/Interop/rtsp/server.py: gst-rtsp-server with x264enc, its own
process, not counted) is served by `sluice serve` with `encode: none`
(Benchmarks/rtsp-passthrough-720p.yaml) and, in the same run, decoded and encoded again
(Benchmarks/rtsp-transcode-720p.yaml), to 0 and to VIEWERS WHEP viewers (`sluice run
Benchmarks/fanout-viewer.yaml`: webrtcbin, no decoding; their CPU is not counted). For each
it reports the server's CPU in cores over the steady seconds and the slowest viewer's steady
frame rate; the two modes alternate, RUNS times, and the table gives medians and the
passthrough ÷ transcoded ratio of the same run.

Env: RUNS (3), SECONDS_PER_RUN (20), VIEWERS (10), STEADY_FROM (10: viewers still starting cost more).
"""
import json, os, statistics, subprocess, sys, time

from load_common import ROOT, SLUICE, cpu_of, start_server, steady_fps, stop
RUNS = int(os.environ.get("RUNS", "3"))
SECONDS = float(os.environ.get("SECONDS_PER_RUN", "20"))
VIEWERS = int(os.environ.get("VIEWERS", "10"))
STEADY_FROM = float(os.environ.get("STEADY_FROM", "10"))
CAMERA_PORT, PORT = 18690, 18691
MODES = {"passthrough": "Benchmarks/rtsp-passthrough-720p.yaml", "transcoded": "Benchmarks/rtsp-transcode-720p.yaml"}



def one_run(mode, viewers):
    server = start_server(PORT, MODES[mode], env={"RTSP_URL": f"rtsp://127.0.0.1:{CAMERA_PORT}/cam"})
    try:
        env = dict(os.environ, SLUICE_WHEP=f"http://127.0.0.1:{PORT}/whep/camera")
        procs = [subprocess.Popen([SLUICE, "run", "Benchmarks/fanout-viewer.yaml", "--duration", str(SECONDS)], cwd=ROOT,
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(viewers)]
        time.sleep(STEADY_FROM)  # the measured window starts once every viewer is up
        cpu0, t0 = cpu_of(server.pid), time.monotonic()
        if viewers == 0: time.sleep(SECONDS - STEADY_FROM)
        outputs = []
        for p in procs:
            out, err = p.communicate(timeout=SECONDS + 60)
            if p.returncode != 0: sys.exit(f"a viewer failed ({p.returncode}): {err.decode(errors='replace')[-600:]}")
            outputs.append(out.decode(errors="replace"))
        cpu1, t1 = cpu_of(server.pid), time.monotonic()
        fps = [steady_fps(o, STEADY_FROM) for o in outputs]
        return {"server_cpu_cores": (cpu1 - cpu0) / (t1 - t0), "min_fps": min(fps) if fps else None}
    finally:
        stop(server)


def main():
    camera = subprocess.Popen(["/usr/bin/python3", "Tests/Interop/rtsp/server.py", "--port", str(CAMERA_PORT),
                               "--size", "1280x720", "--fps", "30", "--gop", "60", "--pattern", "ball"], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True)
    try:
        if not camera.stdout.readline().startswith("READY"): sys.exit("the RTSP camera did not start")
        rows = []
        for viewers in (0, VIEWERS):
            runs = {m: [] for m in MODES}
            for _ in range(RUNS):
                for mode in MODES:  # alternating: both modes see the same machine
                    runs[mode].append(one_run(mode, viewers))
            pairs = [p["server_cpu_cores"] / t["server_cpu_cores"] for p, t in zip(runs["passthrough"], runs["transcoded"])]
            row = {"viewers": viewers, "ratio": statistics.median(pairs)}
            for mode, rs in runs.items():
                row[mode] = {"server_cpu_cores": statistics.median(r["server_cpu_cores"] for r in rs),
                             "min_fps": statistics.median(r["min_fps"] for r in rs) if viewers else None}
            rows.append(row)
            print(f"{viewers:2d} viewers: passthrough {row['passthrough']['server_cpu_cores']:.3f} cores, "
                  f"transcoded {row['transcoded']['server_cpu_cores']:.3f} cores, ratio {row['ratio']:.3f}"
                  + (f"; slowest viewer {row['passthrough']['min_fps']:.1f} / {row['transcoded']['min_fps']:.1f} fps"
                     if viewers else ""), flush=True)
    finally:
        stop(camera)
    result = {"machine": os.uname().release, "cores": os.cpu_count(), "runs": RUNS, "seconds_per_run": SECONDS,
              "steady_from": STEADY_FROM, "camera": "1280x720 30 fps H.264 (x264enc, GOP 60), RTSP over TCP", "rows": rows}
    with open(os.path.join(ROOT, "Benchmarks/results-passthrough.json"), "w") as f:
        json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
