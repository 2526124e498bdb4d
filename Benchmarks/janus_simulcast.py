#!/usr/bin/env python3
"""Simulcast through Janus's VideoRoom under a crowd (issue 48).

A Sluice publisher (`Pipelines/janus-publish-simulcast.yaml`: 640x360, 320x180 and 160x90 VP8
at 30 fps, its own process) publishes in room 1234 as `sc`; `sluice load
Pipelines/load-janus-simulcast.yaml --clients CLIENTS` subscribes a crowd in three groups, each
asking Janus for one substream (2, 1, 0) through its group's `transport: {substream: N}`. Per
run, from the load report: each group's clients, those that succeeded, the picture sizes they
got (the last keyframe's header: nothing decoded) and their steady frame rates (lowest and
median); Janus's CPU over the run. Medians of RUNS runs of SECONDS_PER_RUN s.

Run through Benchmarks/janus-simulcast.sh (beside a throwaway Janus, in its own namespace).
Env: RUNS (3), CLIENTS (30), SECONDS_PER_RUN (20), SLUICE.
"""
import json, os, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from load_common import ROOT, SLUICE, cpu_of, stop, write_result

RUNS = int(os.environ.get("RUNS", "3"))
CLIENTS = int(os.environ.get("CLIENTS", "30"))
SECONDS = float(os.environ.get("SECONDS_PER_RUN", "20"))
GROUPS = {"large": "640x360", "medium": "320x180", "small": "160x90"}


def janus_pid():
    """The sandbox's Janus (the only one in this namespace's process tree)."""
    out = subprocess.run(["pgrep", "-x", "janus"], capture_output=True, text=True).stdout.split()
    if not out:
        sys.exit("janus_simulcast.py: no janus running: run it through Benchmarks/janus-simulcast.sh")
    return int(out[-1])


def start_publisher(log):
    """The simulcast publisher, once its PeerConnection is up (bounded wait)."""
    p = subprocess.Popen([SLUICE, "run", "Pipelines/janus-publish-simulcast.yaml", "--duration", str(SECONDS + 60), "--quiet",
                          "--log-level", "info"], cwd=ROOT, env=dict(os.environ, SLUICE_JANUS_DISPLAY="sc"),
                         stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with open(log.name) as f:
            if "the publishing PeerConnection is up" in f.read():
                return p
        if p.poll() is not None:
            break
        time.sleep(0.1)
    stop(p)
    sys.exit(f"the simulcast publisher did not come up: {open(log.name).read()[-800:]}")


def one_run(janus):
    """One crowd; its figures per group."""
    with tempfile.TemporaryDirectory() as d, open(os.path.join(d, "publisher.log"), "w") as log:
        publisher = start_publisher(log)
        try:
            report = os.path.join(d, "load.json")
            janus0, t0 = cpu_of(janus), time.monotonic()
            proc = subprocess.run([SLUICE, "load", "Pipelines/load-janus-simulcast.yaml", "--clients", str(CLIENTS),
                                   "--duration", f"{SECONDS:g}", "--json", report, "--quiet"], cwd=ROOT,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            janus_cores = (cpu_of(janus) - janus0) / (time.monotonic() - t0)
            if not os.path.exists(report):
                sys.exit(f"no load report (exit {proc.returncode}): {proc.stderr[-800:]}")
            with open(report) as f:
                r = json.load(f)
        finally:
            stop(publisher)
    groups = {}
    for g in r["groups"]:
        rows = [c for c in r["clients"] if c["group"] == g["group"]]
        fps = [c["fps"] for c in rows if c.get("fps") is not None]
        groups[g["group"]] = {"clients": g["clients"], "succeeded": g["succeeded"], "video_sizes": g.get("video_sizes") or {},
                              "on_its_layer": sum(1 for c in rows if c.get("video_size") == GROUPS.get(g["group"])),
                              "min_fps": min(fps) if fps else None, "p50_fps": statistics.median(fps) if fps else None}
    return {"groups": groups, "janus_cores": janus_cores, "exit": proc.returncode}


def main():
    janus = janus_pid()
    runs = [one_run(janus) for _ in range(RUNS)]
    for i, run in enumerate(runs, 1):
        print(f"run {i}: " + "; ".join(f"{n}: {g['on_its_layer']}/{g['clients']} on {GROUPS[n]}, fps min {g['min_fps']}"
                                       for n, g in run["groups"].items()) + f"; janus {run['janus_cores']:.2f} cores", flush=True)
    rows = []
    for name, size in GROUPS.items():
        per = [run["groups"][name] for run in runs if name in run["groups"]]
        rows.append({"group": name, "substream_size": size,
                     "clients": statistics.median(g["clients"] for g in per),
                     "on_its_layer": statistics.median(g["on_its_layer"] for g in per),
                     "succeeded": statistics.median(g["succeeded"] for g in per),
                     "min_fps": statistics.median(g["min_fps"] for g in per if g["min_fps"] is not None),
                     "p50_fps": statistics.median(g["p50_fps"] for g in per if g["p50_fps"] is not None)})
    write_result("janus-simulcast", "Benchmarks/janus-simulcast.sh", ["RUNS", "CLIENTS", "SECONDS_PER_RUN"],
                 {"runs": RUNS, "clients": CLIENTS, "seconds_per_run": SECONDS,
                  "janus_cores": statistics.median(run["janus_cores"] for run in runs), "runs_raw": runs}, rows)


if __name__ == "__main__":
    main()
