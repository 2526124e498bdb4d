#!/usr/bin/env python3
"""CPU per client-second: `sluice load` viewers against aiortc viewers of the same stream.

One `sluice serve` per run (Pipelines/serve-av.yaml with CODEC=h264: 640x360 30 fps H.264 at
1000 kbit/s and Opus) serves both tools in turn, sides alternating from run to run:
- Sluice: `sluice load Benchmarks/load-viewer-av.yaml --clients N --decode none|all`, N
  webrtcbins in one process, receiving video and audio.
- aiortc: `Benchmarks/aiortc_crowd.py whep-crowd URL --viewers N --decode 0|N`, i.e.
  Tests/Interop/aiortc/aiortc_peer.py's crowd (N RTCPeerConnections in one Python process,
  offering video and audio) plus a sampler of each viewer's frame count.
Cases: 20 and 10 viewers that do not decode video, 10 that decode it.

For each tool: once the server counts all N viewers (`/streams.json`), WARMUP seconds later,
the CPU of the client process (and of the server, and the machine's) over WINDOW seconds
from /proc; the client's CPU per client-second is the figure (and per frame received, which
stays comparable when a side falls behind). Frame rates: Sluice's from its report (each
client's steady fps, and the timeline's frames over the window), aiortc's from the sampler
over the window. Medians of RUNS runs; the ratio is Sluice ÷ aiortc.

Others share this machine: a run starts when the cores are quiet, and is made again (up to 3
times) when a window finds more than OTHER_LIMIT cores busy outside the server and the client.

WARMUP is 8 s: for the first 5-10 s after the last viewer joins, the server and the `sluice
load` process use 20-40% more CPU than later at the same packet rate (measured second by
second; longer for more viewers), so a window from +2 s would not be steady. The aiortc
crowd sends each non-decoding viewer's first PLI 1-2 s after all connected, before the
window; its --seconds is long enough that the second PLI comes after it.

Run through Benchmarks/load-clients.sh (loopback-only namespace).
Env: RUNS (3), WARMUP (8), WINDOW (8), RAMP (20), OTHER_LIMIT (0.3), ONLY (part of a case label), SLUICE, AIORTC_PYTHON.
"""
import json, os, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import settings_given
from load_common import (ROOT, SLUICE, finish, sluice_window_fps, start_server, stop, streams,
                         quiet_attempts, wait_viewers, window)

RUNS = int(os.environ.get("RUNS", "3"))
WARMUP = float(os.environ.get("WARMUP", "8"))
WINDOW = float(os.environ.get("WINDOW", "8"))
RAMP = int(os.environ.get("RAMP", "20"))
PYTHON = os.environ.get("AIORTC_PYTHON", os.path.join(ROOT, ".venv/bin/python"))
OTHER_LIMIT = float(os.environ.get("OTHER_LIMIT", "0.3"))  # cores others may use in a window
PORT = 18610
URL = f"http://127.0.0.1:{PORT}/whep/serve-av"
SERVER = ("Pipelines/serve-av.yaml", {"CODEC": "h264"})
# (label, viewers, sluice --decode, aiortc --decode)
# 10 non-decoding viewers as well: 20 are more than aiortc keeps up with here (its sockets
# overflow, see udp_drops_per_s), so only 10 compare the two at the same frame rate.
CASES = [("not decoding (20)", 20, "none", 0), ("not decoding (10)", 10, "none", 0), ("decoding 360p (10)", 10, "all", 10)]


def run_sluice(server, n, decode):
    duration = WARMUP + WINDOW + 4
    fd, path = tempfile.mkstemp(suffix=".json"); os.close(fd)
    started = time.monotonic()
    client = subprocess.Popen([SLUICE, "load", "Benchmarks/load-viewer-av.yaml", "--clients", str(n), "--ramp", f"{RAMP}/s",
                               "--duration", str(duration), "--decode", decode, "--json", path, "--quiet"],
                              cwd=ROOT, env=dict(os.environ, SLUICE_WHEP=URL), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    w = measure(server, client, n)
    finish(client, duration + 60)  # exits 3 when a client failed: counted below
    with open(path) as f:
        report = json.load(f)
    os.unlink(path)
    fps = [c.get("fps") or 0.0 for c in report["clients"]]
    failed = sum(1 for c in report["clients"] if c["outcome"] not in ("left_as_planned", "stopped_early"))
    return {**w, "fps_min": min(fps), "fps_median": statistics.median(fps),
            "fps_window": sluice_window_fps(report, started, w, n), "clients_failed": failed}


def run_aiortc(server, n, decode):
    seconds = 2 * (WARMUP + WINDOW) + 2
    fd, samples = tempfile.mkstemp(suffix=".txt"); os.close(fd)
    client = subprocess.Popen([PYTHON, "Benchmarks/aiortc_crowd.py", "whep-crowd", URL, "--viewers", str(n),
                               "--seconds", str(seconds), "--decode", str(decode)],
                              cwd=ROOT, env=dict(os.environ, CROWD_SAMPLES=samples), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    w = measure(server, client, n)
    _, err, rc = finish(client, seconds + 60)
    if rc != 0:
        sys.exit(f"the aiortc crowd failed ({rc}): {err[-600:]}")
    fps = aiortc_window_fps(samples, w)
    os.unlink(samples)
    return {**w, "fps_min": min(fps), "fps_median": statistics.median(fps),
            "fps_window": statistics.mean(fps), "clients_failed": 0}


def aiortc_window_fps(path, w):
    """Each viewer's frames per second between the samples nearest the window's ends."""
    with open(path) as f:
        rows = [[float(v) for v in line.split()] for line in f if line.strip()]
    end = w["start"] + w["seconds"]
    a = min(rows, key=lambda r: abs(r[0] - w["start"]))
    b = min(rows, key=lambda r: abs(r[0] - end))
    return [(y - x) / (b[0] - a[0]) for x, y in zip(a[1:], b[1:])]


def measure(server, client, n):
    """The steady window of `client`'s N viewers."""
    at = wait_viewers(PORT, n, 30 + n / RAMP, client)
    if at is None:
        client.kill()
        sys.exit(f"the server never counted {n} viewers: {client.communicate()[1].decode(errors='replace')[-600:]}")
    time.sleep(max(0.0, at + WARMUP - time.monotonic()))
    w = window(PORT, server, client, WINDOW)
    w["cpu_ms_per_client_s"] = w["client_cores"] * 1000 / n
    return w


def per_frame(r):
    """CPU per frame received, ms: the figure that stays comparable when a side falls behind."""
    return {**r, "cpu_ms_per_frame": r["cpu_ms_per_client_s"] / r["fps_window"] if r["fps_window"] else None}


def wait_empty():
    deadline = time.monotonic() + 40
    while streams(PORT)["viewers"] > 0:
        if time.monotonic() > deadline:
            sys.exit("viewers were still counted 40 s after their client ended")
        time.sleep(0.2)


def one_run(i, n, sluice_decode, aiortc_decode):
    result, attempts = quiet_attempts(lambda: one_attempt(i, n, sluice_decode, aiortc_decode),
                                      lambda r: max(side["other_cores"] for side in r.values()), OTHER_LIMIT)
    return {**result, "attempts": attempts}


def one_attempt(i, n, sluice_decode, aiortc_decode):
    server = start_server(PORT, SERVER[0], SERVER[1])
    try:
        sides = [("sluice", lambda: run_sluice(server, n, sluice_decode)), ("aiortc", lambda: run_aiortc(server, n, aiortc_decode))]
        result = {}
        for name, run in (sides if i % 2 == 0 else sides[::-1]):
            wait_empty()
            result[name] = per_frame(run())
        return result
    finally:
        stop(server)


MEDIANS = ["cpu_ms_per_client_s", "cpu_ms_per_frame", "client_cores", "server_cores", "machine_cores", "other_cores", "server_encoded_fps",
           "fps_min", "fps_median", "fps_window", "udp_drops_per_s", "loopback_kbit_s", "loopback_packets_s", "clients_failed"]


def summary(label, n, runs):
    med = {side: {k: statistics.median(r[side][k] for r in runs) for k in MEDIANS} for side in ("sluice", "aiortc")}
    pairs = [r["sluice"]["cpu_ms_per_client_s"] / r["aiortc"]["cpu_ms_per_client_s"] for r in runs]
    return {"case": label, "clients": n, **med, "ratio": med["sluice"]["cpu_ms_per_client_s"] / med["aiortc"]["cpu_ms_per_client_s"],
            "pair_ratio": statistics.median(pairs), "pair_ratios": pairs, "runs": runs}


def main():
    cases = [c for c in CASES if os.environ.get("ONLY", "") in c[0]]
    results = []
    for label, n, s_dec, a_dec in cases:
        runs = []
        for i in range(RUNS):
            runs.append(one_run(i, n, s_dec, a_dec))
            s, a = runs[-1]["sluice"], runs[-1]["aiortc"]
            print(f"{label} N={n} run {i + 1}: sluice {s['cpu_ms_per_client_s']:.2f} ms/client-s ({s['fps_window']:.1f} fps), "
                  f"aiortc {a['cpu_ms_per_client_s']:.2f} ({a['fps_window']:.1f} fps), server {s['server_cores']:.2f}/"
                  f"{a['server_cores']:.2f} cores, machine {s['machine_cores']:.2f}/{a['machine_cores']:.2f}", flush=True)
        results.append(summary(label, n, runs))
        r = results[-1]
        print(f"{label}: ratio sluice/aiortc {r['ratio']:.3f} (median of pairs {r['pair_ratio']:.3f})\n", flush=True)
    write(results)


def write(results):
    how = settings_given(("RUNS", "WARMUP", "WINDOW", "ONLY", "SLUICE"))
    result = {"machine": os.uname().release, "cores": os.cpu_count(), "how": f"{how} Benchmarks/load-clients.sh".strip(),
              "recorded_at": time.strftime("%Y-%m-%d"), "runs": RUNS, "warmup_s": WARMUP, "window_s": WINDOW,
              "stream": "sluice serve Pipelines/serve-av.yaml CODEC=h264: 640x360 30 fps H.264 1000 kbit/s + Opus 48 kbit/s",
              "notes": ["both tools receive video and audio; aiortc decodes the audio (Opus) in every viewer, "
                        "sluice load sends it undecoded to a fakesink; aiortc's Opus decoding alone (its OpusDecoder, "
                        "timed outside the run) costs ~2.6 ms per viewer-second of the aiortc figures",
                        "machine_cores is every core's busy time in the window: the server, the client and anything else",
                        "loopback_* is everything that crossed loopback in the window, both ways (media, RTCP, retransmissions)"],
              "cases": results}
    with open(os.path.join(ROOT, "Benchmarks/results-load-clients.json"), "w") as f:
        json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
