#!/usr/bin/env python3
"""Fan-out benchmark (issue 5, row 3).

One capture and one H.264 encoder at 720p30 (`sluice serve --pipeline
Benchmarks/fanout-720p-h264.yaml`), N receiving peers, each a `sluice run` process with its own
webrtcbin playing the stream over WHEP and counting frames without decoding
(Benchmarks/fanout-viewer.yaml, `decode: none`). For N = 1, 2, 4, ... it reports the slowest
peer's steady frame rate (the median of its per-second receive rates from second STEADY_FROM
on: frames queued while a peer connects arrive in a burst, which would inflate an average
from its first frame), the server's encoded frame rate (one encoder whatever N is) and the
server's CPU. The answer is the largest N at which every peer still gets at least 29 of
30 fps and the encoder still makes at least 29 (median of RUNS runs per N).

Run through Benchmarks/fanout.sh (release build, loopback-only namespace).
Env: RUNS (3), SECONDS_PER_RUN (10), MAX_N (40).
"""
import json, os, statistics, subprocess, sys, tempfile, time, urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from load_common import receive_rates  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLUICE = os.path.abspath(os.environ.get("SLUICE") or os.path.join(ROOT, ".build/release/sluice"))
RUNS = int(os.environ.get("RUNS", "3"))
SECONDS = float(os.environ.get("SECONDS_PER_RUN", "10"))
MAX_N = int(os.environ.get("MAX_N", "48"))
STEADY_FROM = float(os.environ.get("STEADY_FROM", "4"))
PORT = 18600
STEPS = [n for n in [1, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 24, 28, 32, 40, 48] if n <= MAX_N]


def cpu_of(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def streams():
    with urllib.request.urlopen(f"http://127.0.0.1:{PORT}/streams.json", timeout=5) as r:
        return json.load(r)[0]


def one_run(n):
    server = subprocess.Popen([SLUICE, "serve", "--port", str(PORT), "--pipeline", "Benchmarks/fanout-720p-h264.yaml"],
                              cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 20
        while True:  # bounded wait until the server answers
            try:
                streams(); break
            except OSError:
                if time.monotonic() > deadline: sys.exit("the server did not start")
                time.sleep(0.05)
        reports, procs = [], []
        env = dict(os.environ, SLUICE_WHEP=f"http://127.0.0.1:{PORT}/whep/fanout")
        cpu0, enc0, t0 = cpu_of(server.pid), streams()["encoded_video_frames"], time.monotonic()
        for _ in range(n):
            fd, path = tempfile.mkstemp(suffix=".json"); os.close(fd)
            reports.append(path)
            procs.append(subprocess.Popen([SLUICE, "run", "Benchmarks/fanout-viewer.yaml", "--duration", str(SECONDS),
                                           "--report", path], cwd=ROOT, env=env,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE))
        outputs = []
        for p in procs:
            out, err = p.communicate(timeout=SECONDS + 60)
            if p.returncode != 0:
                sys.exit(f"a viewer failed ({p.returncode}): {err.decode(errors='replace')[-600:]}")
            outputs.append(out.decode(errors="replace"))
        cpu1, enc1, t1 = cpu_of(server.pid), streams()["encoded_video_frames"], time.monotonic()
        fps = []
        for path, out in zip(reports, outputs):
            os.unlink(path)
            # Live lines: "   5.0s  recv  29.9 fps ..." (load_common.receive_rates).
            rates = [r for t, r in receive_rates(out) if t >= STEADY_FROM]
            fps.append(statistics.median(rates) if rates else 0.0)
        # A viewer with no live line from STEADY_FROM on was still starting: counted apart,
        # so a short run says "late" instead of a bare 0 fps.
        return {"min_fps": min(fps), "median_fps": statistics.median(fps),
                "viewers_without_steady_second": sum(1 for r in fps if r == 0.0),
                "server_encoded_fps": (enc1 - enc0) / (t1 - t0), "server_cpu_cores": (cpu1 - cpu0) / (t1 - t0)}
    finally:
        server.terminate(); server.wait(timeout=15)


def main():
    rows, largest = [], 0
    for n in STEPS:
        runs = [one_run(n) for _ in range(RUNS)]
        row = {"n": n, **{k: statistics.median(r[k] for r in runs) for k in runs[0]}}
        rows.append(row)
        # Every peer gets at least 29 fps, and there are 29 to get: an overloaded machine also
        # shows as an encoder below 29 fps (and bursts that push some peers above 30).
        ok = row["min_fps"] >= 29 and row["server_encoded_fps"] >= 29
        print(f"N={n:3d}  slowest peer {row['min_fps']:5.1f} fps  median peer {row['median_fps']:5.1f} fps  "
              f"server encodes {row['server_encoded_fps']:4.1f} fps using {row['server_cpu_cores']:.2f} cores  "
              f"{'ok' if ok else 'below 29 fps'}", flush=True)
        if not ok: break
        largest = n
    result = {"machine": os.uname().release, "cores": os.cpu_count(), "runs_per_n": RUNS, "seconds_per_run": SECONDS,
              "largest_n_at_29fps": largest, "rows": rows}
    with open(os.path.join(ROOT, "Benchmarks/results-fanout.json"), "w") as f:
        json.dump(result, f, indent=2)
    print(f"\nlargest N with every peer at >= 29 fps: {largest}")


if __name__ == "__main__":
    main()
