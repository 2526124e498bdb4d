#!/usr/bin/env python3
"""What `/metrics` and the control API's event stream cost a busy server (issue 10).

One 720p30 H.264 stream in `sluice serve` (Benchmarks/fanout-720p-h264.yaml) with N = 32
viewers (`sluice run Benchmarks/fanout-viewer.yaml`, no decoding). Once they all play, the
server's CPU is measured over consecutive windows of W seconds: OFF (nobody scrapes or
listens), ON (a Prometheus-style scraper reads /metrics every SCRAPE_INTERVAL seconds — 1 s,
15 times Prometheus's default rate — and a client reads the pipeline's event stream), OFF
again. The overhead of a run is ON against the mean of the two OFF windows around it (which
cancels slow drift); the result is the median over RUNS runs, with each run's figures. As
the machine is saturated by the viewers, that ratio is noisy; the cost of one scrape is
also measured in bulk (BURST scrapes back to back, less the OFF rate), which is precise.

Reading each viewer's webrtcbin statistics for /metrics (`--viewer-stats-interval`, 1 s by
default) happens whether anyone scrapes or not, so ON/OFF does not see it. With
COMPARE_STATS=1 each run is a pair of servers, one reading every second and one never
(`--viewer-stats-interval 0`), in alternating order; the result is the median ratio of
their OFF windows' CPU.

Run through Benchmarks/operate-overhead.sh (release build, loopback-only namespace).
Env: RUNS (5), WINDOW (10), VIEWERS (32), SCRAPE_INTERVAL (1), COMPARE_STATS (0).
"""
import json, os, statistics, sys, threading, time, urllib.request

import served_crowd

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNS = int(os.environ.get("RUNS", "5"))
WINDOW = float(os.environ.get("WINDOW", "10"))
VIEWERS = int(os.environ.get("VIEWERS", "32"))
SCRAPE = float(os.environ.get("SCRAPE_INTERVAL", "1"))
BURST = int(os.environ.get("BURST", "200"))
COMPARE_STATS = os.environ.get("COMPARE_STATS", "0") == "1"
PORT = 18700
BASE = f"http://127.0.0.1:{PORT}"


def cpu_of(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def get(path, timeout=5):
    with urllib.request.urlopen(BASE + path, timeout=timeout) as r:
        return r.read()


def window(pid, seconds):
    c0, t0 = cpu_of(pid), time.monotonic()
    time.sleep(seconds)
    return (cpu_of(pid) - c0) / (time.monotonic() - t0)


def one_run(stats_interval=5):  # the server's default reading interval
    server, viewers = served_crowd.start(PORT, VIEWERS, 3 * WINDOW + 120, ["--viewer-stats-interval", str(stats_interval)])
    try:
        deadline = time.monotonic() + 90
        while json.loads(get("/streams.json"))[0]["viewers"] < VIEWERS:
            if time.monotonic() > deadline:
                # On 2 cores one of 32 sometimes misses its ICE timeout: go on with 30 or
                # more, and say how many.
                connected = json.loads(get("/streams.json"))[0]["viewers"]
                if connected >= VIEWERS - 2: break
                alive = sum(v.poll() is None for v in viewers)
                sys.exit(f"only {connected} of {VIEWERS} viewers connected within 90 s ({alive} processes alive)")
            time.sleep(0.2)
        connected = json.loads(get("/streams.json"))[0]["viewers"]
        time.sleep(10)  # past the connection bursts
        off1 = window(server.pid, WINDOW)
        stop, counts = threading.Event(), {"scrapes": 0, "events": 0}

        def scrape():
            while not stop.is_set():
                get("/metrics"); counts["scrapes"] += 1
                stop.wait(SCRAPE)

        def listen():
            with urllib.request.urlopen(BASE + "/api/v1/pipelines/fanout/events", timeout=60) as r:
                for line in r:
                    if line.startswith(b"data:"): counts["events"] += 1
                    if stop.is_set(): return

        threads = [threading.Thread(target=scrape, daemon=True), threading.Thread(target=listen, daemon=True)]
        for t in threads: t.start()
        on = window(server.pid, WINDOW)
        stop.set()
        off2 = window(server.pid, WINDOW)
        # The cost of one scrape, measured in bulk: BURST scrapes back to back, less what the
        # server spends anyway in that time (the OFF rate).
        c0, t0 = cpu_of(server.pid), time.monotonic()
        for _ in range(BURST): get("/metrics")
        burst_s = time.monotonic() - t0
        per_scrape = max(0.0, (cpu_of(server.pid) - c0) - burst_s * (off1 + off2) / 2) / BURST
        return {"viewers": connected, "off_before": off1, "on": on, "off_after": off2, "ratio": on / ((off1 + off2) / 2),
                "cpu_seconds_per_scrape": per_scrape, **counts}
    finally:
        served_crowd.stop(server, viewers)


def compare_stats():
    pairs = []
    for i in range(RUNS):
        order = [1, 0] if i % 2 == 0 else [0, 1]
        r = {interval: one_run(interval) for interval in order}
        off = {k: (v["off_before"] + v["off_after"]) / 2 for k, v in r.items()}
        pairs.append({"reading_every_1s": r[1], "never": r[0], "ratio": off[1] / off[0]})
        print(f"pair {i + 1}: server CPU (OFF windows) reading viewers' stats every 1 s {off[1]:.3f} cores "
              f"({r[1]['viewers']} viewers), never {off[0]:.3f} ({r[0]['viewers']} viewers): {off[1] / off[0]:.4f}×", flush=True)
    result = {"machine": os.uname().release, "cores": os.cpu_count(), "viewers": VIEWERS, "window_s": WINDOW,
              "median_stats_ratio": statistics.median(p["ratio"] for p in pairs), "pairs": pairs}
    with open(os.path.join(ROOT, "Benchmarks/results-viewer-stats-overhead.json"), "w") as f:
        json.dump(result, f, indent=2)
    print(f"\nmedian server CPU reading {VIEWERS} viewers' statistics every second, against never: "
          f"{result['median_stats_ratio']:.4f}× ({RUNS} pairs)")


def main():
    if COMPARE_STATS:
        return compare_stats()
    runs = []
    for i in range(RUNS):
        r = one_run()
        runs.append(r)
        print(f"run {i + 1} ({r['viewers']} viewers): server CPU off {r['off_before']:.3f} → on {r['on']:.3f} → off {r['off_after']:.3f} cores; "
              f"on/off {r['ratio']:.4f} ({r['scrapes']} scrapes, {r['events']} events); "
              f"one scrape {r['cpu_seconds_per_scrape'] * 1000:.2f} ms CPU", flush=True)
    ratios = [r["ratio"] for r in runs]
    result = {"machine": os.uname().release, "cores": os.cpu_count(), "viewers": VIEWERS, "window_s": WINDOW,
              "scrape_interval_s": SCRAPE, "median_on_off_ratio": statistics.median(ratios),
              "median_off_cores": statistics.median((r["off_before"] + r["off_after"]) / 2 for r in runs),
              "median_cpu_seconds_per_scrape": statistics.median(r["cpu_seconds_per_scrape"] for r in runs), "runs": runs}
    with open(os.path.join(ROOT, "Benchmarks/results-operate-overhead.json"), "w") as f:
        json.dump(result, f, indent=2)
    print(f"\nmedian server CPU with /metrics every {SCRAPE:g} s and an event stream, against neither: "
          f"{result['median_on_off_ratio']:.4f}× ({VIEWERS} viewers, {RUNS} runs); one scrape costs "
          f"{result['median_cpu_seconds_per_scrape'] * 1000:.2f} ms of CPU, "
          f"{result['median_cpu_seconds_per_scrape'] / result['median_off_cores'] * 100:.3f}% of the server's CPU at one scrape a second")


if __name__ == "__main__":
    main()
