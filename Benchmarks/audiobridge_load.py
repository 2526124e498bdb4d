#!/usr/bin/env python3
"""Crowds of `sluice load` members in one room of Janus's AudioBridge.

`sluice load Pipelines/load-janus-audiobridge.yaml --clients N` (one shared Opus encoder of
a stamped silence, a stamp every 400 ms; member m of N speaks stamps m, m + N, ... and sends
Opus silence otherwise) into room 1234 (mixed at 16 kHz), for N = 2 (the reference: one
other speaker, the mixer's floor), 10 and 50. Janus decodes every member, mixes, and encodes
one mix per member (everyone but that member). A step `N:P` runs N members that ask Janus to
buffer P packets of each before mixing it (`prebuffer`; the room's default is 6). Per run, from the load report and /proc:
- mouth-to-ear through the mixer, over every stamp every member read: p50, p95, and the
  stamps read; the fewest any one member read;
- time to first audio (p50), missing audio in ms per minute (p50, p95: RTP sequence gaps);
- members that succeeded;
- CPU of Janus and of the load process over the run, per member-second.
Medians of RUNS runs of SECONDS_PER_RUN s per N (members ramp in at 20/s).

Run through Benchmarks/audiobridge.sh (beside a throwaway Janus, in its own namespace).
Env: RUNS (3), SECONDS_PER_RUN (20), STEPS (2,10,50,10:2), SLUICE.
"""
import json, os, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from load_common import ROOT, SLUICE, cpu_of, write_result

RUNS = int(os.environ.get("RUNS", "3"))
SECONDS = float(os.environ.get("SECONDS_PER_RUN", "20"))
STEPS = [tuple(int(x) for x in (s + ":0").split(":")[:2]) for s in os.environ.get("STEPS", "2,10,50,10:2").split(",")]
RAMP = 20


def janus_pid():
    """The sandbox's Janus (the only one in this namespace's process tree)."""
    out = subprocess.run(["pgrep", "-x", "janus"], capture_output=True, text=True).stdout.split()
    if not out:
        sys.exit("audiobridge_load.py: no janus running: run it through Benchmarks/audiobridge.sh")
    return int(out[-1])


def one_run(n, prebuffer, janus):
    """One crowd of n members (asking Janus for `prebuffer` packets, 0: the room's); its figures."""
    with tempfile.TemporaryDirectory() as d:
        report = os.path.join(d, "load.json")
        args = [SLUICE, "load", "Pipelines/load-janus-audiobridge.yaml", "--clients", str(n), "--ramp", f"{RAMP}/s",
                "--duration", f"{SECONDS:g}", "--json", report, "--quiet"]
        if prebuffer:
            args += ["--set", f"transport.prebuffer={prebuffer}"]
        janus0, t0 = cpu_of(janus), time.monotonic()
        proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall, janus_cpu = time.monotonic() - t0, cpu_of(janus) - janus0
        if not os.path.exists(report):
            sys.exit(f"N={n}: no report (exit {proc.returncode}): {proc.stderr.read()[-800:]}")
        with open(report) as f:
            r = json.load(f)
    o = r["overall"]
    per_member = [(c.get("audio") or {}).get("mouth_to_ear_samples", 0) for c in r["clients"]]
    member_seconds = n * SECONDS
    return {
        "succeeded": o["succeeded"], "exit": proc.returncode,
        "mouth_to_ear_p50_ms": o["mouth_to_ear_ms"].get("p50"), "mouth_to_ear_p95_ms": o["mouth_to_ear_ms"].get("p95"),
        "stamps_read": o["mouth_to_ear_ms"]["count"], "fewest_stamps_one_member": min(per_member or [0]),
        "time_to_first_audio_p50_ms": o["time_to_first_audio_ms"].get("p50"),
        "missing_audio_ms_per_minute_p50": o["missing_audio_ms_per_minute"].get("p50"),
        "missing_audio_ms_per_minute_p95": o["missing_audio_ms_per_minute"].get("p95"),
        "janus_cpu_ms_per_member_s": janus_cpu / member_seconds * 1000,
        "load_cpu_ms_per_member_s": (usage.ru_utime + usage.ru_stime) / member_seconds * 1000,
        "janus_cores": janus_cpu / wall, "wall_s": wall,
    }


def median_of(rows, key):
    values = [r[key] for r in rows if r[key] is not None]
    return statistics.median(values) if values else None


def main():
    janus = janus_pid()
    results = []
    for n, prebuffer in STEPS:
        rows = [one_run(n, prebuffer, janus) for _ in range(RUNS)]
        med = {k: median_of(rows, k) for k in rows[0]}
        results.append({"members": n, "prebuffer": prebuffer or None, "median": med, "all": rows})
        label = f"{n} members" + (f", prebuffer {prebuffer}" if prebuffer else "")
        print(f"{label}: {med['succeeded']:.0f} succeeded, mouth-to-ear p50 {med['mouth_to_ear_p50_ms'] or 0:.1f} ms "
              f"p95 {med['mouth_to_ear_p95_ms'] or 0:.1f} ms ({med['stamps_read']:.0f} stamps, fewest "
              f"{med['fewest_stamps_one_member']:.0f}), first audio {med['time_to_first_audio_p50_ms'] or 0:.0f} ms, missing "
              f"{med['missing_audio_ms_per_minute_p95'] or 0:.0f} ms/min p95, Janus {med['janus_cpu_ms_per_member_s']:.1f} "
              f"and load {med['load_cpu_ms_per_member_s']:.1f} CPU ms per member-s", flush=True)
    write_result("audiobridge", "Benchmarks/audiobridge.sh", ["RUNS", "SECONDS_PER_RUN", "STEPS", "SLUICE"],
                 {"runs": RUNS, "seconds_per_run": SECONDS, "room": "Janus 1.1 AudioBridge, 16 kHz mix, default prebuffer (6 packets)",
                  "stamps": "every 400 ms, one member speaking at a time"}, results)
    print("docs/benchmarks.md table: Scripts/bench-tables.py")


if __name__ == "__main__":
    main()
