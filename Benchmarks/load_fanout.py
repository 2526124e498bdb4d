#!/usr/bin/env python3
"""Fan-out of `sluice serve`, its viewers in one `sluice load` process.

As Benchmarks/fanout.py (one 720p30 H.264 capture and encoder, `sluice serve --pipeline
Benchmarks/fanout-720p-h264.yaml`), but the N viewers are one `sluice load
Benchmarks/load-fanout-viewer.yaml --clients N --decode none` process instead of N `sluice
run` processes. For N = 10, 20, 40, 60, 80, 120, ... until the slowest viewer gets under 29 fps,
the encoder makes under 29, or a viewer fails:
- the server's CPU over a steady window (WARMUP s after it counts N viewers, WINDOW s), per
  viewer-second, and per viewer-second over what it used alone (measured before the load
  starts: the encoder's share);
- the load process's CPU in the same window, and how much of the machine it took;
- the slowest and median viewer's frame rate (the load report's per-client steady fps: from
  a second after its first frame to its end), and the mean over the window (its timeline).
Medians of RUNS runs per N. Both processes share the machine's cores.

WARMUP is 10 s: after the last viewer joins, both processes use 20-40% more CPU for a while
at the same packet rate (6 s for 20 viewers, 10 s for 40, measured second by second).

Run through Benchmarks/load-fanout.sh (loopback-only namespace).
Env: RUNS (1), WARMUP (10), WINDOW (8), RAMP (20), MAX_N (400), OTHER_LIMIT (0.3), SLUICE.
"""
import json, os, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from load_common import (ROOT, SLUICE, cpu_of, finish, median_row, sluice_window_fps, start_server, step_up, stop,
                         wait_viewers, window, write_result)

RUNS = int(os.environ.get("RUNS", "1"))
WARMUP = float(os.environ.get("WARMUP", "10"))
WINDOW = float(os.environ.get("WINDOW", "8"))
RAMP = int(os.environ.get("RAMP", "20"))
MAX_N = int(os.environ.get("MAX_N", "400"))
OTHER_LIMIT = float(os.environ.get("OTHER_LIMIT", "0.3"))
PORT = 18620
STEPS = [n for n in [10, 20, 40, 60, 80, 120, 160, 200, 240, 280, 320, 360, 400] if n <= MAX_N]
CORES = os.cpu_count()


def server_alone(server, seconds=4):
    """The server's cores with nobody watching (after 2 s to settle)."""
    time.sleep(2)
    c0, t0 = cpu_of(server.pid), time.monotonic()
    time.sleep(seconds)
    return (cpu_of(server.pid) - c0) / (time.monotonic() - t0)


def one_run(n, server_args=()):
    server = start_server(PORT, "Benchmarks/fanout-720p-h264.yaml", args=server_args)
    try:
        alone = server_alone(server)
        return {"server_alone_cores": alone, **load_window(server, n, alone)}
    finally:
        stop(server)


def load_window(server, n, alone):
    duration = n / RAMP + WARMUP + WINDOW + 3
    fd, path = tempfile.mkstemp(suffix=".json"); os.close(fd)
    started = time.monotonic()
    client = subprocess.Popen([SLUICE, "load", "Benchmarks/load-fanout-viewer.yaml", "--clients", str(n), "--ramp", f"{RAMP}/s",
                               "--duration", str(duration), "--decode", "none", "--json", path, "--quiet"], cwd=ROOT,
                              env=dict(os.environ, SLUICE_WHEP=f"http://127.0.0.1:{PORT}/whep/fanout"),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    at = wait_viewers(PORT, n, n / RAMP + 30, client)
    time.sleep(max(0.0, (at or time.monotonic()) + WARMUP - time.monotonic()))
    w = window(PORT, server, client, WINDOW)
    finish(client, duration + 60)
    with open(path) as f:
        report = json.load(f)
    os.unlink(path)
    return row(n, w, report, started, alone, at is not None)


def row(n, w, report, started, alone, all_counted):
    fps = [c.get("fps") or 0.0 for c in report["clients"]]  # a client that saw no frame has none
    return {"all_counted": all_counted, "clients_failed": sum(1 for c in report["clients"] if c["outcome"] not in ("left_as_planned", "stopped_early")),
            "min_fps": min(fps), "median_fps": statistics.median(fps), "window_fps": sluice_window_fps(report, started, w, n) or 0.0,
            "server_encoded_fps": w["server_encoded_fps"], "server_cores": w["server_cores"],
            "server_ms_per_viewer_s": w["server_cores"] * 1000 / n, "server_added_ms_per_viewer_s": (w["server_cores"] - alone) * 1000 / n,
            "load_cores": w["client_cores"], "load_ms_per_viewer_s": w["client_cores"] * 1000 / n,
            "load_share_of_machine": w["client_cores"] / CORES, "machine_cores": w["machine_cores"], "other_cores": w["other_cores"],
            "udp_drops_per_s": w["udp_drops_per_s"], "loopback_kbit_s_per_viewer": w["loopback_kbit_s"] / n,
            "loopback_packets_s_per_viewer": w["loopback_packets_s"] / n, "load_threads_cores": w["client_threads_cores"],
            "server_threads_cores": w["server_threads_cores"]}


def make_row(n, runs):
    row = median_row(n, runs, middle=("load_threads_cores", "server_threads_cores"), flags=("all_counted",))
    row["ok"] = row["min_fps"] >= 29 and row["server_encoded_fps"] >= 29 and row["clients_failed"] == 0 and row["all_counted"]
    return row


def describe(r):
    return (f"N={r['n']:3d}  slowest {r['min_fps']:5.1f} fps  median {r['median_fps']:5.1f}  encoder {r['server_encoded_fps']:4.1f}  "
            f"server {r['server_cores']:.2f} cores ({r['server_ms_per_viewer_s']:.2f} ms/viewer-s)  "
            f"load {r['load_cores']:.2f} cores ({r['load_ms_per_viewer_s']:.2f} ms/viewer-s)  machine {r['machine_cores']:.2f}  "
            f"failed {r['clients_failed']:g}  {'ok' if r['ok'] else 'below 29 fps or failed'}")


def save(rows, largest):
    fields = {"runs_per_n": RUNS, "warmup_s": WARMUP, "window_s": WINDOW, "ramp_per_s": RAMP,
              "stream": "sluice serve Benchmarks/fanout-720p-h264.yaml: 1280x720 30 fps H.264, one encoder, video only",
              "notes": ["server and load process share the machine's cores: load_share_of_machine is the load process's "
                        "cores over all cores; machine_cores is every core's busy time in the window",
                        "server_added_ms_per_viewer_s leaves out what the server used with nobody watching (the encoder)"],
              "largest_n_at_29fps": largest}
    write_result("load-fanout", "Benchmarks/load-fanout.sh", ("RUNS", "WARMUP", "WINDOW", "RAMP", "MAX_N", "SLUICE"), fields, rows)


def main():
    largest = step_up(STEPS, RUNS, OTHER_LIMIT, one_run, make_row, describe, save)
    print(f"\nlargest N with every viewer at >= 29 fps: {largest}")


if __name__ == "__main__":
    main()
