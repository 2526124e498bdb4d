#!/usr/bin/env python3
"""A 4K RTSP camera passed through (issue 28: "go2rtc reports a 4K RTSP proxy at about 3% of a
CPU; beat it per pixel").

go2rtc's figure is its author's remark (AlexxIT/go2rtc#1120: "Simple RTSP 4K proxying can load
3% of CPU. It's just a network load. The most expensive is WebRTC."): RTSP in and RTSP out, on
a machine and at a bitrate not stated. go2rtc is not a Debian package, so it is not run here.
What is measured, in one run, on this machine:
- two cameras, Benchmarks/rtsp_cameras.py (one loop x264enc encoded once at start, played at
  the frame rate; scrolling SMPTE bars, which come out at about the asked bitrate; RTSP over
  TCP; their process is not counted): 3840x2160 at UHD_KBPS and 1280x720 at HD_KBPS, both
  at FPS with a 2 s GOP;
- per camera, `sluice serve` with `encode: none` (Benchmarks/rtsp-passthrough-720p.yaml, its
  URL pointed at the camera) with no viewer (taking the camera in: go2rtc's RTSP half) and
  with one WHEP viewer (`sluice run Benchmarks/fanout-viewer.yaml`: webrtcbin, no decoding;
  not counted);
- the floor for taking a camera in, from the same cameras: `gst-launch-1.0 rtspsrc
  protocols=tcp latency=50 ! rtph264depay ! h264parse ! fakesink` (what Sluice's capture
  runs, without Sluice), and ffmpeg reading the camera with `-c copy` to a null muxer (a
  proxy's reading half outside GStreamer).
Each figure is the process's CPU (/proc/PID/stat) over the steady seconds, in cores; the
modes alternate, RUNS times, and the table gives medians, the same per megapixel-second (go2rtc:
0.03 cores over 3840x2160 at 30 fps, taking 30 as the frame rate it did not state) and the
viewer's steady frame rate.

Run through Benchmarks/proxy-4k.sh (loopback-only namespace). Ports 18780-18783.
Env: RUNS (3), SECONDS_PER_RUN (30), STEADY_FROM (8), FPS (30), UHD_KBPS (12000), HD_KBPS (1500), SLUICE.
"""
import os, statistics, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from load_common import ROOT, SLUICE, reader_cpu, rtsp_reader, start_server, steady_cpu, steady_fps, stop, write_result

RUNS = int(os.environ.get("RUNS", "3"))
SECONDS = float(os.environ.get("SECONDS_PER_RUN", "30"))
STEADY_FROM = float(os.environ.get("STEADY_FROM", "8"))
FPS = int(os.environ.get("FPS", "30"))
CAMERAS = {"4K": ("3840x2160", int(os.environ.get("UHD_KBPS", "12000")), 18780),
           "720p": ("1280x720", int(os.environ.get("HD_KBPS", "1500")), 18782)}
SERVER_PORT = 18781
GO2RTC_CORES_PER_MPX_S = 0.03 / (3840 * 2160 * 30 / 1e6)
MODES = ("sluice, no viewer", "sluice, 1 viewer", "gst-launch rtspsrc", "ffmpeg -c copy")


def camera_url(size):
    return f"rtsp://127.0.0.1:{CAMERAS[size][2]}/cam-0"



def sluice_run(size, viewers):
    server = start_server(SERVER_PORT, "Benchmarks/rtsp-passthrough-720p.yaml", env={"RTSP_URL": camera_url(size)})
    try:
        env = dict(os.environ, SLUICE_WHEP=f"http://127.0.0.1:{SERVER_PORT}/whep/camera")
        viewer = subprocess.Popen([SLUICE, "run", "Benchmarks/fanout-viewer.yaml", "--duration", str(SECONDS + 2)],
                                  cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) if viewers else None
        cores = steady_cpu(server.pid, STEADY_FROM, SECONDS)
        fps = None
        if viewer:
            out, err = viewer.communicate(timeout=SECONDS + 60)
            if viewer.returncode != 0:
                sys.exit(f"the viewer failed ({viewer.returncode}): {err.decode(errors='replace')[-600:]}")
            fps = steady_fps(out.decode(errors="replace"), STEADY_FROM)
        return {"cores": cores, "viewer_fps": fps}
    finally:
        stop(server)


def reference_run(size, mode):
    reader = rtsp_reader("gst-launch" if mode.startswith("gst-launch") else "ffmpeg", camera_url(size))
    return {"cores": reader_cpu(reader, STEADY_FROM, SECONDS), "viewer_fps": None}


def one_run(size, mode):
    if mode.startswith("sluice"):
        return sluice_run(size, 1 if "1 viewer" in mode else 0)
    return reference_run(size, mode)


def start_cameras():
    cameras = {}
    for size, (pixels, kbps, port) in CAMERAS.items():
        cameras[size] = subprocess.Popen(
            ["/usr/bin/python3", "Benchmarks/rtsp_cameras.py", "--port", str(port), "--cameras", "1", "--size", pixels,
             "--fps", str(FPS), "--gop", str(2 * FPS), "--kbps", str(kbps)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    made = {}
    for size, camera in cameras.items():
        line = camera.stdout.readline()  # READY … KBPS kbit/s (the loop's real bitrate)
        if not line.startswith("READY"):
            sys.exit(f"the {size} camera did not start")
        made[size] = float(line.split()[-2])
    return cameras, made


def row_of(size, mode, runs, kbps):
    width, height = (int(v) for v in CAMERAS[size][0].split("x"))
    mpx_s = width * height * FPS / 1e6
    cores = statistics.median(r["cores"] for r in runs)
    fps = [r["viewer_fps"] for r in runs if r["viewer_fps"] is not None]
    return {"camera": size, "mode": mode, "kbps": kbps, "cores": cores, "cores_per_run": [r["cores"] for r in runs],
            "cores_per_mpx_s": cores / mpx_s, "per_pixel_vs_go2rtc": cores / mpx_s / GO2RTC_CORES_PER_MPX_S,
            "viewer_fps": statistics.median(fps) if fps else None}


def main():
    cameras, made = start_cameras()
    try:
        runs = {(size, mode): [] for size in CAMERAS for mode in MODES}
        for _ in range(RUNS):
            for size in CAMERAS:
                for mode in MODES:  # alternating: every mode sees the same machine
                    runs[(size, mode)].append(one_run(size, mode))
        rows = [row_of(size, mode, rs, made[size]) for (size, mode), rs in runs.items()]
    finally:
        for camera in cameras.values():
            stop(camera)
    for r in rows:
        print(f"{r['camera']:>4} {r['mode']:<20} {r['cores']:.4f} cores ({r['cores_per_mpx_s'] * 1e6:.0f} µcores per "
              f"Mpx/s, {r['per_pixel_vs_go2rtc']:.2f} × go2rtc's per pixel)"
              + (f", viewer {r['viewer_fps']:.1f} fps" if r["viewer_fps"] is not None else ""), flush=True)
    write_result("proxy-4k", "Benchmarks/proxy-4k.sh", ("RUNS", "SECONDS_PER_RUN", "STEADY_FROM", "UHD_KBPS", "HD_KBPS"),
                 {"runs": RUNS, "seconds_per_run": SECONDS, "steady_from": STEADY_FROM, "fps": FPS,
                  "go2rtc_cores_per_mpx_s": GO2RTC_CORES_PER_MPX_S}, rows)


if __name__ == "__main__":
    main()
