#!/usr/bin/env python3
"""Simulcast benchmark (issue 48): what forwarding a publisher's layers costs the server per
viewer, against forwarding one stream and against transcoding the same three sizes.

Three modes, alternating, RUNS times, each with 0 and with VIEWERS WHEP viewers
(`sluice run Benchmarks/fanout-viewer.yaml`: webrtcbin, no decoding; their CPU is not counted):
- simulcast: `sluice serve --relay`, a WHIP publisher sending three layers
  (Pipelines/whip-publish-simulcast.yaml: 640x360, 320x180, 160x90, VP8; its own process, not
  counted); each viewer's layer is chosen by its own bandwidth estimate;
- pinned: the same, each viewer pinned to the top layer (`?layer=h`): no bandwidth estimate,
  so simulcast − pinned is what choosing a layer per viewer costs and pinned − single what
  forwarding from three layers costs;
- single: the same relay, the same publisher file sending one 640x360 stream (its
  `simulcast` list removed): plain passthrough, the per-viewer cost simulcast is held to;
- ladder: `sluice serve --pipeline Benchmarks/simulcast-ladder.yaml`, the same three sizes
  decoded-free from a test picture but encoded on the server (the transcoding ladder).
For each it reports the server's CPU in cores over the steady seconds and the slowest viewer's
steady frame rate (medians of runs); the cost per viewer is (cores with VIEWERS − cores with
none) ÷ VIEWERS, and simulcast ÷ single is the figure the issue holds to 1.10.

Env: RUNS (3), SECONDS_PER_RUN (20), VIEWERS (10), STEADY_FROM (8).
Run through Benchmarks/simulcast.sh (release build, loopback-only namespace).
"""
import json, os, statistics, subprocess, sys, time, urllib.request

from load_common import ROOT, SLUICE, cpu_of, start_server, steady_fps, stop, wait_http

RUNS = int(os.environ.get("RUNS", "3"))
SECONDS = float(os.environ.get("SECONDS_PER_RUN", "20"))
VIEWERS = int(os.environ.get("VIEWERS", "10"))
STEADY_FROM = float(os.environ.get("STEADY_FROM", "8"))
PORT = 18695
PUBLISHER = "Pipelines/whip-publish-simulcast.yaml"
MODES = ("simulcast", "pinned", "single", "ladder")


def single_layer_file():
    """The publisher file without its `simulcast:` list: one 640x360 stream."""
    lines, skipping = [], False
    for line in open(os.path.join(ROOT, PUBLISHER)):
        if line.strip() == "simulcast:":
            skipping = True
            continue
        if skipping and line.lstrip().startswith("- "):
            continue
        skipping = False
        lines.append(line)
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"sluice-simulcast-single-{os.getpid()}.yaml")
    with open(path, "w") as f:
        f.writelines(lines)
    return path


def wait_live(seconds=30):
    """Until the relay lists `live` as live (bounded); exits the benchmark if it never does."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{PORT}/streams.json", timeout=5) as r:
                if any(s.get("name") == "live" and s.get("live") for s in json.load(r)):
                    return
        except OSError:
            pass
        time.sleep(0.2)
    sys.exit("the WHIP publisher did not go live on the relay")


def start(mode, single):
    """The server (and, for a relay, its publisher) of `mode`; returns (server, publisher, stream)."""
    if mode == "ladder":
        return start_server(PORT, "Benchmarks/simulcast-ladder.yaml"), None, "simulcast-ladder"
    server = subprocess.Popen([SLUICE, "serve", "--relay", "--port", str(PORT)], cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_http(f"http://127.0.0.1:{PORT}/streams.json")
    publisher = subprocess.Popen(
        [SLUICE, "run", single if mode == "single" else PUBLISHER, "--duration", str(SECONDS + 30), "--quiet"], cwd=ROOT,
        env=dict(os.environ, SLUICE_WHIP=f"http://127.0.0.1:{PORT}/whip/live"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_live()
    return server, publisher, "live?layer=h" if mode == "pinned" else "live"


def one_run(mode, viewers, single):
    server, publisher, stream = start(mode, single)
    try:
        env = dict(os.environ, SLUICE_WHEP=f"http://127.0.0.1:{PORT}/whep/{stream}")
        procs = [subprocess.Popen([SLUICE, "run", "Benchmarks/fanout-viewer.yaml", "--duration", str(SECONDS)], cwd=ROOT,
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(viewers)]
        time.sleep(STEADY_FROM)  # the measured window starts once every viewer is up
        cpu0, t0 = cpu_of(server.pid), time.monotonic()
        if viewers == 0:
            time.sleep(SECONDS - STEADY_FROM)
        outputs = []
        for p in procs:
            out, err = p.communicate(timeout=SECONDS + 60)
            if p.returncode != 0:
                sys.exit(f"a {mode} viewer failed ({p.returncode}): {err.decode(errors='replace')[-600:]}")
            outputs.append(out.decode(errors="replace"))
        cpu1, t1 = cpu_of(server.pid), time.monotonic()
        fps = [steady_fps(o, STEADY_FROM) for o in outputs]
        return {"server_cpu_cores": (cpu1 - cpu0) / (t1 - t0), "min_fps": min(fps) if fps else None}
    finally:
        stop(server)
        if publisher:
            stop(publisher)


def main():
    single = single_layer_file()
    runs = {(m, n): [] for m in MODES for n in (0, VIEWERS)}
    try:
        for _ in range(RUNS):
            for n in (0, VIEWERS):
                for mode in MODES:  # alternating: every mode sees the same machine
                    runs[(mode, n)].append(one_run(mode, n, single))
    finally:
        os.unlink(single)
    modes = {}
    for mode in MODES:
        idle = statistics.median(r["server_cpu_cores"] for r in runs[(mode, 0)])
        busy = statistics.median(r["server_cpu_cores"] for r in runs[(mode, VIEWERS)])
        modes[mode] = {"server_cpu_cores_0": idle, "server_cpu_cores_viewers": busy, "per_viewer_cores": (busy - idle) / VIEWERS,
                       "min_fps": statistics.median(r["min_fps"] for r in runs[(mode, VIEWERS)])}
        print(f"{mode:9}: {idle:.3f} cores with no viewer, {busy:.3f} with {VIEWERS}, {modes[mode]['per_viewer_cores'] * 1000:.1f} "
              f"millicores per viewer; slowest viewer {modes[mode]['min_fps']:.1f} fps", flush=True)
    result = {"machine": os.uname().release, "cores": os.cpu_count(), "runs": RUNS, "seconds_per_run": SECONDS,
              "steady_from": STEADY_FROM, "viewers": VIEWERS, "recorded_at": time.strftime("%Y-%m-%d"), "modes": modes,
              "per_viewer_simulcast_over_single": modes["simulcast"]["per_viewer_cores"] / modes["single"]["per_viewer_cores"],
              "server_ladder_over_simulcast": modes["ladder"]["server_cpu_cores_viewers"] / modes["simulcast"]["server_cpu_cores_viewers"],
              "runs_raw": {f"{m} {n}": rs for (m, n), rs in runs.items()}}
    result["per_viewer_pinned_over_single"] = modes["pinned"]["per_viewer_cores"] / modes["single"]["per_viewer_cores"]
    print(f"per viewer, simulcast ÷ single stream: {result['per_viewer_simulcast_over_single']:.3f} "
          f"(pinned to the top layer: {result['per_viewer_pinned_over_single']:.3f}); "
          f"server with {VIEWERS} viewers, transcoding ladder ÷ simulcast: {result['server_ladder_over_simulcast']:.2f}")
    with open(os.path.join(ROOT, "Benchmarks/results-simulcast.json"), "w") as f:
        json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
