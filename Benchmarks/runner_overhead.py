#!/usr/bin/env python3
"""Runner overhead benchmark (issue 2).

(a) The same capture -> encode -> fakesink graph (720p30 H.264, realtime preset) under
    `sluice run Pipelines/encode-only.yaml` and under `gst-launch-1.0`, alternating, N runs
    each: CPU seconds per minute (user+system of the whole process, start-up included).
(b) 720p30 H.264 WebRTC loopback under `sluice run`: CPU seconds per minute and time to
    first frame, with and without the Opus branch.

Run through Benchmarks/runner-overhead.sh, which builds release and enters a loopback-only
network namespace. Prints a Markdown table of medians and writes JSON next to this file.
"""
import json, os, signal, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLUICE = os.path.abspath(os.environ.get("SLUICE") or os.path.join(ROOT, ".build/release/sluice"))
RUNS = int(os.environ.get("RUNS", "5"))
SECONDS = float(os.environ.get("SECONDS_PER_RUN", "20"))

# The graph Sluice builds for Pipelines/encode-only.yaml, element for element
# (GraphBuilder.buildSend with transport kind none, EncoderPresets realtime x264enc).
GST_LAUNCH = [
    "gst-launch-1.0", "-q", "-e",
    "videotestsrc", "is-live=true", "pattern=smpte", "!",
    "capsfilter", "caps=video/x-raw,width=1280,height=720,framerate=30/1,format=I420", "!",
    "queue", "max-size-buffers=3", "max-size-bytes=0", "max-size-time=0", "leaky=downstream", "!",
    "x264enc", "bitrate=2000", "key-int-max=60", "tune=zerolatency", "speed-preset=ultrafast",
    "bframes=0", "b-adapt=false", "rc-lookahead=0", "sync-lookahead=0", "vbv-buf-capacity=300", "!",
    "capsfilter", "caps=video/x-h264,profile=constrained-baseline,stream-format=byte-stream", "!",
    "h264parse", "config-interval=-1", "!",
    "fakesink", "sync=false", "async=false",
]


def run(cmd, stop_after=None):
    """Runs cmd; if stop_after, sends SIGINT then. Returns (cpu_seconds, wall_seconds, rc)."""
    start = time.monotonic()
    p = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if stop_after is not None:
        time.sleep(stop_after)  # the benchmark's own pacing, not a test wait
        p.send_signal(signal.SIGINT)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.monotonic() - start
    p.returncode = os.waitstatus_to_exitcode(status)
    err = p.stderr.read().decode(errors="replace")
    if p.returncode != 0:
        sys.exit(f"{cmd[0]} failed ({p.returncode}): {err[-800:]}")
    return usage.ru_utime + usage.ru_stime, wall


def sluice_report(args):
    fd, path = tempfile.mkstemp(suffix=".json"); os.close(fd)
    cpu, wall = run([SLUICE, "run"] + args + ["--quiet", "--report", path])
    with open(path) as f:
        rep = json.load(f)
    os.unlink(path)
    return cpu, wall, rep


def med(xs):
    return statistics.median(xs)


def main():
    a_sluice, a_gst = [], []
    for i in range(RUNS):
        order = [("sluice", None), ("gst", None)] if i % 2 == 0 else [("gst", None), ("sluice", None)]
        for who, _ in order:
            if who == "sluice":
                cpu, wall, rep = sluice_report(["Pipelines/encode-only.yaml", "--duration", str(SECONDS)])
                a_sluice.append({"cpu_s_per_min": cpu / wall * 60, "frames": rep["send"]["video"]["frames"], "wall": wall})
            else:
                cpu, wall = run(GST_LAUNCH, stop_after=SECONDS)
                a_gst.append({"cpu_s_per_min": cpu / wall * 60, "wall": wall})
        print(f"(a) run {i+1}/{RUNS}: sluice {a_sluice[-1]['cpu_s_per_min']:.2f} cpu-s/min, "
              f"gst-launch {a_gst[-1]['cpu_s_per_min']:.2f} cpu-s/min", file=sys.stderr)

    b = {"video+audio": [], "video only": []}
    for i in range(RUNS):
        for label in ["video+audio", "video only"]:
            f = "Pipelines/loopback-h264.yaml" if label == "video+audio" else "Benchmarks/loopback-h264-video.yaml"
            cpu, wall, rep = sluice_report([f, "--duration", str(SECONDS)])
            sent = rep["send"]["video"]["frames"]; recv = rep["receive"]["video"]["frames"]
            b[label].append({"cpu_s_per_min": cpu / wall * 60, "ttff_ms": rep["time_to_first_frame_ms"],
                             "delivered": recv / max(1, sent), "fps": rep["receive"]["video"]["fps"]})
        print(f"(b) run {i+1}/{RUNS}: " + ", ".join(
            f"{k} {v[-1]['cpu_s_per_min']:.1f} cpu-s/min ttff {v[-1]['ttff_ms']:.0f} ms" for k, v in b.items()), file=sys.stderr)

    s = med([r["cpu_s_per_min"] for r in a_sluice]); g = med([r["cpu_s_per_min"] for r in a_gst])
    # Each run pairs one sluice and one gst-launch measurement taken back to back: the median
    # of those per-pair ratios is the fairer figure on a noisy machine.
    pair = med([x["cpu_s_per_min"] / y["cpu_s_per_min"] for x, y in zip(a_sluice, a_gst)])
    print(f"\nRunner overhead, {RUNS} runs of {SECONDS:.0f} s each, medians (CPU seconds per minute of run; 60 = one core)\n")
    print("| measurement | sluice run | gst-launch-1.0 | ratio |")
    print("|---|---|---|---|")
    print(f"| (a) 720p30 H.264 capture→encode→fakesink | {s:.2f} | {g:.2f} | {s/g:.3f} (median of per-pair ratios {pair:.3f}) |")
    for label, rows in b.items():
        c = med([r["cpu_s_per_min"] for r in rows]); t = med([r["ttff_ms"] for r in rows])
        d = med([r["delivered"] for r in rows]); f = med([r["fps"] for r in rows])
        print(f"| (b) 720p30 H.264 loopback, {label}: CPU | {c:.1f} cpu-s/min = {c/60:.2f} core | – | – |")
        print(f"| (b) 720p30 H.264 loopback, {label}: first frame / delivered / fps | {t:.0f} ms / {d*100:.1f}% / {f:.1f} | – | – |")
    out = {"runs": RUNS, "seconds": SECONDS, "a_sluice": a_sluice, "a_gst_launch": a_gst, "b": b,
           "median": {"a_sluice": s, "a_gst_launch": g, "a_ratio": s / g, "a_pair_ratio": pair}}
    with open(os.path.join(ROOT, "Benchmarks/results-runner-overhead.json"), "w") as f:
        json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
