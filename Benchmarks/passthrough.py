#!/usr/bin/env python3
"""Passthrough benchmark (issue 28): what serving an RTSP camera costs without transcoding.

One 720p30 H.264 camera (Benchmarks/rtsp_cameras.py: a loop of scrolling SMPTE bars x264enc
encoded once at start at KBPS, GOP 60, played at 30 fps by gst-rtsp-server over TCP; its own
process, not counted) is served by `sluice serve` with `encode: none`
(Benchmarks/rtsp-passthrough-720p.yaml) and, in the same run, decoded and encoded again
(Benchmarks/rtsp-transcode-720p.yaml), to 0 and to VIEWERS WHEP viewers (`sluice run
Benchmarks/fanout-viewer.yaml`: webrtcbin, no decoding; their CPU is not counted). For each
it reports the server's CPU in cores over the steady seconds and the slowest viewer's steady
frame rate; the two modes alternate, RUNS times, and the table gives medians and the
passthrough ÷ transcoded ratio of the same run. With no viewer a third mode, the floor, reads
the same camera without Sluice (`gst-launch-1.0 rtspsrc ! rtph264depay ! h264parse !
fakesink`, what the passthrough capture runs): no passthrough server can take the camera in
for less, and viewers add the same cost to both modes, so floor ÷ transcoded bounds the ratio
from below for any number of viewers.

Env: RUNS (3), SECONDS_PER_RUN (20), VIEWERS (10), STEADY_FROM (10: viewers still starting cost more), KBPS (1500).
"""
import json, os, statistics, subprocess, sys, time

from load_common import ROOT, SLUICE, cpu_of, reader_cpu, rtsp_reader, start_server, steady_fps, stop
RUNS = int(os.environ.get("RUNS", "3"))
SECONDS = float(os.environ.get("SECONDS_PER_RUN", "20"))
VIEWERS = int(os.environ.get("VIEWERS", "10"))
STEADY_FROM = float(os.environ.get("STEADY_FROM", "10"))
KBPS = int(os.environ.get("KBPS", "1500"))
CAMERA_PORT, PORT = 18690, 18691
CAMERA_URL = f"rtsp://127.0.0.1:{CAMERA_PORT}/cam-0"
MODES = {"passthrough": "Benchmarks/rtsp-passthrough-720p.yaml", "transcoded": "Benchmarks/rtsp-transcode-720p.yaml"}



def one_run(mode, viewers):
    if mode == "floor":
        return {"server_cpu_cores": reader_cpu(rtsp_reader("gst-launch", CAMERA_URL), STEADY_FROM, SECONDS), "min_fps": None}
    server = start_server(PORT, MODES[mode], env={"RTSP_URL": CAMERA_URL})
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
    camera = subprocess.Popen(["/usr/bin/python3", "Benchmarks/rtsp_cameras.py", "--port", str(CAMERA_PORT), "--cameras", "1",
                               "--size", "1280x720", "--fps", "30", "--gop", "60", "--kbps", str(KBPS)], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True)
    try:
        ready = camera.stdout.readline()  # READY … KBPS kbit/s (the loop's real bitrate)
        if not ready.startswith("READY"): sys.exit("the RTSP camera did not start")
        made_kbps = float(ready.split()[-2])
        rows = []
        for viewers in (0, VIEWERS):
            modes = [*MODES, "floor"] if viewers == 0 else list(MODES)
            runs = {m: [] for m in modes}
            for _ in range(RUNS):
                for mode in modes:  # alternating: every mode sees the same machine
                    runs[mode].append(one_run(mode, viewers))
            pairs = [p["server_cpu_cores"] / t["server_cpu_cores"] for p, t in zip(runs["passthrough"], runs["transcoded"])]
            row = {"viewers": viewers, "ratio": statistics.median(pairs)}
            if "floor" in runs:
                row["floor_ratio"] = statistics.median(
                    f["server_cpu_cores"] / t["server_cpu_cores"] for f, t in zip(runs["floor"], runs["transcoded"]))
            for mode, rs in runs.items():
                row[mode] = {"server_cpu_cores": statistics.median(r["server_cpu_cores"] for r in rs),
                             "min_fps": statistics.median(r["min_fps"] for r in rs) if viewers else None}
            rows.append(row)
            print(f"{viewers:2d} viewers: passthrough {row['passthrough']['server_cpu_cores']:.3f} cores, "
                  f"transcoded {row['transcoded']['server_cpu_cores']:.3f} cores, ratio {row['ratio']:.3f}"
                  + (f"; slowest viewer {row['passthrough']['min_fps']:.1f} / {row['transcoded']['min_fps']:.1f} fps"
                     if viewers else "")
                  + (f"; floor {row['floor']['server_cpu_cores']:.4f} cores, floor ÷ transcoded {row['floor_ratio']:.3f}"
                     if "floor" in row else ""), flush=True)
    finally:
        stop(camera)
    result = {"machine": os.uname().release, "cores": os.cpu_count(), "runs": RUNS, "seconds_per_run": SECONDS,
              "steady_from": STEADY_FROM, "camera": f"1280x720 30 fps H.264 at {made_kbps:.0f} kbit/s (scrolling SMPTE bars, x264enc once, GOP 60), RTSP over TCP",
              "camera_kbps": made_kbps, "recorded_at": time.strftime("%Y-%m-%d"), "rows": rows}
    with open(os.path.join(ROOT, "Benchmarks/results-passthrough.json"), "w") as f:
        json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
