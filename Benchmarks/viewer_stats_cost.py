#!/usr/bin/env python3
"""What reading each viewer's WebRTC statistics costs a busy server (`--viewer-stats-interval`).

One 720p30 H.264 stream in `sluice serve` (Benchmarks/fanout-720p-h264.yaml) with N = 32
viewers (`sluice run Benchmarks/fanout-viewer.yaml`, no decoding), once with the statistics
read every second and once never, RUNS pairs in alternating order. The whole server's CPU
differs between two servers by more than the effect (±5% run to run, see
operate_overhead.py's COMPARE_STATS), so the instrument is per-thread CPU over a WINDOW:
the readings run on Swift's concurrency threads, which otherwise only wake for HTTP and the
reaper; the table splits the server's CPU by thread kind (GStreamer names its streaming
threads after their elements) and the result is the median difference of the Swift
threads' share, in cores and as a share of the server.

Run through Benchmarks/viewer-stats-cost.sh (release build, loopback-only namespace).
Env: RUNS (3), WINDOW (20), VIEWERS (32).
"""
import collections, json, os, re, statistics, sys, time, urllib.request

import served_crowd

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNS = int(os.environ.get("RUNS", "3"))
WINDOW = float(os.environ.get("WINDOW", "20"))
VIEWERS = int(os.environ.get("VIEWERS", "32"))
PORT = 18701
BASE = f"http://127.0.0.1:{PORT}"
TICK = os.sysconf("SC_CLK_TCK")


def get(path):
    with urllib.request.urlopen(BASE + path, timeout=5) as r:
        return r.read()


def thread_ticks(pid):
    out = {}
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            name = open(f"/proc/{pid}/task/{t}/comm").read().strip()
            f = open(f"/proc/{pid}/task/{t}/stat").read().rsplit(")", 1)[1].split()
            out[(t, name)] = int(f[11]) + int(f[12])
        except OSError:
            pass
    return out


def kind(name):
    if name.startswith("queue"): return "viewer queues"
    if "qos" in name or name.startswith("sluice"): return "swift"
    return re.sub(r"[0-9]+", "#", name)


def one(interval):
    server, viewers = served_crowd.start(PORT, VIEWERS, WINDOW + 120, ["--viewer-stats-interval", str(interval)])
    try:
        deadline = time.monotonic() + 90
        while json.loads(get("/streams.json"))[0]["viewers"] < VIEWERS - 1 and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(15)  # past the connection bursts
        a, t0 = thread_ticks(server.pid), time.monotonic()
        time.sleep(WINDOW)
        b, dt = thread_ticks(server.pid), time.monotonic() - t0
        kinds = collections.Counter()
        for k, v in b.items(): kinds[kind(k[1])] += (v - a.get(k, 0)) / TICK / dt
        return {"viewers": json.loads(get("/streams.json"))[0]["viewers"], "cores": sum(kinds.values()),
                "by_thread": dict(kinds.most_common())}
    finally:
        served_crowd.stop(server, viewers)


def main():
    pairs = []
    for i in range(RUNS):
        order = [1, 0] if i % 2 == 0 else [0, 1]
        r = {interval: one(interval) for interval in order}
        swift = r[1]["by_thread"].get("swift", 0) - r[0]["by_thread"].get("swift", 0)
        pairs.append({"every_1s": r[1], "never": r[0], "swift_cores": swift, "share_of_server": swift / r[0]["cores"]})
        print(f"pair {i + 1}: Swift threads {r[1]['by_thread'].get('swift', 0):.4f} cores reading every 1 s "
              f"({r[1]['viewers']} viewers, server {r[1]['cores']:.3f}) vs {r[0]['by_thread'].get('swift', 0):.4f} never "
              f"({r[0]['viewers']} viewers, server {r[0]['cores']:.3f}): +{swift:.4f} cores, {swift / r[0]['cores'] * 100:.2f}% of the server",
              flush=True)
    result = {"machine": os.uname().release, "cores": os.cpu_count(), "viewers": VIEWERS, "window_s": WINDOW,
              "median_swift_cores": statistics.median(p["swift_cores"] for p in pairs),
              "median_share_of_server": statistics.median(p["share_of_server"] for p in pairs), "pairs": pairs}
    with open(os.path.join(ROOT, "Benchmarks/results-viewer-stats-cost.json"), "w") as f:
        json.dump(result, f, indent=2)
    print(f"\nreading {VIEWERS} viewers' statistics every second: +{result['median_swift_cores']:.4f} cores "
          f"({result['median_share_of_server'] * 100:.2f}% of the server), median of {RUNS} pairs; "
          f"every 5 s (the default) is a fifth of that")


if __name__ == "__main__":
    main()
