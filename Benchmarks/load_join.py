#!/usr/bin/env python3
"""`sluice load` clients joining a running stream: each client's start (its webrtcbin made,
its offer POSTed) → its first complete frame, with 50 clients joining at 10 a second.

`sluice serve --pipeline Pipelines/serve-av.yaml` (640x360 VP8 at 30 fps, encoded once,
running for 2 s before the first client), then `sluice load Benchmarks/load-join.yaml`; the
load report's per-client `time_to_first_frame_ms`, `connect_ms` (ICE) and `dtls_ms`.
RUNS runs (default 3) per binary; with SLUICE_BEFORE another build is measured in the same
run, alternating, as the reference. Results: Benchmarks/results-load-join.json.
"""
import json, os, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import wait_http  # noqa: E402
from load_common import ROOT, SLUICE, stop, finish, write_result  # noqa: E402

RUNS = int(os.environ.get("RUNS", "3"))
CLIENTS, RAMP, PORT = 50, 10, 18740
BEFORE = os.environ.get("SLUICE_BEFORE")


def one_run(binary):
    server = subprocess.Popen([binary, "serve", "--port", str(PORT), "--pipeline", "Pipelines/serve-av.yaml"], cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_http(f"http://127.0.0.1:{PORT}/streams.json")
        time.sleep(2)  # a live stream: its encoder runs before the first viewer
        fd, path = tempfile.mkstemp(suffix=".json"); os.close(fd)
        duration = CLIENTS / RAMP + 4
        client = subprocess.Popen([binary, "load", "Benchmarks/load-join.yaml", "--clients", str(CLIENTS), "--ramp", f"{RAMP}/s",
                                   "--duration", str(duration), "--json", path, "--quiet"], cwd=ROOT,
                                  env=dict(os.environ, SLUICE_WHEP=f"http://127.0.0.1:{PORT}/whep/serve-av"),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        finish(client, duration + 60)
        with open(path) as f:
            report = json.load(f)
        os.unlink(path)
    finally:
        stop(server)
    rows = report["clients"]
    pick = lambda k: sorted(c[k] for c in rows if c.get(k) is not None)
    ttff, ice, dtls = pick("time_to_first_frame_ms"), pick("connect_ms"), pick("dtls_ms")
    # What comes after each client's own connection: the floor under its first frame is DTLS done.
    after = sorted(c["time_to_first_frame_ms"] - c["dtls_ms"] for c in rows
                   if c.get("time_to_first_frame_ms") is not None and c.get("dtls_ms") is not None)
    pct = lambda xs, p: xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] if xs else None
    return {"clients": len(rows), "with_frame": len(ttff), "ttff_p50_ms": pct(ttff, 50), "ttff_p95_ms": pct(ttff, 95),
            "ice_p50_ms": pct(ice, 50), "dtls_p50_ms": pct(dtls, 50), "after_dtls_p50_ms": pct(after, 50)}


def main():
    binaries = [("sluice", SLUICE)] + ([("before", os.path.abspath(BEFORE))] if BEFORE else [])
    runs = {name: [] for name, _ in binaries}
    for i in range(RUNS):
        for name, binary in (binaries if i % 2 == 0 else binaries[::-1]):
            r = one_run(binary)
            runs[name].append(r)
            print(f"run {i + 1} {name}: first frame p50 {r['ttff_p50_ms']:.0f} ms, p95 {r['ttff_p95_ms']:.0f} ms "
                  f"(ICE {r['ice_p50_ms']:.0f}, DTLS {r['dtls_p50_ms']:.0f}, first frame − DTLS {r['after_dtls_p50_ms']:.0f}; "
                  f"{r['with_frame']}/{r['clients']} clients)", flush=True)
    rows = []
    for name, _ in binaries:
        med = lambda k: statistics.median(r[k] for r in runs[name] if r[k] is not None)
        rows.append({"binary": name, "ttff_p50_ms": med("ttff_p50_ms"), "ttff_p95_ms": med("ttff_p95_ms"),
                     "ice_p50_ms": med("ice_p50_ms"), "dtls_p50_ms": med("dtls_p50_ms"),
                     "after_dtls_p50_ms": med("after_dtls_p50_ms"), "runs": runs[name]})
        print(f"{name}: first frame p50 {rows[-1]['ttff_p50_ms']:.0f} ms, p95 {rows[-1]['ttff_p95_ms']:.0f} ms "
              f"(medians of {RUNS} runs; target p50 ≤ 60 ms); "
              f"DTLS done p50 {rows[-1]['dtls_p50_ms']:.0f} ms (the floor), first frame − DTLS p50 {rows[-1]['after_dtls_p50_ms']:.0f} ms")
    write_result("load-join", "Benchmarks/load-join.sh", ["RUNS", "SLUICE", "SLUICE_BEFORE"],
                 {"clients": CLIENTS, "ramp_per_s": RAMP, "stream": "Pipelines/serve-av.yaml (640x360 VP8 30 fps, encoded once)",
                  "figure": "per client: its start (webrtcbin made, offer POSTed) → first complete frame, decode none"}, rows)


if __name__ == "__main__":
    main()
