#!/usr/bin/env python3
"""A two-way call's glass-to-glass latency in each direction: two `sluice run` processes in a
room of `sluice serve` (Benchmarks/two-way-call.yaml), each stamping the frames it sends and
reading the other's stamps. The stamps carry CLOCK_MONOTONIC capture times, one clock for
both processes on this machine; each reader's `framestamp` events arrive through its control
API's event stream (`--control`). The first WARMUP seconds after a peer's first frame are
left out. Alternating runs of each binary given (before and after a change, say).

Run through Benchmarks/two-way.sh. Env: RUNS (2), SECONDS_PER_RUN (12), WARMUP (2),
BINARIES (space-separated LABEL=PATH or PATH, labelled by its path; default: the one binary SLUICE,
else .build/release/sluice).
"""
import json, os, statistics, subprocess, sys, threading, time, urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import SLUICE, wait_http  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNS = int(os.environ.get("RUNS", "2"))
SECONDS = float(os.environ.get("SECONDS_PER_RUN", "12"))
WARMUP = float(os.environ.get("WARMUP", "2"))
DEFAULT_BINARY = os.path.relpath(SLUICE, ROOT) if SLUICE.startswith(ROOT + os.sep) else SLUICE
BINARIES = dict(b.split("=", 1) if "=" in b else (b, b) for b in (os.environ.get("BINARIES") or DEFAULT_BINARY).split())
SERVER_PORT = 18720


def collect(port, name, out, stop):
    """Reads the peer's event stream, keeping (arrival, latency ms) of each stamp read."""
    api = f"http://127.0.0.1:{port}/api/v1/pipelines/{name}"
    wait_http(api)
    url = api + "/events?after=0"
    with urllib.request.urlopen(url, timeout=SECONDS + 30) as stream:
        for raw in stream:
            if stop.is_set():
                return
            line = raw.decode(errors="replace").strip()
            if not line.startswith("data:"):
                continue
            fields = json.loads(line[5:]).get("fields") or {}
            if fields.get("event") == "framestamp" and "latency_us" in fields:
                out.append((time.monotonic(), fields["latency_us"] / 1000))


def one_run(binary, run):
    room = f"two-way-{run}-{os.getpid()}"
    server = subprocess.Popen([binary, "serve", "--port", str(SERVER_PORT)], cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peers, threads, seen, stop = [], [], {}, threading.Event()
    try:
        wait_http(f"http://127.0.0.1:{SERVER_PORT}/status.json")
        for i, name in enumerate(("a", "b")):
            env = dict(os.environ, SLUICE_PEER=name, SLUICE_ROOM=room, SLUICE_ROOM_SERVER=f"http://127.0.0.1:{SERVER_PORT}")
            port = SERVER_PORT + 1 + i
            peers.append(subprocess.Popen([binary, "run", "Benchmarks/two-way-call.yaml", "--duration", str(SECONDS),
                                           "--quiet", "--control", f"127.0.0.1:{port}"], cwd=ROOT, env=env,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE))
            seen[name] = []
            t = threading.Thread(target=collect, args=(port, name, seen[name], stop), daemon=True)
            t.start(); threads.append(t)
        for p in peers:
            out, err = p.communicate(timeout=SECONDS + 60)
            if p.returncode != 0:
                sys.exit(f"a peer failed ({p.returncode}): {err.decode(errors='replace')[-800:]}")
        stop.set()
    finally:
        server.terminate(); server.wait(timeout=15)
    result = {}
    # What peer b reads is what a sent (a → b), and the other way round.
    for reader, direction in (("b", "a → b"), ("a", "b → a")):
        samples = seen[reader]
        if not samples:
            sys.exit(f"peer {reader} read no stamps")
        steady = sorted(ms for at, ms in samples if at >= samples[0][0] + WARMUP)
        result[direction] = {"p50_ms": steady[len(steady) // 2], "p95_ms": steady[int(0.95 * (len(steady) - 1))],
                             "frames": len(steady)}
    return result


def main():
    rows = {label: [] for label in BINARIES}
    for run in range(RUNS):
        for label in (list(BINARIES) if run % 2 == 0 else list(reversed(BINARIES))):
            r = one_run(BINARIES[label], run)
            rows[label].append(r)
            print(f"{label} run {run + 1}: " + ", ".join(f"{d} p50 {v['p50_ms']:.1f} p95 {v['p95_ms']:.1f} ms ({v['frames']} frames)"
                                                      for d, v in r.items()), file=sys.stderr, flush=True)
    result = {"file": "Benchmarks/two-way-call.yaml", "binaries": BINARIES, "runs": RUNS, "seconds_per_run": SECONDS, "warmup_s": WARMUP,
              "median": {b: {d: {k: statistics.median(r[d][k] for r in rs) for k in ("p50_ms", "p95_ms")}
                             for d in ("a → b", "b → a")} for b, rs in rows.items()},
              "all": rows}
    print(json.dumps(result["median"], indent=1, ensure_ascii=False))
    with open(os.path.join(ROOT, "Benchmarks/results-two-way.json"), "w") as f:
        json.dump(result, f, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
