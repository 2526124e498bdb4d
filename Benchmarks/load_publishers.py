#!/usr/bin/env python3
"""A crowd of WHIP publishers sharing one encoder, into `sluice serve --relay`.

`sluice load Pipelines/load-whip.yaml --clients N` (one 640x360 30 fps VP8 capture and
encoder at 800 kbit/s, with framestamps; each publisher its own payloader, SSRC, webrtcbin,
ICE and DTLS, publishing `/whip/load-<k>`) against `sluice serve --relay`, which takes
every publisher's stream in and relays it (nobody watches). For N = 10, 20, 40, 60, 80, 100,
120, ... until a publisher's stream reaches the server at under 28.5 fps (5% under the
source's 30) or a publisher fails:
- each publisher's frame rate as the server received it (`relayed_video_frames` of its
  stream in `/streams.json`, over the window): the slowest and the median;
- each publisher's own sent rate (the load report's per-client fps);
- the load process's and the server's CPU over the window, per publisher-second, and how
  much of the machine the load process took.
The window starts WARMUP s after the server has every stream live and lasts WINDOW s.
Medians of RUNS runs per N. Both processes share the machine's cores.

Run through Benchmarks/load-publishers.sh (loopback-only namespace).
Env: RUNS (1), WARMUP (8), WINDOW (8), RAMP (20), MAX_N (400), OTHER_LIMIT (0.3), SLUICE.
"""
import json, os, statistics, subprocess, sys, tempfile, time, urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import wait_http
from load_common import (ROOT, SLUICE, busiest, cpu_of, finish, machine_busy, median_row, step_up, stop, threads_of, udp_drops,
                         write_result)

RUNS = int(os.environ.get("RUNS", "1"))
WARMUP = float(os.environ.get("WARMUP", "8"))
WINDOW = float(os.environ.get("WINDOW", "8"))
RAMP = int(os.environ.get("RAMP", "20"))
MAX_N = int(os.environ.get("MAX_N", "400"))
OTHER_LIMIT = float(os.environ.get("OTHER_LIMIT", "0.3"))
PORT = 18630
STEPS = [n for n in [10, 20, 40, 60, 80, 100, 120, 160, 200, 240, 280, 320, 400] if n <= MAX_N]
CORES = os.cpu_count()
SOURCE_FPS = 30.0


def relayed():
    """Each live relayed stream's video frames so far, by name."""
    with urllib.request.urlopen(f"http://127.0.0.1:{PORT}/streams.json", timeout=5) as r:
        return {s["name"]: s.get("relayed_video_frames", 0) for s in json.load(r) if s.get("live")}


def wait_live(n, seconds, client):
    """Waits (bounded) until the server has `n` live relayed streams; the time it did, or None."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and client.poll() is None:
        if len(relayed()) >= n:
            return time.monotonic()
        time.sleep(0.1)
    return None


def window(server, client, n):
    """CPU of both processes, the machine's busy cores, and each stream's received rate."""
    pids = {"server": server.pid, "load": client.pid}
    cpu0, threads0 = {k: cpu_of(p) for k, p in pids.items()}, {k: threads_of(p) for k, p in pids.items()}
    busy0, drops0, frames0, t0 = machine_busy(), udp_drops(), relayed(), time.monotonic()
    time.sleep(WINDOW)
    cpu1, threads1 = {k: cpu_of(p) for k, p in pids.items()}, {k: threads_of(p) for k, p in pids.items()}
    busy1, drops1, frames1, t1 = machine_busy(), udp_drops(), relayed(), time.monotonic()
    dt = t1 - t0
    rates = [(frames1.get(k, v) - v) / dt for k, v in frames0.items()]
    rates += [0.0] * max(0, n - len(rates))  # a stream not live at the window's start got nothing in it
    server, load, machine = (cpu1["server"] - cpu0["server"]) / dt, (cpu1["load"] - cpu0["load"]) / dt, (busy1 - busy0) / dt
    return {"server_cores": server, "load_cores": load, "machine_cores": machine, "other_cores": max(0.0, machine - server - load),
            "received_fps": rates, "udp_drops_per_s": (drops1 - drops0) / dt,
            "load_threads_cores": busiest(threads0["load"], threads1["load"], dt),
            "server_threads_cores": busiest(threads0["server"], threads1["server"], dt)}


def one_run(n):
    server = subprocess.Popen([SLUICE, "serve", "--port", str(PORT), "--relay"], cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_http(f"http://127.0.0.1:{PORT}/streams.json")
    try:
        return crowd(server, n)
    finally:
        stop(server)


def crowd(server, n):
    duration = n / RAMP + WARMUP + WINDOW + 4
    fd, path = tempfile.mkstemp(suffix=".json"); os.close(fd)
    client = subprocess.Popen([SLUICE, "load", "Pipelines/load-whip.yaml", "--clients", str(n), "--ramp", f"{RAMP}/s",
                               "--duration", str(duration), "--json", path, "--quiet",
                               "--set", f"transport.endpoint=http://127.0.0.1:{PORT}/whip/load-{{client}}"], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    at = wait_live(n, n / RAMP + 30, client)
    time.sleep(max(0.0, (at or time.monotonic()) + WARMUP - time.monotonic()))
    w = window(server, client, n)
    finish(client, duration + 60)
    with open(path) as f:
        report = json.load(f)
    os.unlink(path)
    sent = [c.get("fps") or 0.0 for c in report["clients"]]
    failed = sum(1 for c in report["clients"] if c["outcome"] not in ("left_as_planned", "stopped_early"))
    rates = w.pop("received_fps")
    return {"all_live": at is not None, "clients_failed": failed, "min_received_fps": min(rates),
            "median_received_fps": statistics.median(rates), "min_sent_fps": min(sent), "median_sent_fps": statistics.median(sent),
            "shared_encoder_fps": (report.get("shared_encoder_frames") or 0) / max(report["duration_s"], 1e-9),
            "load_ms_per_publisher_s": w["load_cores"] * 1000 / n, "server_ms_per_publisher_s": w["server_cores"] * 1000 / n,
            "load_share_of_machine": w["load_cores"] / CORES, **w}


def make_row(n, runs):
    row = median_row(n, runs, middle=("load_threads_cores", "server_threads_cores"), flags=("all_live",))
    row["ok"] = row["min_received_fps"] >= SOURCE_FPS * 0.95 and row["clients_failed"] == 0 and row["all_live"]
    return row


def describe(r):
    return (f"N={r['n']:3d}  received: slowest {r['min_received_fps']:5.1f} fps, median {r['median_received_fps']:5.1f}  "
            f"sent: slowest {r['min_sent_fps']:5.1f}  load {r['load_cores']:.2f} cores ({r['load_ms_per_publisher_s']:.2f} "
            f"ms/publisher-s)  server {r['server_cores']:.2f} cores  machine {r['machine_cores']:.2f}  failed "
            f"{r['clients_failed']:g}  {'ok' if r['ok'] else 'under 28.5 fps or failed'}")


def save(rows, largest):
    write_result("load-publishers", "Benchmarks/load-publishers.sh", ("RUNS", "WARMUP", "WINDOW", "RAMP", "MAX_N", "SLUICE"), {
        "runs_per_n": RUNS, "warmup_s": WARMUP, "window_s": WINDOW, "ramp_per_s": RAMP,
        "stream": "Pipelines/load-whip.yaml: 640x360 30 fps VP8 800 kbit/s with framestamps, one encoder for every publisher",
        "service": "sluice serve --relay (each publisher's stream taken in and relayed; nobody watches)",
        "notes": ["received fps: each publisher's relayed_video_frames at the server over the window; "
                  "sent fps: the load report's per-client rate",
                  "server and load process share the machine's cores"],
        "largest_n_at_95_percent": largest}, rows)


def main():
    largest = step_up(STEPS, RUNS, OTHER_LIMIT, one_run, make_row, describe, save)
    print(f"\nlargest N with every publisher received at >= 28.5 fps: {largest}")


if __name__ == "__main__":
    main()
