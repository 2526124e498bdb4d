#!/usr/bin/env python3
"""The guard: short versions of the headline benchmarks, compared with what was recorded.

Run through Benchmarks/guard.sh (release build, loopback-only namespace; congestion makes
namespaces of its own). Each figure is measured against its reference in the same run where
one exists (a ratio), and compared with Benchmarks/results-guard.json. A figure worse than
recorded by more than its noise band makes the guard say so and exit 1.

  full   (default, under 6 minutes on 2 cores)
    latency vs C     sluice measure Benchmarks/c-loopback.yaml against the plain C webrtcbin
                     program, VP8 and H.264, 720p30 2500 kbit/s smpte, alternating pairs:
                     p50 and p95 Sluice ÷ C, CPU Sluice ÷ C (median of pairs: the whole process,
                     and a steady window from 2 s after the first frame, both sides counted
                     the same way, c_compare.CPUSamples); from the same
                     runs, the first frame after GStreamer's one-time DTLS key, ÷ the C
                     program's (WARM_KEY=1: it makes the key first and says when)
    first frame      cold: `sluice run Pipelines/loopback.yaml` PLAYING → first decoded frame,
                     ÷ the C program's own in the same run; warm: a Pion viewer's WHEP POST →
                     first complete frame (its last packet in) from `sluice serve`, ÷ the same
                     viewer against Pion's own WHEP server, and POST → DTLS done alike (the
                     connection: a floor under the first frame); the first frame again from
                     the same stream with `gop_cache: true` (GOP_CACHE=true), 5 alternating runs each
                     (when the Pion peer is built: Tests/Interop/pion/build.sh);
                     beside it, not guarded, headless Chromium's POST → first frame from
                     the server's web page (when Chromium and the test venv are installed)
    fan-out          `sluice serve` with 16 WHEP viewers (Benchmarks/fanout.py's setup): server
                     CPU per viewer (ms of a core per viewer-second)
    congestion       Pipelines/adaptive.yaml --processes 2 behind `rate 1mbit`: latency p95
                     after 5 s, delivered fps
    filters vs C     720p I420: a Swift grayscale filter ÷ the same filter in C, per frame
    audio            `sluice measure Pipelines/loopback.yaml` with an audio stamp every 400 ms,
                     2 runs: the median mouth-to-ear of all their stamps, in ms (no reference
                     program measures this, so the figure is absolute; its band is at least
                     40%: see MIN_BANDS)
  fast   (GUARD=fast, CI: under 2 minutes) latency and CPU vs C, one pair per codec, and one
         audio mouth-to-ear run, with a band of at least 100%: it catches a 2× regression, not a 5% one. CI runs it on the
         debug build it tests (SLUICE=.build/debug/sluice), so its figures are recorded apart
         (the `fast` entry of the results) from the full guard's release figures (`full`).

GUARD_ONLY=audio (a comma-separated list of steps: latency, cold, warm, fanout, congestion,
filters, audio) measures only those; with GUARD_RECORD it records only their figures, keeping
the others as they were.

Recording (GUARD_RECORD=3): runs the full guard that many times and writes each figure's
median and its noise band to Benchmarks/results-guard.json. The band is measured, not
guessed: twice the largest relative distance of a run from the median, at least 10%.
Env: SLUICE (binary; default .build/release/sluice; the full guard wants sluice-filter-bench
beside it), GUARD_SECONDS (8).
"""
import json, os, statistics, subprocess, sys, tempfile, time, urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import c_compare as cc  # noqa: E402
from bench_common import SLUICE, wait_http  # noqa: E402
import fanout  # noqa: E402

ROOT = os.path.dirname(HERE)
MODE = os.environ.get("GUARD", "full")
SECONDS = float(os.environ.get("GUARD_SECONDS", "8"))
RECORDED = os.path.join(HERE, "results-guard.json")
PION = os.path.join(ROOT, ".build/interop/pionpeer")
MIN_BAND, FAST_BAND = 0.10, 1.0
# Figures noisier than their recording runs may show: the audio stamps' place within Opus's
# 20 ms frame is uniform, so the pooled median of ~36 stamps moves by about 1.2 ms (one SD,
# 13% of 9 ms) between runs; 40% is 3 SD.
# The warm first frames are ratios over Pion's 3–4 ms: one run's median moves by a frame
# interval (33 ms) with where the viewer's connection falls between two frames.
MIN_BANDS = {"audio mouth-to-ear p50 (ms)": 0.40, "warm first frame ÷ Pion server": 1.0,
             "warm first frame, gop_cache ÷ Pion server": 1.0}


def log(text):
    print(text, file=sys.stderr, flush=True)


def latency_vs_c(pairs):
    """Sluice's p50, p95 and CPU as ratios of the C program's, per codec; and the cold
    first frames of the C runs (the reference of the cold start)."""
    cc.SLUICE, cc.SECONDS = SLUICE, SECONDS
    figures, c_ttff, from_key = {}, [], {"sluice": [], "c": []}
    for name, codec, file, threads in [c for c in cc.ALL_CONFIGS if c[0] in ("vp8", "h264")]:
        s_rows, c_rows = [], []
        for i in range(pairs):
            for who in (["sluice", "c"] if i % 2 == 0 else ["c", "sluice"]):
                if who == "sluice":
                    s_rows.append(cc.sluice(codec, file))
                else:
                    c_rows.append(cc.cprog(codec, threads))
        c_ttff += [r["ttff_ms"] for r in c_rows]
        for who, rows in (("sluice", s_rows), ("c", c_rows)):
            from_key[who] += [r["from_key_ms"] for r in rows if r.get("from_key_ms") is not None]
        med = lambda rows, k: statistics.median(r[k] for r in rows)
        figures[f"{name} latency p50 ÷ C"] = med(s_rows, "p50_ms") / med(c_rows, "p50_ms")
        figures[f"{name} latency p95 ÷ C"] = med(s_rows, "p95_ms") / med(c_rows, "p95_ms")
        figures[f"{name} CPU ÷ C"] = statistics.median(s["cpu_s_per_min"] / c["cpu_s_per_min"] for s, c in zip(s_rows, c_rows))
        steady = [s["steady_cpu_s_per_min"] / c["steady_cpu_s_per_min"] for s, c in zip(s_rows, c_rows)
                  if s.get("steady_cpu_s_per_min") and c.get("steady_cpu_s_per_min")]
        if steady:
            figures[f"{name} CPU steady ÷ C"] = statistics.median(steady)
        log(f"{name}: Sluice p50 {med(s_rows, 'p50_ms'):.1f} p95 {med(s_rows, 'p95_ms'):.1f} ms, "
            f"C p50 {med(c_rows, 'p50_ms'):.1f} p95 {med(c_rows, 'p95_ms'):.1f} ms, "
            f"CPU {med(s_rows, 'cpu_s_per_min'):.2f} / {med(c_rows, 'cpu_s_per_min'):.2f} s/min")
    if from_key["sluice"] and from_key["c"]:
        s_key, c_key = statistics.median(from_key["sluice"]), statistics.median(from_key["c"])
        log(f"first frame after the DTLS key: Sluice {s_key:.0f} ms, C {c_key:.0f} ms (medians over both codecs)")
        figures["first frame after the DTLS key ÷ C"] = s_key / c_key
    return figures, statistics.median(c_ttff)


def cold_first_frame(c_ttff_ms, runs=3):
    ttffs = []
    for _ in range(runs):
        fd, path = tempfile.mkstemp(suffix=".json"); os.close(fd)
        p = subprocess.run([SLUICE, "run", "Pipelines/loopback.yaml", "--duration", "1.5", "--quiet", "--report", path],
                           cwd=ROOT, capture_output=True, text=True, timeout=60)
        if p.returncode != 0:
            sys.exit(f"sluice run failed: {p.stderr[-800:]}")
        with open(path) as f:
            ttffs.append(json.load(f)["time_to_first_frame_ms"])
        os.unlink(path)
    log(f"cold first frame: Sluice {statistics.median(ttffs):.0f} ms, C {c_ttff_ms:.0f} ms")
    return {"cold first frame ÷ C": statistics.median(ttffs) / c_ttff_ms}


# A Pion viewer's start-up steps (whep-play's `steps_ms`), ms after its WHEP POST.
WARM_STEPS = ("answer", "ice connected", "peer connected", "first frame complete")


def warm_first_frame(runs=5):
    """A Pion viewer's WHEP POST → first complete frame (its last packet in), Sluice's
    server ÷ Pion's own; and the same for the connection alone (POST → DTLS done)."""
    if not os.access(PION, os.X_OK):
        log(f"warm first frame: skipped ({PION} is not built; Tests/Interop/pion/build.sh builds it)")
        return {}
    tmp = tempfile.mkdtemp()
    v, a = os.path.join(tmp, "v.ivf"), os.path.join(tmp, "a.ogg")
    subprocess.run(["gst-launch-1.0", "-q", "videotestsrc", "num-buffers=300", "pattern=ball", "!",
                    "video/x-raw,width=640,height=360,framerate=30/1", "!", "vp8enc", "deadline=1", "keyframe-max-dist=60",
                    "!", "avmux_ivf", "!", "filesink", f"location={v}"], check=True)
    subprocess.run(["gst-launch-1.0", "-q", "audiotestsrc", "num-buffers=500", "!", "audio/x-raw,rate=48000,channels=2", "!",
                    "opusenc", "!", "oggmux", "max-page-delay=1", "!", "filesink", f"location={a}"], check=True)
    server = subprocess.Popen([SLUICE, "serve", "--port", "18710", "--pipeline", "Pipelines/serve-av.yaml"], cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # The same stream with `gop_cache: true`: viewers start from the encoder's latest keyframe.
    cached = subprocess.Popen([SLUICE, "serve", "--port", "18712", "--pipeline", "Pipelines/serve-av.yaml"], cwd=ROOT,
                              env=dict(os.environ, GOP_CACHE="true"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pion = subprocess.Popen([PION, "whep-serve", "--listen", "127.0.0.1:18711", "--video", v, "--audio", a, "--seconds", "120"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_http("http://127.0.0.1:18710/status.json")
        wait_http("http://127.0.0.1:18712/status.json")
        time.sleep(2)  # the shared encoder runs before the first viewer: a live stream's case
        steps = {"sluice": [], "cached": [], "pion": []}
        servers = (("sluice", "http://127.0.0.1:18710/whep/serve-av"), ("cached", "http://127.0.0.1:18712/whep/serve-av"),
                   ("pion", "http://127.0.0.1:18711/whep"))
        for _ in range(runs):  # alternating, so all see the same machine
            for who, url in servers:
                steps[who].append(pion_viewer_steps(who, url))
        # (A first frame whose last packet was not seen counts when the next frame showed it.)
        med = {who: {k: statistics.median(r.get(k, r["first frame"]) for r in rs) for k in WARM_STEPS}
               for who, rs in steps.items()}
        for who, name in (("sluice", "from sluice serve"), ("cached", "from sluice serve, gop_cache"), ("pion", "from Pion's server")):
            log(f"warm first frame (Pion viewer) {name}: " + ", ".join(f"{k} {med[who][k]:.1f}" for k in WARM_STEPS) + " ms")
        s, p = med["sluice"]["first frame complete"], med["pion"]["first frame complete"]
        sc, pc = med["sluice"]["peer connected"], med["pion"]["peer connected"]
        chromium = chromium_first_frame("http://127.0.0.1:18710", "serve-av", runs)
        if chromium is not None:
            log(f"warm first frame (Chromium, the web page: WHEP POST → first frame to show): from sluice serve {chromium:.0f} ms")
        # The connection (POST → answer → ICE → DTLS) is a floor under the first frame: a
        # frame cannot come before it. Sluice's is webrtcbin's, libnice's and OpenSSL's.
        return {"warm first frame ÷ Pion server": s / p, "warm connection (POST → DTLS done) ÷ Pion server": sc / pc,
                "warm first frame, gop_cache ÷ Pion server": med["cached"]["first frame complete"] / p}
    finally:
        for proc in (server, cached, pion):
            proc.terminate(); proc.wait(timeout=15)


def pion_viewer_steps(who, url, attempts=2):
    """One Pion viewer's start-up steps against `url`. A viewer that reports nothing is logged
    with its last words and tried once more; twice is a failure of the guard."""
    for attempt in range(1, attempts + 1):
        p = subprocess.run([PION, "whep-play", "--url", url, "--seconds", "1", "--codec", "vp8"],
                           capture_output=True, text=True, timeout=30)
        lines = p.stdout.strip().splitlines()
        if p.returncode == 0 and lines:
            return json.loads(lines[-1])["steps_ms"]
        log(f"warm first frame: a Pion viewer of {who} failed (exit {p.returncode}, attempt {attempt}): {p.stderr[-600:]}")
    sys.exit(f"warm first frame: Pion viewers of {who} failed {attempts} times in a row")


def chromium_first_frame(url, stream, runs):
    """Headless Chromium playing `stream` from the server's web page: the median of its
    WHEP POST → first frame (the page's `firstFrameMs`); None when Chromium or the test
    venv is not installed. Reported beside the Pion figure, not guarded."""
    python = os.path.join(ROOT, ".venv/bin/python")
    if not (os.access("/usr/bin/chromium", os.X_OK) and os.access(python, os.X_OK)):
        log("warm first frame (Chromium): skipped (Chromium or .venv not installed: Scripts/install.sh)")
        return None
    ms = []
    for _ in range(runs):
        p = subprocess.run([python, "Tests/Browser/browser_check.py", "play", url, stream, "--min-frames", "1",
                            "--measure", "0", "--timeout", "30"], cwd=ROOT, capture_output=True, text=True, timeout=120)
        if p.returncode == 0 and p.stdout.strip():
            first = json.loads(p.stdout.strip().splitlines()[-1]).get("firstFrameMs")
            if first is not None:
                ms.append(first)
    return statistics.median(ms) if ms else None


def fan_out(n=16):
    """Server CPU per viewer-second. A run in which no viewer got a steady second measured a
    server with nobody to send to (it reads cheaper, not worse): it is run once more, and if
    that is void too the figure is void (None), which fails the guard."""
    fanout.SLUICE, fanout.SECONDS, fanout.STEADY_FROM = SLUICE, SECONDS, 4
    for attempt in (1, 2):
        r = fanout.one_run(n)
        # Viewers' rates are only logged: 16 viewer processes starting on 2 cores are still
        # catching up in a short run, and their bursts make a noisy figure.
        log(f"fan-out {n}: server {r['server_cpu_cores']:.2f} cores, encodes {r['server_encoded_fps']:.1f} fps, "
            f"viewers {r['min_fps']:.1f}–{r['median_fps']:.1f} fps (slowest, median), "
            f"{r['viewers_without_steady_second']} still starting after {fanout.STEADY_FROM:g} s")
        if r["viewers_without_steady_second"] < n:
            return {"fan-out 16: server CPU ms per viewer-s": r["server_cpu_cores"] * 1000 / n}
        log(f"fan-out {n}: void, no viewer got a steady second" + ("; once more" if attempt == 1 else ""))
    return {"fan-out 16: server CPU ms per viewer-s": None}


def congestion():
    fd, path = tempfile.mkstemp(suffix=".json"); os.close(fd)
    duration = max(12.0, SECONDS + 4)
    p = subprocess.run([SLUICE, "measure", "Pipelines/adaptive.yaml", "--processes", "2", "--duration", str(duration),
                        "--quiet", "--json", path, "--netem", "rate 1mbit"], cwd=ROOT, capture_output=True, text=True,
                       timeout=duration + 120)
    if p.returncode != 0:
        sys.exit(f"sluice measure (congestion) failed: {p.stderr[-800:]}")
    with open(path) as f:
        rep = json.load(f)
    os.unlink(path)
    after = sorted(s[2] for s in rep["samples"] if s[0] >= 5)
    p95 = after[max(0, int(round(0.95 * len(after))) - 1)] if after else float("inf")
    log(f"congestion (rate 1mbit): p95 after 5 s {p95:.0f} ms, {rep['delivered_fps']:.1f} fps")
    return {"congestion 1mbit: latency p95 after 5 s (ms)": p95, "congestion 1mbit: delivered fps": rep["delivered_fps"]}


def filters_vs_c():
    fd, path = tempfile.mkstemp(suffix=".json"); os.close(fd)
    bench = os.path.join(os.path.dirname(SLUICE), "sluice-filter-bench")
    if not os.access(bench, os.X_OK):
        sys.exit(f"no {bench}: Benchmarks/guard.sh builds it (or says how), or unset SLUICE")
    subprocess.run([bench, "--runs", "3", "--frames", "100", "--sizes", "720p", "--json", path], cwd=ROOT,
                   check=True, capture_output=True)
    with open(path) as f:
        r = json.load(f)["I420"]["720p"]
    os.unlink(path)
    log(f"filters 720p I420: Swift grayscale {r['Swift grayscale'] / 1000:.1f} µs, C {r['C grayscale'] / 1000:.1f} µs per frame")
    return {"filter 720p: Swift ÷ C": r["Swift grayscale"] / r["C grayscale"]}


# Which way is better, per figure (anything not listed: lower).
HIGHER_IS_BETTER = {"congestion 1mbit: delivered fps"}


def audio_mouth_to_ear(runs=2):
    """The median over every stamp of `runs` runs: a stamp's place within Opus's 20 ms frame is
    uniform, so one run's median of ~18 stamps moves by about 1.7 ms (one SD) from run to run;
    pooling both runs' stamps narrows that to about 1.2 ms, still 13% of the figure: hence its
    wider band (MIN_BANDS)."""
    delays = []
    for _ in range(runs):
        fd, path = tempfile.mkstemp(suffix=".json"); os.close(fd)
        p = subprocess.run([SLUICE, "measure", "Pipelines/loopback.yaml", "--duration", str(SECONDS), "--warmup", "1",
                            "--quiet", "--json", path, "--set", "send.audio.filters=[{filter: audiostamp, interval_ms: 400}]"],
                           cwd=ROOT, capture_output=True, text=True, timeout=SECONDS + 120)
        if p.returncode != 0:
            sys.exit(f"sluice measure (audio) failed: {p.stderr[-800:]}")
        with open(path) as f:
            audio = json.load(f).get("audio") or {}
        os.unlink(path)
        delays += [s[1] for s in audio.get("samples", []) if len(s) >= 2]
        log(f"audio: mouth-to-ear p50 {(audio.get('mouth_to_ear') or {}).get('p50_ms')} ms, A/V offset p50 "
            f"{(audio.get('av_offset') or {}).get('p50_ms')} ms, {audio.get('stamps_read', 0)} stamps"
            + (f" ({audio['note']})" if audio.get("note") else ""))
    return {"audio mouth-to-ear p50 (ms)": statistics.median(delays) if delays else None}


ONLY = {s for s in os.environ.get("GUARD_ONLY", "").split(",") if s}


def measure_all():
    def wanted(step):
        return not ONLY or step in ONLY
    figures, c_ttff = latency_vs_c(1 if MODE == "fast" else 2) if wanted("latency") or wanted("cold") else ({}, None)
    if MODE == "fast":
        # One audio run beside latency and CPU: a 2× band on mouth-to-ear (~10 s more). A run
        # that reads no stamp measured nothing (once in 15 debug runs beside a Swift build:
        # every stamp heard, none readable): one more run is made, and said, before it is void.
        if wanted("audio"):
            audio = audio_mouth_to_ear(runs=1)
            if list(audio.values())[0] is None:
                log("audio: no stamp read in that run; one more run")
                audio = audio_mouth_to_ear(runs=1)
            figures = {**figures, **audio}
        return figures
    if not wanted("latency"):
        figures = {}
    steps = [("cold", lambda: cold_first_frame(c_ttff)), ("warm", warm_first_frame), ("fanout", fan_out),
             ("congestion", congestion), ("filters", filters_vs_c), ("audio", audio_mouth_to_ear)]
    for name, step in steps:
        if wanted(name):
            figures.update(step())
    return figures


def worse_by(name, value, recorded):
    """How much worse than recorded, as a fraction (negative: better)."""
    if name in HIGHER_IS_BETTER:
        return (recorded - value) / recorded if recorded else 0.0
    return (value - recorded) / recorded if recorded else 0.0


def compare(figures):
    with open(RECORDED) as f:
        recorded = json.load(f)[MODE]["figures"]
    failed = []
    print(f"| figure | now | recorded | band | {'verdict'} |")
    print("|---|---|---|---|---|")
    for name, value in figures.items():
        rec = recorded.get(name)
        if value is None:
            failed.append(name)
            print(f"| {name} | – | {rec['median'] if rec else '–'} | – | VOID: nothing was measured |")
            continue
        if rec is None:
            print(f"| {name} | {value:.3f} | – | – | not recorded |")
            continue
        band = max(rec["band"], FAST_BAND) if MODE == "fast" else rec["band"]
        worse = worse_by(name, value, rec["median"])
        verdict = "ok" if worse <= band else f"WORSE by {worse * 100:.0f}%"
        if worse > band:
            failed.append(name)
        print(f"| {name} | {value:.3f} | {rec['median']:.3f} | {band * 100:.0f}% | {verdict} |")
    if failed:
        print(f"\nguard: {len(failed)} figure(s) worse than recorded beyond their noise band, or void: {', '.join(failed)}")
        return 1
    print(f"\nguard: all {len(figures)} figures within their noise bands ({MODE})")
    return 0


def record(times):
    runs = []
    for i in range(times):
        runs.append(measure_all())
        log(f"recording run {i + 1}/{times}: {json.dumps(runs[-1])}")
    out = {"how": "GUARD=%s GUARD_RECORD=%d Benchmarks/guard.sh%s; band = max(%.2f, 2 × the largest relative distance "
                  "of a run from the median)" % (MODE, times, " (SLUICE=" + os.path.relpath(SLUICE, ROOT) + ")"
                                                 if MODE == "fast" else "", MIN_BAND),
           "binary": os.path.relpath(SLUICE, ROOT), "seconds": SECONDS,
           "machine": {"cores": os.cpu_count(), "kernel": os.uname().release},
           "recorded_at": time.strftime("%Y-%m-%d"), "figures": {}}
    for name in runs[0]:
        values = [r[name] for r in runs if r.get(name) is not None]
        median = statistics.median(values)
        spread = max(abs(v - median) / median for v in values) if median else 0
        out["figures"][name] = {"median": median, "band": max(MIN_BANDS.get(name, MIN_BAND), 2 * spread), "runs": values,
                                "better": "higher" if name in HIGHER_IS_BETTER else "lower"}
    everything = {}
    if os.path.exists(RECORDED):
        with open(RECORDED) as f:
            everything = json.load(f)
    if ONLY and MODE in everything:
        # Only these steps were recorded: the other figures stay as they were.
        kept = everything[MODE]
        kept["figures"].update(out["figures"])
        kept.setdefault("partial", []).append({"steps": sorted(ONLY), "recorded_at": out["recorded_at"],
                                               "figures": sorted(out["figures"])})
        out = kept
    everything[MODE] = out
    with open(RECORDED, "w") as f:
        json.dump(everything, f, indent=1, ensure_ascii=False)
    print(json.dumps(out, indent=1, ensure_ascii=False))
    return 0


def main():
    started = time.monotonic()
    times = int(os.environ.get("GUARD_RECORD", "0"))
    rc = record(times) if times else compare(measure_all())
    log(f"guard took {time.monotonic() - started:.0f} s")
    return rc


if __name__ == "__main__":
    sys.exit(main())
