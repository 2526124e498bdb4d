#!/usr/bin/env python3
"""Scale benchmark (issue 28): N passthrough RTSP cameras served on this machine, one viewer each.

Target: "50 passthrough RTSP cameras served on these 2 cores with every viewer at the
source's frame rate". Everything runs on the same cores, so each part's cost is reported:
- the cameras: Benchmarks/rtsp_cameras.py, N RTSP mounts /cam-0 … /cam-{N-1} (each its own
  RTSP session and RTP stream) playing one loop that x264enc encoded once at start (SIZE at
  FPS, GOP, KBPS; scrolling SMPTE bars, which come out at about KBPS), RTSP over TCP;
- the server: `sluice serve` with N generated files, each `capture: {kind: rtsp, url:
  rtsp://…/cam-I, transport: tcp, latency: 50}` and `encode: none` (the shape of
  Benchmarks/rtsp-passthrough-720p.yaml), served at `/whep/cam-I`;
- the viewers: one `sluice load Benchmarks/load-cameras-viewer.yaml --clients N --decode none`
  process; client I plays `/whep/cam-I`.

Per run and N: the cameras start, then the server; once `/streams.json` shows every stream's
frame count growing (bounded wait; a stream that never goes live fails the run, named), the
server's CPU with no viewer is read over INGEST_WINDOW s (what taking in N cameras costs);
then the viewers start RAMP a second. STEADY_FROM s after the server counts a viewer on
every stream, a window of SECONDS_PER_RUN − STEADY_FROM s reads from /proc: the server's,
the cameras' and the load process's CPU (cores), the machine's busy cores (and so what
anything else used), UDP receive-buffer drops, loopback traffic, and from `/streams.json`
each stream's ingest frame rate. The load report gives each viewer's steady frame rate (its
`fps`: from a second after its first frame to its end), its freezes (libwebrtc's rule) and
the window's mean frame rate (its timeline).
Each run measures REFERENCE cameras first (a lower-N point, same run), then CAMERAS; the
rows are medians of RUNS runs.

Verdict for N: PASS when, in the median, every viewer is at >= 0.95 x FPS (slowest viewer,
count of viewers at that rate, and every stream's ingest rate), no viewer failed, and the
machine was not saturated (busy under 95% of its cores). A miss with more than OTHER_LIMIT
cores used by something else is INCONCLUSIVE. When CAMERAS does not pass (and SEARCH=1),
one run each looks for what does fit: N = CAMERAS−10, CAMERAS−20, … at SIZE until one
passes, and CAMERAS at SMALL_SIZE and SMALL_KBPS (a passed-through stream costs by its
packets, so a smaller picture saves only through its lower bitrate).

Run through Benchmarks/cameras.sh (loopback-only namespace; it builds Sluice unless SLUICE names
a binary). Ports: 18760 (the cameras), 18761 (the server).
Env: CAMERAS (50), REFERENCE (10; 0: none), SIZE (1280x720), FPS (30), GOP (60), KBPS (1500),
RUNS (3), SECONDS_PER_RUN (30), STEADY_FROM (10), RAMP (10), INGEST_WINDOW (4), OTHER_LIMIT (0.3),
ATTEMPTS (2: runs made again when others used more than OTHER_LIMIT), QUIET_WAIT (240: s to
wait for a quiet machine before each run; 0: do not wait), SEARCH (1), SMALL_SIZE (640x360),
SMALL_KBPS (500), NOTE (a remark kept in the results), RESULTS (Benchmarks/results-cameras.json),
SLUICE.
"""
import json, os, re, shutil, statistics, subprocess, sys, tempfile, time, urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import settings_given, wait_http
from load_common import (ROOT, SLUICE, busiest, cpu_of, finish, loopback, machine_busy, sluice_window_fps, stop,
                         threads_of, udp_drops, wait_quiet)

CAMERAS = int(os.environ.get("CAMERAS", "50"))
REFERENCE = int(os.environ.get("REFERENCE", "10"))
SIZE = os.environ.get("SIZE", "1280x720")
FPS = int(os.environ.get("FPS", "30"))
GOP = int(os.environ.get("GOP", "60"))
KBPS = int(os.environ.get("KBPS", "1500"))
RUNS = int(os.environ.get("RUNS", "3"))
SECONDS = float(os.environ.get("SECONDS_PER_RUN", "30"))
STEADY_FROM = float(os.environ.get("STEADY_FROM", "10"))
RAMP = float(os.environ.get("RAMP", "10"))
INGEST_WINDOW = float(os.environ.get("INGEST_WINDOW", "4"))
OTHER_LIMIT = float(os.environ.get("OTHER_LIMIT", "0.3"))
ATTEMPTS = int(os.environ.get("ATTEMPTS", "2"))
QUIET_WAIT = float(os.environ.get("QUIET_WAIT", "240"))
SEARCH = os.environ.get("SEARCH", "1") == "1"
SMALL_SIZE = os.environ.get("SMALL_SIZE", "640x360")
SMALL_KBPS = int(os.environ.get("SMALL_KBPS", "500"))
RESULTS = os.path.join(ROOT, os.environ.get("RESULTS", "Benchmarks/results-cameras.json"))
CAMERA_PORT, PORT = 18760, 18761
CORES = os.cpu_count()
AT_RATE = 0.95  # a viewer at >= 95% of the source's frame rate is at the source's rate
SATURATED = 0.95  # machine busy at >= 95% of its cores: no headroom left
CAMERA_PY = "/usr/bin/python3"  # python3-gi with gst-rtsp-server


# --- the parts -------------------------------------------------------------------------------

def wait_for_line(path, proc, word, seconds, what):
    """Waits (bounded) until the file `path` (a process's output) has a line starting with
    `word`; returns that line."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with open(path, errors="replace") as f:
            found = [line for line in f if line.startswith(word)]
        if found:
            return found[0]
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    with open(path, errors="replace") as f:
        tail = f.read()[-800:]
    sys.exit(f"{what} did not print {word} within {seconds:.0f} s (exit {proc.poll()}): {tail}")


def start_cameras(n, size, kbps, logs):
    """The cameras' process, and the real bitrate of the loop it plays (kbit/s)."""
    log = os.path.join(logs, "cameras.log")
    with open(log, "w") as out:
        camera = subprocess.Popen([CAMERA_PY, "Benchmarks/rtsp_cameras.py", "--port", str(CAMERA_PORT), "--cameras", str(n),
                                   "--size", size, "--fps", str(FPS), "--gop", str(GOP), "--kbps", str(kbps)],
                                  cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    try:
        ready = wait_for_line(log, camera, "READY", 60, "the RTSP cameras")
    except SystemExit:
        stop(camera)
        raise
    m = re.search(r"(\d+) kbit/s", ready)
    return camera, int(m.group(1)) if m else None


def write_files(n, folder):
    """One pipeline file per camera, the shape of Benchmarks/rtsp-passthrough-720p.yaml."""
    paths = []
    for i in range(n):
        path = os.path.join(folder, f"cam-{i}.yaml")
        with open(path, "w") as f:
            f.write(f"""# Benchmarks/cameras.py: camera {i} served as it is.
version: 1
name: cam-{i}
transport:
  kind: server
  ice: {{ addresses: [127.0.0.1] }}
send:
  video:
    capture: {{ kind: rtsp, url: "rtsp://127.0.0.1:{CAMERA_PORT}/cam-{i}", transport: tcp, latency: 50 }}
    encode: none
""")
        paths.append(path)
    return paths


def start_server(files, logs):
    args = [SLUICE, "serve", "--port", str(PORT)]
    for f in files:
        args += ["--pipeline", f]
    with open(os.path.join(logs, "serve.log"), "w") as out:
        server = subprocess.Popen(args, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    wait_http(f"http://127.0.0.1:{PORT}/streams.json", seconds=60)
    return server


def streams():
    """`/streams.json` by stream name."""
    with urllib.request.urlopen(f"http://127.0.0.1:{PORT}/streams.json", timeout=10) as r:
        return {s["name"]: s for s in json.load(r)}


def wait_live(n, server, logs, seconds):
    """Waits (bounded) until every stream's frame count has grown by a second's worth since
    the last poll in which it was seen; exits naming the streams that never did."""
    names = [f"cam-{i}" for i in range(n)]
    first, live = {}, set()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and server.poll() is None:
        now = streams()
        for name in names:
            frames = now.get(name, {}).get("encoded_video_frames", 0) or 0
            if name not in first and frames > 0:
                first[name] = frames
            elif name in first and frames >= first[name] + FPS // 2:
                live.add(name)
        if len(live) == n:
            return
        time.sleep(0.5)
    missing = [x for x in names if x not in live]
    sys.exit(f"{len(missing)} of {n} streams not live within {seconds:.0f} s: {', '.join(missing)} "
             f"(server {'exited ' + str(server.poll()) if server.poll() is not None else 'running'}); "
             f"serve log: {log_problems(logs)[:5]}")


def wait_all_viewed(n, load, seconds):
    """Waits (bounded) until every stream has a viewer; returns the time, or None."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and load.poll() is None:
        s = streams()
        if all(s.get(f"cam-{i}", {}).get("viewers", 0) >= 1 for i in range(n)):
            return time.monotonic()
        time.sleep(0.2)
    return None


def log_problems(logs, name="serve.log"):
    """The distinct warning and error lines of a log (digits blurred so repeats count once), with counts."""
    path = os.path.join(logs, name)
    if not os.path.exists(path):
        return []
    seen = {}
    with open(path, errors="replace") as f:
        for line in f:
            if re.search(r"error|warn|fail|CRITICAL", line, re.I):
                key = re.sub(r"\d+", "N", line.strip())[:240]
                seen.setdefault(key, [line.strip()[:300], 0])[1] += 1
    return [f"{count}x {example}" for example, count in sorted(seen.values(), key=lambda v: -v[1])][:12]


# --- one measurement -----------------------------------------------------------------------

def cores_over(pids, seconds):
    """Each process's CPU over the next `seconds`, in cores."""
    c0, t0 = {k: cpu_of(p) for k, p in pids.items()}, time.monotonic()
    time.sleep(seconds)
    dt = time.monotonic() - t0
    return {k: (cpu_of(p) - c0[k]) / dt for k, p in pids.items()}


def window(pids, seconds, n):
    """CPU of each part and of the machine, drops, loopback and each stream's ingest rate over
    the next `seconds`."""
    names = [f"cam-{i}" for i in range(n)]
    c0, th0 = {k: cpu_of(p) for k, p in pids.items()}, {k: threads_of(pids[k]) for k in ("server", "cameras")}
    busy0, drops0, lo0, f0, t0 = machine_busy(), udp_drops(), loopback(), streams(), time.monotonic()
    time.sleep(seconds)
    c1, th1 = {k: cpu_of(p) for k, p in pids.items()}, {k: threads_of(pids[k]) for k in ("server", "cameras")}
    busy1, drops1, lo1, f1, t1 = machine_busy(), udp_drops(), loopback(), streams(), time.monotonic()
    dt = t1 - t0
    cores = {k: (c1[k] - c0[k]) / dt for k in pids}
    machine = (busy1 - busy0) / dt
    ingest = [((f1.get(x, {}).get("encoded_video_frames") or 0) - (f0.get(x, {}).get("encoded_video_frames") or 0)) / dt for x in names]
    return {"start": t0, "seconds": dt, **{f"{k}_cores": v for k, v in cores.items()}, "machine_cores": machine,
            "other_cores": max(0.0, machine - sum(cores.values())), "udp_drops_per_s": (drops1 - drops0) / dt,
            "loopback_kbit_s": (lo1[0] - lo0[0]) * 8 / 1000 / dt, "loopback_packets_s": (lo1[1] - lo0[1]) / dt,
            "ingest_fps_min": min(ingest), "ingest_fps_median": statistics.median(ingest),
            "viewers_counted": sum(f1.get(x, {}).get("viewers", 0) for x in names),
            "server_threads_cores": busiest(th0["server"], th1["server"], dt),
            "cameras_threads_cores": busiest(th0["cameras"], th1["cameras"], dt)}


def one_run(n, size, kbps):
    """Cameras, server and viewers for N cameras at `size` and `kbps`; the figures of the steady window."""
    logs = tempfile.mkdtemp(prefix=f"sluice-cameras-{n}-")
    procs = []
    try:
        camera, camera_kbps = start_cameras(n, size, kbps, logs); procs.append(camera)
        server = start_server(write_files(n, logs), logs); procs.append(server)
        wait_live(n, server, logs, 30 + n * 0.5)
        time.sleep(2)  # the streams' start-up (keyframe waits, caps) done
        alone = cores_over({"server": server.pid, "cameras": camera.pid}, INGEST_WINDOW)
        duration = n / RAMP + SECONDS + 5  # each viewer's stay: the last one still there after the window
        fd, report_path = tempfile.mkstemp(suffix=".json", dir=logs); os.close(fd)
        started = time.monotonic()
        load = subprocess.Popen([SLUICE, "load", "Benchmarks/load-cameras-viewer.yaml", "--clients", str(n), "--ramp", f"{RAMP:g}/s",
                                 "--duration", f"{duration:g}", "--decode", "none", "--json", report_path, "--quiet"],
                                cwd=ROOT, env=dict(os.environ, SLUICE_WHEP_BASE=f"http://127.0.0.1:{PORT}/whep"),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        procs.append(load)
        at = wait_all_viewed(n, load, n / RAMP + 40)
        if at is None:
            counted = sum(s.get("viewers", 0) for s in streams().values())
            print(f"  the server never counted a viewer on every stream ({counted} of {n} viewers counted); measuring anyway", flush=True)
        time.sleep(max(0.0, (at or time.monotonic()) + STEADY_FROM - time.monotonic()))
        w = window({"server": server.pid, "cameras": camera.pid, "load": load.pid}, SECONDS - STEADY_FROM, n)
        _, err, rc = finish(load, duration + 90)
        if rc != 0:
            print(f"  sluice load exited {rc}: {err.strip()[-400:]}", flush=True)
        with open(report_path) as f:
            report = json.load(f)
        problems = log_problems(logs)
        if problems:
            print(f"  serve log: {problems[:3]}", flush=True)
        return {"kbps": kbps, "camera_kbps": camera_kbps, **figures(n, size, w, alone, report, started, rc, at is not None, problems)}
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                stop(p)
        shutil.rmtree(logs, ignore_errors=True)


def figures(n, size, w, alone, report, started, rc, all_viewed, problems):
    clients = report["clients"]
    fps = [c.get("fps") or 0.0 for c in clients] + [0.0] * max(0, n - len(clients))  # a missing client got nothing
    failed = [c for c in clients if c["outcome"] not in ("left_as_planned", "stopped_early")]
    reasons = sorted({str(c.get("reason") or c["outcome"])[:200] for c in failed})
    at_rate = sum(1 for f in fps if f >= AT_RATE * FPS)
    # Freezes per minute of video across the crowd (first frame to the client's end).
    video_s = sum(max(0.0, (c["ended_at_s"] or 0) - c["started_at_s"] - (c["time_to_first_frame_ms"] or 0) / 1000)
                  for c in clients if c["time_to_first_frame_ms"] is not None)
    freezes = sum(c["freezes"] for c in clients)
    return {"n": n, "size": size, "all_viewed": all_viewed, "load_exit": rc,
            "viewer_fps_min": min(fps), "viewer_fps_median": statistics.median(fps),
            "viewers_at_rate": at_rate, "viewer_fps_window_mean": sluice_window_fps(report, started, w, n) or 0.0,
            "viewers_failed": len(failed), "failure_reasons": reasons[:5],
            "freezes": freezes, "freezes_per_viewer_min": freezes / (video_s / 60) if video_s else None,
            "frozen_share": sum(c["freeze_ms"] for c in clients) / 1000 / video_s if video_s else None,
            "viewer_fps": [round(f, 2) for f in fps],
            "server_cores": w["server_cores"], "server_cores_per_camera": w["server_cores"] / n,
            "server_cores_no_viewers": alone["server"], "server_cores_per_camera_no_viewers": alone["server"] / n,
            "cameras_cores": w["cameras_cores"], "cameras_cores_no_viewers": alone["cameras"], "load_cores": w["load_cores"],
            "machine_cores": w["machine_cores"], "other_cores": w["other_cores"],
            "udp_drops_per_s": w["udp_drops_per_s"], "loopback_kbit_s": w["loopback_kbit_s"], "loopback_packets_s": w["loopback_packets_s"],
            "ingest_fps_min": w["ingest_fps_min"], "ingest_fps_median": w["ingest_fps_median"], "viewers_counted": w["viewers_counted"],
            "window_s": w["seconds"], "server_threads_cores": w["server_threads_cores"], "cameras_threads_cores": w["cameras_threads_cores"],
            "serve_log_problems": problems}


def measured(n, size, kbps=KBPS):
    """One run, made again (up to ATTEMPTS times) when something else used more than
    OTHER_LIMIT cores in its window; each starts once the machine is quiet (bounded wait)."""
    for attempt in range(1, ATTEMPTS + 1):
        quiet = wait_quiet(0.3, QUIET_WAIT) if QUIET_WAIT > 0 else None
        r = {**one_run(n, size, kbps), "attempt": attempt, "busy_before_cores": quiet}
        line(f"N={n} {size} {kbps} kbit/s", r)
        if r["other_cores"] <= OTHER_LIMIT:
            break
        if attempt < ATTEMPTS:
            print(f"  (something else used {r['other_cores']:.2f} cores: again)", flush=True)
    return r


# --- verdicts and results ------------------------------------------------------------------

NUMBERS = ["viewer_fps_min", "viewer_fps_median", "viewers_at_rate", "viewer_fps_window_mean", "viewers_failed", "freezes",
           "freezes_per_viewer_min", "frozen_share",
           "server_cores", "server_cores_per_camera", "server_cores_no_viewers", "server_cores_per_camera_no_viewers",
           "cameras_cores", "cameras_cores_no_viewers", "load_cores", "machine_cores", "other_cores", "udp_drops_per_s",
           "loopback_kbit_s", "loopback_packets_s", "ingest_fps_min", "ingest_fps_median", "viewers_counted"]


def median_row(runs):
    values = lambda k: [x[k] for x in runs if x.get(k) is not None]
    r = {"n": runs[0]["n"], "size": runs[0]["size"], "kbps": runs[0]["kbps"], "camera_kbps": statistics.median(values("camera_kbps") or [0]) or None,
         "runs_measured": len(runs), **{k: statistics.median(values(k)) if values(k) else None for k in NUMBERS}}
    r["verdict"], r["why"] = verdict(r)
    r["runs"] = runs
    return r


def verdict(r):
    """PASS, FAIL or INCONCLUSIVE for a (median) row, and why."""
    floor = AT_RATE * FPS
    misses = []
    if r["viewer_fps_min"] < floor or r["viewers_at_rate"] < r["n"]:
        misses.append(f"{r['viewers_at_rate']:g} of {r['n']} viewers at >= {floor:g} fps (slowest {r['viewer_fps_min']:.1f})")
    if r["ingest_fps_min"] < floor:
        misses.append(f"the slowest stream took in {r['ingest_fps_min']:.1f} fps")
    if r["viewers_failed"]:
        misses.append(f"{r['viewers_failed']:g} viewers failed")
    saturated = r["machine_cores"] >= SATURATED * CORES
    ours = r["machine_cores"] - r["other_cores"]
    extra = (f"; {r['freezes_per_viewer_min']:.1f} freezes per viewer-minute" if r.get("freezes_per_viewer_min") else "") \
        + (f"; {r['udp_drops_per_s']:.1f} UDP datagrams dropped/s" if r["udp_drops_per_s"] else "")
    if not misses and not saturated:
        others = f" ({r['other_cores']:.2f} by other work)" if r["other_cores"] > OTHER_LIMIT else ""
        return "PASS", f"every viewer at >= {floor:g} fps, machine {r['machine_cores']:.2f} of {CORES} cores busy{others}{extra}"
    if not misses:  # at rate, but only just: the saturated machine may be hiding what comes next
        why = f"every viewer at rate, but the machine was saturated ({r['machine_cores']:.2f} of {CORES} cores busy"
        if r["other_cores"] > OTHER_LIMIT and ours < SATURATED * CORES:
            return "INCONCLUSIVE", why + f", {r['other_cores']:.2f} of them by other work){extra}"
        return "FAIL", why + f", no headroom){extra}"
    why = "; ".join(misses) + f"; machine {r['machine_cores']:.2f} of {CORES} cores busy"
    if r["other_cores"] > OTHER_LIMIT:
        return "INCONCLUSIVE", why + f", {r['other_cores']:.2f} of them by other work{extra}"
    return "FAIL", why + extra


def line(label, r):
    print(f"{label}: viewers slowest {r['viewer_fps_min']:.1f} / median {r['viewer_fps_median']:.1f} fps, "
          f"{r['viewers_at_rate']:g} of {r['n']} at >= {AT_RATE * FPS:g}, window {r['viewer_fps_window_mean']:.1f}, "
          f"failed {r['viewers_failed']:g}, freezes {r['freezes']:g}, ingest min {r['ingest_fps_min']:.1f}; server {r['server_cores']:.2f} cores "
          f"({r['server_cores_per_camera'] * 1000:.1f} m per camera; {r['server_cores_no_viewers']:.2f} with no viewer), "
          f"cameras {r['cameras_cores']:.2f}, load {r['load_cores']:.2f}, machine {r['machine_cores']:.2f} of {CORES} "
          f"(others {r['other_cores']:.2f}), UDP drops {r['udp_drops_per_s']:.1f}/s", flush=True)


def machine_info():
    model = ""
    with open("/proc/cpuinfo") as f:
        for l in f:
            if l.startswith("model name"):
                model = l.split(":", 1)[1].strip(); break
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    return {"machine": os.uname().release, "cores": CORES, "cpu": model, "load_average_at_start": load}


def write(info, rows, search, target):
    how = settings_given(("CAMERAS", "REFERENCE", "SIZE", "FPS", "GOP", "KBPS", "RUNS", "SECONDS_PER_RUN", "STEADY_FROM", "RAMP",
                          "QUIET_WAIT", "ATTEMPTS", "SEARCH", "SMALL_SIZE", "SMALL_KBPS", "SLUICE"))
    passing = [r["n"] for r in rows + search if r["verdict"] == "PASS" and r["size"] == SIZE]
    result = {**info, "how": f"{how} Benchmarks/cameras.sh".strip(), "recorded_at": time.strftime("%Y-%m-%d %H:%M"),
              "runs": RUNS, "seconds_per_run": SECONDS, "steady_from": STEADY_FROM, "ramp_per_s": RAMP, "at_rate_fps": AT_RATE * FPS,
              "camera": f"{SIZE} {FPS} fps H.264 at {KBPS} kbit/s (a loop of scrolling SMPTE bars encoded once by x264enc "
                        f"ultrafast zerolatency, GOP {GOP}) played to N RTSP mounts (Benchmarks/rtsp_cameras.py), RTSP over TCP",
              "server": "sluice serve, one file per camera: capture rtsp (tcp, latency 50), encode: none",
              "viewers": "sluice load Benchmarks/load-cameras-viewer.yaml --decode none, one viewer per camera",
              "remark": os.environ.get("NOTE") or None,
              "notes": [
                  "everything shares the machine's cores: server_cores, cameras_cores (the camera process, not the server's) "
                  "and load_cores are per process; machine_cores is every core's busy time, other_cores what none of the three used",
                  "viewer_fps_* are the load report's per-client steady fps (a second after the first frame to the client's end); "
                  "viewer_fps_window_mean is the timeline's frames per viewer-second inside the CPU window; freezes follow "
                  "libwebrtc's rule, per minute of video across the crowd",
                  "ingest_fps_min is the slowest stream's frames into the server (/streams.json encoded_video_frames) in the window"],
              "target": {"n": CAMERAS, "size": SIZE, "fps": FPS, "kbps": KBPS, **({"verdict": target["verdict"], "why": target["why"]} if target else {})},
              "largest_n_passing_at_size": max(passing) if passing else None,
              "rows": rows, "search": search}
    with open(RESULTS, "w") as f:
        json.dump(result, f, indent=2)


def main():
    if not os.access(SLUICE, os.X_OK):
        sys.exit(f"no sluice binary at {SLUICE} (Benchmarks/cameras.sh builds it, or set SLUICE)")
    info = machine_info()
    ns = sorted({n for n in (REFERENCE, CAMERAS) if n > 0})
    runs = {n: [] for n in ns}
    for i in range(RUNS):
        for n in ns:
            print(f"run {i + 1}/{RUNS}, {n} cameras at {SIZE} {FPS} fps", flush=True)
            runs[n].append(measured(n, SIZE))
    rows = [median_row(runs[n]) for n in ns]
    target = rows[-1]
    search = []
    write(info, rows, search, target)
    if target["verdict"] != "PASS" and SEARCH:
        print(f"\n{CAMERAS} cameras at {SIZE}: {target['verdict']}; looking for what fits (one run each)", flush=True)
        for n in range(CAMERAS - 10, REFERENCE, -10):
            search.append(median_row([measured(n, SIZE)]))
            write(info, rows, search, target)
            if search[-1]["verdict"] == "PASS":
                break
        if SIZE != SMALL_SIZE:
            search.append(median_row([measured(CAMERAS, SMALL_SIZE, SMALL_KBPS)]))
        write(info, rows, search, target)
    print()
    for r in rows + search:
        print(f"{r['n']:3d} cameras {r['size']:>9} {r['kbps']:4d} kbit/s ({r['runs_measured']} run{'s' if r['runs_measured'] != 1 else ''}): "
              f"{r['verdict']}: {r['why']}")
    passing = [r["n"] for r in rows + search if r["verdict"] == "PASS" and r["size"] == SIZE]
    print(f"\nVERDICT: {CAMERAS} passthrough cameras at {SIZE} {FPS} fps, one viewer each, on {CORES} cores: "
          f"{target['verdict']} ({target['why']})")
    if target["verdict"] != "PASS":
        print(f"largest N that passed at {SIZE}: {max(passing) if passing else 'none measured'}"
              + "".join(f"; {r['n']} at {r['size']}: {r['verdict']}" for r in search if r["size"] != SIZE))


if __name__ == "__main__":
    main()
