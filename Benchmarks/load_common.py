"""What the `sluice load` benchmarks share (load_clients.py, load_fanout.py): the server,
CPU readings from /proc, and the steady window they are taken over.

A window starts WARMUP seconds after the server counts every viewer (`/streams.json`) and
lasts WINDOW seconds; over it each process's CPU comes from /proc/PID/stat (utime + stime),
each thread's from /proc/PID/task/*/stat, and the whole machine's from /proc/stat (so a
result says when something else was using the cores).
"""
import json, os, re, statistics, subprocess, sys, time, urllib.request

from bench_common import settings_given, wait_http

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLUICE = os.path.abspath(os.path.join(ROOT, os.environ.get("SLUICE") or ".build/release/sluice"))
TICK = os.sysconf("SC_CLK_TCK")


def cpu_of(pid):
    """CPU seconds (user + system) the process `pid` has used."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def threads_of(pid, role=lambda name: re.sub(r"\d+", "", name)):
    """CPU seconds per thread role: `role` of each thread's name (by default the name with its
    digits dropped: 'nicesrc12:src' and 'nicesrc3:src' add up)."""
    use = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                text = f.read()
        except OSError:
            continue  # the thread ended
        name = role(text[text.index("(") + 1:text.rindex(")")])
        fields = text.rsplit(")", 1)[1].split()
        use[name] = use.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / TICK
    return use


def machine_busy():
    """CPU seconds all cores have spent not idle since boot."""
    with open("/proc/stat") as f:
        ticks = [int(v) for v in f.readline().split()[1:]]
    return (sum(ticks) - ticks[3] - ticks[4]) / TICK


def udp_drops():
    """Datagrams this network namespace dropped for a full receive buffer (/proc/net/snmp)."""
    with open("/proc/net/snmp") as f:
        names, values = [line.split() for line in f if line.startswith("Udp:")][:2]
    return int(values[names.index("RcvbufErrors")])


def loopback():
    """(bytes, packets) sent on this namespace's loopback interface (/proc/net/dev)."""
    with open("/proc/net/dev") as f:
        fields = next(line for line in f if line.strip().startswith("lo:")).split(":", 1)[1].split()
    return int(fields[8]), int(fields[9])


def wait_quiet(limit=0.3, seconds=240):
    """Waits (bounded) until the machine's busy cores over 2 s fall under `limit` (others
    build on this machine too); returns the last reading."""
    deadline = time.monotonic() + seconds
    while True:
        b0 = machine_busy(); time.sleep(2)
        busy = (machine_busy() - b0) / 2
        if busy < limit or time.monotonic() > deadline:
            return busy


def quiet_attempts(measure, others, limit, attempts=3):
    """`measure()` after the machine is quiet, again (up to `attempts` times) while `others(result)`,
    the cores something else used in its window, is over `limit`. Returns (result, attempts)."""
    for attempt in range(1, attempts + 1):
        wait_quiet()
        result = measure()
        if others(result) <= limit:
            break
        print(f"  (something else used {others(result):.2f} cores: again)", flush=True)
    return result, attempt


def streams(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/streams.json", timeout=5) as r:
        return json.load(r)[0]


def steady_fps(output, steady_from):
    """The median of a `sluice run` viewer's per-second receive rates (its live lines) from
    `steady_from` seconds on; 0 when it printed none."""
    rates = [r for t, r in receive_rates(output) if t >= steady_from]
    return statistics.median(rates) if rates else 0.0


def receive_rates(output):
    """(seconds, received fps) of each live line of a `sluice run`: `   5.0s  recv  29.9 fps …`
    (a run that also sends video says `send  30.0 fps` before it)."""
    out = []
    for line in output.splitlines():
        parts = line.split()
        if len(parts) > 3 and parts[0].endswith("s") and "recv" in parts:
            i = parts.index("recv")
            try:
                out.append((float(parts[0][:-1]), float(parts[i + 1])))
            except (ValueError, IndexError):
                continue
    return out


def start_server(port, pipeline, env=None, args=()):
    """`sluice serve --pipeline` (with `args`) on 127.0.0.1:port, answering."""
    server = subprocess.Popen([SLUICE, "serve", *args, "--port", str(port), "--pipeline", pipeline], cwd=ROOT,
                              env=dict(os.environ, **(env or {})), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_http(f"http://127.0.0.1:{port}/streams.json")
    return server


def stop(proc):
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill(); proc.wait()


def rtsp_reader(kind, url):
    """The command line of a program that only reads the RTSP camera at `url` (over TCP): the
    floor for taking a camera in. `gst-launch`: what Sluice's `rtsp` capture runs with
    `encode: none`, without Sluice; `ffmpeg`: a reader outside GStreamer."""
    if kind == "gst-launch":
        return ["gst-launch-1.0", "-q", "rtspsrc", f"location={url}", "protocols=tcp", "latency=50", "!",
                "rtph264depay", "!", "h264parse", "!", "fakesink"]
    return ["ffmpeg", "-nostdin", "-loglevel", "error", "-rtsp_transport", "tcp", "-i", url, "-c", "copy", "-f", "null", "-"]


def steady_cpu(pid, steady_from, seconds):
    """The cores `pid` uses from `steady_from` to `seconds` from now (it started now)."""
    time.sleep(steady_from)
    cpu0, t0 = cpu_of(pid), time.monotonic()
    time.sleep(seconds - steady_from)
    return (cpu_of(pid) - cpu0) / (time.monotonic() - t0)


def reader_cpu(argv, steady_from, seconds):
    """Runs `argv` for `seconds` and returns the cores it used from `steady_from` on; exits
    the benchmark, with its error, if it ends early."""
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        cores = steady_cpu(proc.pid, steady_from, seconds)
        if proc.poll() is not None:
            sys.exit(f"{argv[0]} ended early ({proc.returncode}): {proc.stderr.read().decode(errors='replace')[-600:]}")
        return cores
    finally:
        stop(proc)


def wait_viewers(port, n, seconds, client=None):
    """Waits (bounded) until the server counts `n` viewers; returns the time it did, or None
    if it never did (or `client` exited first)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and (client is None or client.poll() is None):
        if streams(port)["viewers"] >= n:
            return time.monotonic()
        time.sleep(0.1)
    return None


def window(port, server, client, seconds):
    """The server's and the client's CPU over the next `seconds`, in cores, with each one's
    busiest threads, the machine's busy cores, what crossed loopback (both ways, everyone) and
    the server's encoded frame rate."""
    pids = {"server": server.pid, "client": client.pid}
    before = {k: cpu_of(p) for k, p in pids.items()}
    threads0, busy0, drops0, lo0 = {k: threads_of(p) for k, p in pids.items()}, machine_busy(), udp_drops(), loopback()
    enc0, t0 = streams(port)["encoded_video_frames"], time.monotonic()
    time.sleep(seconds)
    after = {k: cpu_of(p) for k, p in pids.items()}
    threads1, busy1, drops1, lo1 = {k: threads_of(p) for k, p in pids.items()}, machine_busy(), udp_drops(), loopback()
    enc1, t1 = streams(port)["encoded_video_frames"], time.monotonic()
    dt = t1 - t0
    server, client, machine = [(after[k] - before[k]) / dt for k in pids] + [(busy1 - busy0) / dt]
    return {"start": t0, "seconds": dt, "server_cores": server, "client_cores": client, "machine_cores": machine,
            "other_cores": max(0.0, machine - server - client),
            "server_encoded_fps": (enc1 - enc0) / dt, "udp_drops_per_s": (drops1 - drops0) / dt,
            "loopback_kbit_s": (lo1[0] - lo0[0]) * 8 / 1000 / dt, "loopback_packets_s": (lo1[1] - lo0[1]) / dt,
            "client_threads_cores": busiest(threads0["client"], threads1["client"], dt),
            "server_threads_cores": busiest(threads0["server"], threads1["server"], dt)}


def busiest(before, after, seconds):
    """The ten busiest thread names between two `threads_of` readings, in cores."""
    use = ((k, round((v - before.get(k, 0.0)) / seconds, 4)) for k, v in after.items())
    return dict(sorted((kv for kv in use if kv[1] > 0.002), key=lambda kv: -kv[1])[:10])


def finish(client, seconds):
    """Waits (bounded) for the client to end; returns its standard output."""
    try:
        out, err = client.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        client.kill()
        out, err = client.communicate()
        sys.exit(f"a client did not end within {seconds:.0f} s: {err.decode(errors='replace')[-600:]}")
    return out.decode(errors="replace"), err.decode(errors="replace"), client.returncode


def sluice_window_fps(report, start_mono, window, n):
    """Mean frames per second per client over the whole seconds of the load report's timeline
    inside `window` (timeline seconds count from the load process's start, `start_mono`)."""
    lo, hi = window["start"] - start_mono, window["start"] + window["seconds"] - start_mono
    rows = [r for r in report["timeline"] if r["t"] >= lo and r["t"] + 1 <= hi]
    return sum(r["frames"] for r in rows) / len(rows) / n if rows else None


def median_row(n, runs, middle=(), flags=()):
    """One row for N: the median of every number over `runs`, the `middle` fields (per-thread
    figures) of the median run, each of `flags` true only if it was in every run, and each
    run's attempts."""
    keys = [k for k, v in runs[0].items()
            if isinstance(v, (int, float)) and not isinstance(v, bool) and k not in ("start", "attempts")]
    row = {"n": n, **{k: statistics.median(r[k] for r in runs) for k in keys}}
    row.update({k: runs[len(runs) // 2][k] for k in middle})
    row.update({k: all(r[k] for r in runs) for k in flags})
    row["attempts"] = [r["attempts"] for r in runs]
    return row


def step_up(steps, runs, other_limit, one_run, make_row, describe, save):
    """Each N of `steps` `runs` times (each after the machine is quiet, again while something
    else used more than `other_limit` cores in its window), its row from `make_row(n, runs)`
    (which sets "ok"), printed with `describe`, saved with `save(rows, largest N so far that
    was ok)`; stops at the first N that is not ok. Returns the largest ok N."""
    rows, largest = [], 0
    for n in steps:
        measured = []
        for _ in range(runs):
            r, attempts = quiet_attempts(lambda: one_run(n), lambda r: r["other_cores"], other_limit)
            measured.append({**r, "attempts": attempts})
        row = make_row(n, measured)
        rows.append(row)
        print(describe(row), flush=True)
        save(rows, n if row["ok"] else largest)
        if not row["ok"]:
            break
        largest = n
    return largest


def write_result(name, script, settings, fields, rows):
    """Benchmarks/results-NAME.json: the machine, how it was run (`script` with the `settings`
    given in the environment), the date, `fields` and the rows."""
    how = settings_given(settings)
    result = {"machine": os.uname().release, "cores": os.cpu_count(), "how": f"{how} {script}".strip(),
              "recorded_at": time.strftime("%Y-%m-%d"), **fields, "rows": rows}
    with open(os.path.join(ROOT, f"Benchmarks/results-{name}.json"), "w") as f:
        json.dump(result, f, indent=2)
