#!/usr/bin/env python3
"""A crowd in calls of two through `sluice serve`'s AppRTC rooms.

`sluice load Pipelines/load-apprtc.yaml --clients N --decode none` (one 640x360 30 fps VP8
capture and encoder at 800 kbit/s for the whole crowd; each member its own payloader, SSRC,
webrtcbin, ICE and DTLS, sending that stream and receiving its partner's) with the rooms of
`sluice serve`. The media of a call goes from member to member, so both ends of every call
are in the load process: a member's cost is sending one stream and receiving one. For N = 10,
20, 40, 60, 80, 100, 120, ... until a member receives under 28.5 fps (5% under the source's
30) or fails:
- each member's received frame rate (the load report's per-client fps): slowest and median;
- the mean received rate per member over the window (the report's timeline);
- the load process's CPU over the window, per member-second, and of the machine.
The window starts WARMUP s after the room server counts every member and lasts WINDOW s.
Medians of RUNS runs per N.

Run through Benchmarks/load-calls.sh (loopback-only namespace).
Env: RUNS (1), WARMUP (8), WINDOW (8), RAMP (20), MAX_N (400), OTHER_LIMIT (0.3), SLUICE.
"""
import json, os, statistics, subprocess, sys, tempfile, time, urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import wait_http
from load_common import (ROOT, SLUICE, busiest, cpu_of, finish, machine_busy, median_row, sluice_window_fps, step_up, stop,
                         threads_of, write_result)

RUNS = int(os.environ.get("RUNS", "1"))
WARMUP = float(os.environ.get("WARMUP", "8"))
WINDOW = float(os.environ.get("WINDOW", "8"))
RAMP = int(os.environ.get("RAMP", "20"))
MAX_N = int(os.environ.get("MAX_N", "400"))
OTHER_LIMIT = float(os.environ.get("OTHER_LIMIT", "0.3"))
PORT = 18640
STEPS = [n for n in [10, 20, 40, 60, 80, 100, 120, 160, 200, 240, 280, 320, 400] if n <= MAX_N]
CORES = os.cpu_count()
SOURCE_FPS = 30.0


def members():
    """The members the room server holds now."""
    with urllib.request.urlopen(f"http://127.0.0.1:{PORT}/status.json", timeout=5) as r:
        return json.load(r)["clients"]


def wait_members(n, seconds, client):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and client.poll() is None:
        if members() >= n:
            return time.monotonic()
        time.sleep(0.1)
    return None


def window(server, client):
    pids = {"server": server.pid, "load": client.pid}
    cpu0, threads0, busy0, t0 = {k: cpu_of(p) for k, p in pids.items()}, threads_of(client.pid), machine_busy(), time.monotonic()
    time.sleep(WINDOW)
    cpu1, threads1, busy1, t1 = {k: cpu_of(p) for k, p in pids.items()}, threads_of(client.pid), machine_busy(), time.monotonic()
    dt = t1 - t0
    server, load, machine = (cpu1["server"] - cpu0["server"]) / dt, (cpu1["load"] - cpu0["load"]) / dt, (busy1 - busy0) / dt
    return {"start": t0, "seconds": dt, "server_cores": server, "load_cores": load, "machine_cores": machine,
            "other_cores": max(0.0, machine - server - load), "load_threads_cores": busiest(threads0, threads1, dt)}


def one_run(n):
    server = subprocess.Popen([SLUICE, "serve", "--port", str(PORT)], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_http(f"http://127.0.0.1:{PORT}/status.json")
    try:
        return crowd(server, n)
    finally:
        stop(server)


def crowd(server, n):
    duration = n / RAMP + WARMUP + WINDOW + 4
    fd, path = tempfile.mkstemp(suffix=".json"); os.close(fd)
    started = time.monotonic()
    client = subprocess.Popen([SLUICE, "load", "Pipelines/load-apprtc.yaml", "--clients", str(n), "--ramp", f"{RAMP}/s",
                               "--duration", str(duration), "--decode", "none", "--json", path, "--quiet",
                               "--set", f"transport.endpoint=http://127.0.0.1:{PORT}"], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    at = wait_members(n, n / RAMP + 30, client)
    time.sleep(max(0.0, (at or time.monotonic()) + WARMUP - time.monotonic()))
    w = window(server, client)
    finish(client, duration + 60)
    with open(path) as f:
        report = json.load(f)
    os.unlink(path)
    fps = [c.get("fps") or 0.0 for c in report["clients"]]
    failed = sum(1 for c in report["clients"] if c["outcome"] not in ("left_as_planned", "stopped_early"))
    return {"all_joined": at is not None, "clients_failed": failed, "min_fps": min(fps), "median_fps": statistics.median(fps),
            "window_fps": sluice_window_fps(report, started, w, n) or 0.0,
            "shared_encoder_fps": (report.get("shared_encoder_frames") or 0) / max(report["duration_s"], 1e-9),
            "load_ms_per_member_s": w["load_cores"] * 1000 / n, "load_share_of_machine": w["load_cores"] / CORES, **w}


def make_row(n, runs):
    row = median_row(n, runs, middle=("load_threads_cores",), flags=("all_joined",))
    row["ok"] = row["min_fps"] >= SOURCE_FPS * 0.95 and row["clients_failed"] == 0 and row["all_joined"]
    return row


def describe(r):
    return (f"N={r['n']:3d}  received: slowest {r['min_fps']:5.1f} fps, median {r['median_fps']:5.1f}, window {r['window_fps']:5.1f}  "
            f"load {r['load_cores']:.2f} cores ({r['load_ms_per_member_s']:.2f} ms/member-s)  server {r['server_cores']:.3f} cores  "
            f"machine {r['machine_cores']:.2f}  failed {r['clients_failed']:g}  {'ok' if r['ok'] else 'under 28.5 fps or failed'}")


def save(rows, largest):
    write_result("load-calls", "Benchmarks/load-calls.sh", ("RUNS", "WARMUP", "WINDOW", "RAMP", "MAX_N", "SLUICE"), {
        "runs_per_n": RUNS, "warmup_s": WARMUP, "window_s": WINDOW, "ramp_per_s": RAMP,
        "stream": "Pipelines/load-apprtc.yaml: 640x360 30 fps VP8 800 kbit/s with framestamps, one encoder for every member",
        "service": "sluice serve's AppRTC rooms (signalling only: a call's media goes member to member, in the load process)",
        "notes": ["fps: what each member received from its partner (the load report's per-client rate); "
                  "window_fps: the mean per member over the window, from the report's timeline"],
        "largest_n_at_95_percent": largest}, rows)


def main():
    largest = step_up(STEPS, RUNS, OTHER_LIMIT, one_run, make_row, describe, save)
    print(f"\nlargest N with every member receiving >= 28.5 fps: {largest}")


if __name__ == "__main__":
    main()
