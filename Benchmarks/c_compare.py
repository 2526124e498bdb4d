#!/usr/bin/env python3
"""Sluice loopback against a plain C webrtcbin program with the same graph
(Benchmarks/c-compare.sh).

For 720p30 VP8 and H.264 (2500 kbit/s, realtime preset, videotestsrc), alternating, RUNS
pairs of SECONDS_PER_RUN each: `sluice run Benchmarks/c-loopback.yaml --report` and
`Benchmarks/c-webrtcbin/webrtc-loopback`. CPU is user+system of the whole process (wait4,
start-up included) per minute of wall time; delivered fps is decoded frames per second after
the first decoded frame. Latency: both stamp every frame after capture and read it before the sink; Sluice is also
measured with sender and receiver in two processes (`--processes 2`, PROCESSES2=0 skips it).
MEASURE_ARGS adds arguments to Sluice's one-process `measure` (MEASURE_ARGS=--no-stages: without
the stage probes); OUT names the results file (default Benchmarks/results-c-webrtcbin.json).
"""
import json, os, re, signal, statistics, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from load_common import cpu_of, threads_of  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLUICE = os.path.abspath(os.environ.get("SLUICE") or os.path.join(ROOT, ".build/release/sluice"))
CPROG = os.path.join(ROOT, "Benchmarks/c-webrtcbin/webrtc-loopback")
RUNS = int(os.environ.get("RUNS", "5"))
SECONDS = float(os.environ.get("SECONDS_PER_RUN", "20"))
PATTERN = os.environ.get("PATTERN", "smpte")
# Extra `sluice measure` arguments (e.g. MEASURE_ARGS=--no-stages) and where the results go.
MEASURE_ARGS = os.environ.get("MEASURE_ARGS", "").split()
OUT = os.environ.get("OUT", "Benchmarks/results-c-webrtcbin.json")
W, H, FPS, KBPS = 1280, 720, 30, 2500
# (name, codec, Sluice file, vp8enc threads for the C program). "vp8-threads1" is VP8 with
# vp8enc threads=1 on both sides: with the preset's threads=2, libvpx collapses to a few fps
# at a full core whenever the 2 cores are contended (see README-aiortc-c.md).
# The C program mirrors Sluice's realtime preset: vp8enc cpu-used 16, and threads 1 on
# machines with 2 cores or fewer, else 2 (EncoderPresets.vpxThreads).
VPX_THREADS = "1" if (os.cpu_count() or 1) <= 2 else "2"
ALL_CONFIGS = [
    ("vp8", "vp8", "Benchmarks/c-loopback.yaml", VPX_THREADS),
    ("h264", "h264", "Benchmarks/c-loopback.yaml", VPX_THREADS),
    ("vp8-threads1", "vp8", "Benchmarks/c-loopback-vp8-threads1.yaml", "1"),
]
CONFIGS = [c for c in ALL_CONFIGS if c[0] in os.environ.get("CODECS", "vp8,h264").split(",")]
# Also measure Sluice with sender and receiver in two processes (PROCESSES2=0 skips it).
PROCESSES2 = os.environ.get("PROCESSES2", "1") != "0"
# The ratio's own resolution: the C program against itself, a third run in each pair
# (NOISE=0 skips it). Its median and spread say how far apart two runs of the same
# program land on this machine, next to the Sluice ÷ C figure of the same session.
NOISE = os.environ.get("NOISE", "1") != "0"


# The steady window: from this long after the first decoded frame, for this long (both sides
# are still running then: the guard's 8 s runs end after it).
STEADY_AFTER = 2.0


def steady_for():
    return max(1.0, SECONDS - 4.0)


def thread_role(name):
    """A thread's role for comparing the two programs: its name without the digits at its
    end, and libnice's receiving threads as one (`nicesrc1:src` in one program is
    `nicesrc2:src` in the other: the agents are numbered in another order)."""
    return re.sub(r"^nicesrc[0-9]+", "nicesrc", name.rstrip("0123456789"))


class CPUSamples:
    """The process's CPU seconds (user + system, /proc/PID/stat) every 50 ms while it runs,
    with the time since launch: what it used in any window of its run. Every tenth sample
    also reads each thread (`threads_of`), for where the CPU goes."""

    def __init__(self, pid, start):
        self.pid, self.start, self.samples, self.thread_samples = pid, start, [], []
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()

    def _sample(self):
        n = 0
        while True:
            try:
                cpu = cpu_of(self.pid)
                if n % 10 == 0:
                    self.thread_samples.append((time.monotonic() - self.start, threads_of(self.pid, thread_role)))
            except OSError:
                return  # reaped (samples after it ended fall outside the steady window)
            self.samples.append((time.monotonic() - self.start, cpu))
            n += 1
            time.sleep(0.05)

    def cores(self, t0, t1):
        """Cores used between t0 and t1 seconds after launch (nearest samples); None if the
        run did not cover the window."""
        inside = [s for s in self.samples if t0 <= s[0] <= t1]
        if len(inside) < 2 or inside[-1][0] - inside[0][0] < 0.5 * (t1 - t0):
            return None
        return (inside[-1][1] - inside[0][1]) / (inside[-1][0] - inside[0][0])

    def thread_rates(self, t0, t1):
        """CPU s per minute of each thread role between t0 and t1 (None if not covered)."""
        inside = [s for s in self.thread_samples if t0 <= s[0] <= t1]
        if len(inside) < 2 or inside[-1][0] - inside[0][0] < 0.5 * (t1 - t0):
            return None
        (a_t, a), (b_t, b) = inside[0], inside[-1]
        return {k: round((v - a.get(k, 0)) / (b_t - a_t) * 60, 3) for k, v in b.items()}


def run(cmd, env=None):
    """Runs `cmd`; returns its whole-process CPU seconds (wait4), wall time, stdout and its
    CPU samples (`CPUSamples`)."""
    start = time.monotonic()
    p = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    samples = CPUSamples(p.pid, start)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.monotonic() - start
    out, err = p.stdout.read().decode(), p.stderr.read().decode(errors="replace")
    rc = os.waitstatus_to_exitcode(status)
    if rc != 0:
        sys.exit(f"{cmd[0]} failed ({rc}): {err[-1500:]}")
    samples.thread.join(timeout=1)
    return usage.ru_utime + usage.ru_stime, wall, out, samples


def steady_threads(samples, ttff_ms):
    """Each thread role's CPU s per minute in the steady window (None: not covered)."""
    t0 = ttff_ms / 1000 + STEADY_AFTER
    return samples.thread_rates(t0, t0 + steady_for())


def steady_cpu(samples, ttff_ms):
    """CPU s per minute in the steady window after the first frame (None: not covered)."""
    t0 = ttff_ms / 1000 + STEADY_AFTER
    cores = samples.cores(t0, t0 + steady_for())
    return cores * 60 if cores is not None else None


def sluice(codec, file, processes=1):
    """`sluice measure`: both sides stamp every frame after capture and read it before the
    sink, and both leave the first 2 s after the first frame out of the latency figures.
    With processes=2 the sender and receiver run in two namespaces (latency only: the CPU
    of two processes is not the C program's one)."""
    fd, path = tempfile.mkstemp(suffix=".json"); os.close(fd)
    env = dict(os.environ, CODEC=codec, W=str(W), H=str(H), BITRATE=str(KBPS), PATTERN=PATTERN)
    cpu, wall, _, samples = run([SLUICE, "measure", file, "--duration", str(SECONDS), "--warmup", "2", "--quiet",
                                 "--json", path] + (["--processes", "2"] if processes == 2 else MEASURE_ARGS), env)
    with open(path) as f:
        rep = json.load(f)
    os.unlink(path)
    lat = rep["latency"]
    ttff = rep.get("time_to_first_frame_ms") or 0
    # Frames read back in the steady window (sample times are the run's, from its start).
    t0 = ttff / 1000 + STEADY_AFTER
    steady = [x for x in rep["samples"] if t0 <= x[0] <= t0 + steady_for()]
    steady_fps = (len(steady) - 1) / (steady[-1][0] - steady[0][0]) if len(steady) > 1 and steady[-1][0] > steady[0][0] else None
    return {"cpu_s_per_min": cpu / wall * 60, "steady_cpu_s_per_min": steady_cpu(samples, ttff), "steady_fps": steady_fps,
            "steady_threads": steady_threads(samples, ttff), "cpu_seconds": cpu, "wall_s": wall, "frames": rep["frames"]["received"],
            "fps": rep["delivered_fps"], "ttff_ms": rep.get("time_to_first_frame_ms") or 0,
            "from_key_ms": from_key_ms(rep["start_up"].get("steps") or []),
            "p50_ms": lat["p50_ms"], "p95_ms": lat["p95_ms"], "p99_ms": lat["p99_ms"],
            "encoded_kbps": rep["encoder_bitrate_kbps"]}


def from_key_ms(steps):
    """Sluice's first frame after GStreamer's one-time DTLS key: the first frame minus the
    later of `DTLS key made` and `playing` (what a process pays once the key exists)."""
    at = {s["step"]: s["at_ms"] for s in steps}
    if "first frame" not in at:
        return None
    return at["first frame"] - max(at.get("DTLS key made", 0), at.get("playing", 0))


def cprog(codec, threads):
    # WARM_KEY=1: the C program makes the key first and says when, for the same figure.
    cpu, wall, out, samples = run([CPROG, codec, str(W), str(H), str(FPS), str(KBPS), str(SECONDS), PATTERN, threads],
                                  dict(os.environ, WARM_KEY="1"))
    rep = json.loads(out.strip().splitlines()[-1])
    ttff = rep["time_to_first_frame_ms"] / 1000
    from_key = rep["time_to_first_frame_ms"] - max(rep["key_ms"], rep["playing_ms"]) if rep["time_to_first_frame_ms"] > 0 else None
    return {"cpu_s_per_min": cpu / wall * 60, "steady_cpu_s_per_min": steady_cpu(samples, ttff * 1000),
            "steady_threads": steady_threads(samples, ttff * 1000),
            "steady_fps": rep["steady_frames"] / rep["steady_s"] if rep["steady_s"] > 0 else None,
            "cpu_seconds": cpu, "wall_s": wall, "frames": rep["frames"],
            "fps": rep["frames"] / max(1e-9, rep["duration_s"] - ttff), "ttff_ms": ttff * 1000, "from_key_ms": from_key,
            "p50_ms": rep["latency_p50_ms"], "p95_ms": rep["latency_p95_ms"], "p99_ms": rep["latency_p99_ms"],
            "stamps_unreadable": rep["stamps_unreadable"]}


def med(rows, k):
    return statistics.median(r[k] for r in rows)


def thread_medians(s_rows, c_rows):
    """Each thread role's steady-window CPU s per minute, median over the runs, Sluice and C:
    {role: [sluice, c]}, largest first. A role a program lacks counts 0 in its runs."""
    s_rows = [r for r in s_rows if r.get("steady_threads")]
    c_rows = [r for r in c_rows if r.get("steady_threads")]
    roles = set()
    for r in s_rows + c_rows:
        roles |= set(r["steady_threads"])
    med_of = lambda rows, k: statistics.median(r["steady_threads"].get(k, 0) for r in rows) if rows else 0
    out = {k: [round(med_of(s_rows, k), 3), round(med_of(c_rows, k), 3)] for k in roles}
    return dict(sorted(out.items(), key=lambda kv: -(kv[1][0] + kv[1][1])))


def self_cell(m):
    """The C program against itself: median and range of the steady-window ratios."""
    if m.get("c_self_steady_ratio") is None:
        return "–"
    lo, hi = m["c_self_steady_range"]
    return f"{m['c_self_steady_ratio']:.3f} ({lo:.2f}–{hi:.2f})"


def med_known(rows, k):
    xs = [r[k] for r in rows if r.get(k) is not None]
    return statistics.median(xs) if xs else None


def summarize(name, codec, file, threads, s_rows, c_rows, s2_rows, again_rows):
    """One configuration's rows and their medians, as the results file keeps them."""
    pair = statistics.median(s["cpu_s_per_min"] / c["cpu_s_per_min"] for s, c in zip(s_rows, c_rows))
    steady = [s["steady_cpu_s_per_min"] / c["steady_cpu_s_per_min"] for s, c in zip(s_rows, c_rows)
              if s.get("steady_cpu_s_per_min") and c.get("steady_cpu_s_per_min")]
    roles = thread_medians(s_rows, c_rows)
    noise = [a["steady_cpu_s_per_min"] / c["steady_cpu_s_per_min"] for a, c in zip(again_rows, c_rows)
             if a.get("steady_cpu_s_per_min") and c.get("steady_cpu_s_per_min")]
    return ({"config": name, "codec": codec, "sluice_file": file, "vp8_threads": threads if codec == "vp8" else None, "width": W, "height": H, "fps": FPS, "bitrate_kbps": KBPS, "pattern": PATTERN,
                    "sluice": s_rows, "c": c_rows, "sluice_2_processes": s2_rows, "c_again": again_rows,
                    "median": {"sluice_cpu_s_per_min": med(s_rows, "cpu_s_per_min"), "c_cpu_s_per_min": med(c_rows, "cpu_s_per_min"),
                               "sluice_fps": med(s_rows, "fps"), "c_fps": med(c_rows, "fps"),
                               "sluice_ttff_ms": med(s_rows, "ttff_ms"), "c_ttff_ms": med(c_rows, "ttff_ms"),
                               "sluice_p50_ms": med(s_rows, "p50_ms"), "c_p50_ms": med(c_rows, "p50_ms"),
                               "sluice_p95_ms": med(s_rows, "p95_ms"), "c_p95_ms": med(c_rows, "p95_ms"),
                               "sluice_p99_ms": med(s_rows, "p99_ms"), "c_p99_ms": med(c_rows, "p99_ms"),
                               "sluice2_p50_ms": med(s2_rows, "p50_ms") if s2_rows else None,
                               "sluice2_p95_ms": med(s2_rows, "p95_ms") if s2_rows else None,
                               "ratio": med(s_rows, "cpu_s_per_min") / med(c_rows, "cpu_s_per_min"),
                               "pair_ratio": pair,
                               "steady_pair_ratio": statistics.median(steady) if steady else None,
                               "threads": roles,
                               "c_self_steady_ratio": statistics.median(noise) if noise else None,
                               "c_self_steady_range": [min(noise), max(noise)] if noise else None,
                               "sluice_steady_fps": med_known(s_rows, "steady_fps"), "c_steady_fps": med_known(c_rows, "steady_fps")}})


def report(results, runs, seconds=None):
    """Prints the table and the per-thread figures, and writes the results file."""
    seconds = seconds or SECONDS
    print(f"\nSluice vs plain C webrtcbin, 720p30 loopback, {KBPS} kbit/s, videotestsrc pattern={PATTERN}, "
          f"{runs} alternating pairs of {seconds:.0f} s, medians (CPU s per minute of the whole process; 60 = one core)\n")
    print("| configuration | Sluice CPU s/min | C CPU s/min | Sluice ÷ C (median of pairs) | steady window ÷ C (median of pairs) | C ÷ C steady (range) | steady fps S / C | p50 ms S / C | p95 ms S / C | target ≤ 1.03 (steady) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    fmt = lambda v, f: "–" if v is None else format(v, f)
    for r in results:
        m = r["median"]
        ok = "met" if m["steady_pair_ratio"] is not None and m["steady_pair_ratio"] <= 1.03 else "NOT met"
        if min(m["sluice_steady_fps"] or 0, m["c_steady_fps"] or 0) < 28:
            ok += " (but fps collapsed: not a like-for-like load)"
        print(f"| {r['config']} | {m['sluice_cpu_s_per_min']:.2f} | {m['c_cpu_s_per_min']:.2f} | {m['ratio']:.3f} ({m['pair_ratio']:.3f}) "
              f"| {fmt(m['steady_pair_ratio'], '.3f')} | {self_cell(m)} | {fmt(m['sluice_steady_fps'], '.1f')} / {fmt(m['c_steady_fps'], '.1f')} "
              f"| {m['sluice_p50_ms']:.1f} / {m['c_p50_ms']:.1f} | {m['sluice_p95_ms']:.1f} / {m['c_p95_ms']:.1f} | {ok} |")
    for r in results:
        print(f"\n{r['config']}: steady-window CPU s per minute by thread (medians of runs), Sluice / C")
        for role, (sv, cv) in r["median"]["threads"].items():
            if sv + cv >= 0.05:
                print(f"  {role:24} {sv:6.2f} / {cv:6.2f}")
    with open(os.path.join(ROOT, OUT), "w") as f:
        json.dump({"runs": runs, "seconds": seconds, "sluice_measure_args": MEASURE_ARGS,
                   "steady_window": f"CPU (/proc/PID/stat every 50 ms) and decoded frames from {STEADY_AFTER:g} s after the first frame, for SECONDS - 4 s",
                   "latency": "both sides stamp frames after capture and read them before the sink (framestamp); first 2 s after the first frame left out",
                   "results": results}, f, indent=2)


def main():
    results = []
    for name, codec, file, threads in CONFIGS:
        s_rows, c_rows, s2_rows, again_rows = [], [], [], []
        for i in range(RUNS):
            for who in (["sluice", "c"] if i % 2 == 0 else ["c", "sluice"]):
                (s_rows if who == "sluice" else c_rows).append(sluice(codec, file) if who == "sluice" else cprog(codec, threads))
            if PROCESSES2:
                s2_rows.append(sluice(codec, file, processes=2))
            if NOISE:
                again_rows.append(cprog(codec, threads))
            print(f"{name} run {i+1}/{RUNS}: sluice {s_rows[-1]['cpu_s_per_min']:.2f} cpu-s/min {s_rows[-1]['fps']:.1f} fps"
                  f" p50 {s_rows[-1]['p50_ms']:.1f} p95 {s_rows[-1]['p95_ms']:.1f} ms"
                  f" | C {c_rows[-1]['cpu_s_per_min']:.2f} cpu-s/min {c_rows[-1]['fps']:.1f} fps"
                  f" p50 {c_rows[-1]['p50_ms']:.1f} p95 {c_rows[-1]['p95_ms']:.1f} ms"
                  + (f" | Sluice 2 processes p50 {s2_rows[-1]['p50_ms']:.1f} p95 {s2_rows[-1]['p95_ms']:.1f} ms" if s2_rows else ""),
                  file=sys.stderr)
        results.append(summarize(name, codec, file, threads, s_rows, c_rows, s2_rows, again_rows))
    report(results, RUNS)


def merge(paths):
    """MERGE=a.json,b.json: the runs of several result files of the same build, as one (more
    pairs, the same medians' code)."""
    files = [json.load(open(p)) for p in paths]
    results = []
    for first in files[0]["results"]:
        rows = {k: [] for k in ("sluice", "c", "sluice_2_processes", "c_again")}
        for f in files:
            same = next(r for r in f["results"] if r["config"] == first["config"])
            for k in rows:
                rows[k] += same.get(k) or []
        results.append(summarize(first["config"], first["codec"], first["sluice_file"], first["vp8_threads"],
                                 rows["sluice"], rows["c"], rows["sluice_2_processes"], rows["c_again"]))
    report(results, sum(f["runs"] for f in files), files[0]["seconds"])



if __name__ == "__main__":
    if os.environ.get("MERGE"):
        merge(os.environ["MERGE"].split(","))
    else:
        main()
