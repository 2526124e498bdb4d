#!/usr/bin/env python3
"""The benchmark tables of docs/benchmarks.md (and the README's latency headline), generated
from the recorded results, never typed in.

Each generated table sits in a document between `<!-- table:NAME -->` and
`<!-- /table:NAME -->`; NAME picks the generator below and the JSON it reads. The documents
are README.md and docs/benchmarks.md; every table must appear in one of them.

    Scripts/bench-tables.py            rewrite the tables in the documents from Benchmarks/results-*.json
    Scripts/bench-tables.py --check    exit 1 if a table differs from its results, or one is missing
                                       (a test runs this: the docs cannot keep a figure the
                                       results no longer have)
    --file PATH                        check or rewrite only this document (the test's tampered
                                       copy); --readme PATH is the same
"""
import json, os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCUMENTS = [os.path.join(ROOT, "README.md"), os.path.join(ROOT, "docs", "benchmarks.md")]


def load(name):
    with open(os.path.join(ROOT, "Benchmarks", name)) as f:
        return json.load(f)


def cpu_cells(r):
    """The configuration and CPU cells both C comparisons share."""
    m = r["median"]
    return (f"| {r['config'].replace('h264', 'H.264').replace('vp8', 'VP8')} | {m['sluice_cpu_s_per_min']:.2f} "
            f"| {m['c_cpu_s_per_min']:.2f} | {m['ratio']:.3f} ({m['pair_ratio']:.3f}) | {m['sluice_fps']:.1f} / {m['c_fps']:.1f} ")


def c_compare():
    d = load("results-c-webrtcbin.json")
    rows = ["| configuration | Sluice CPU s/min | C CPU s/min | Sluice ÷ C (median of pairs) | fps S / C "
            "| steady window ÷ C | C ÷ C steady (range) "
            "| latency p50 S / S 2 processes / C | p95 S / S 2 processes / C |",
            "|---|---|---|---|---|---|---|---|---|"]
    for r in d["results"]:
        m = r["median"]
        two = lambda k: f"{m[k]:.1f}" if m.get(k) is not None else "–"
        steady = f"{m['steady_pair_ratio']:.3f}" if m.get("steady_pair_ratio") is not None else "–"
        noise = (f"{m['c_self_steady_ratio']:.3f} ({m['c_self_steady_range'][0]:.2f}–{m['c_self_steady_range'][1]:.2f})"
                 if m.get("c_self_steady_ratio") is not None else "–")
        rows.append(cpu_cells(r) + f"| {steady} | {noise} | {m['sluice_p50_ms']:.1f} / {two('sluice2_p50_ms')} / {m['c_p50_ms']:.1f} ms "
                    f"| {m['sluice_p95_ms']:.1f} / {two('sluice2_p95_ms')} / {m['c_p95_ms']:.1f} ms |")
    rows.append("")
    rows.append(f"{d['runs']} alternating runs of {d['seconds']:g} s per configuration; medians "
                f"(`Benchmarks/results-c-webrtcbin.json`).")
    return "\n".join(rows)


def c_compare_threads():
    """Where each side's CPU goes in the steady window, by thread role, per codec."""
    d = load("results-c-webrtcbin.json")
    results = [r for r in d["results"] if r["median"].get("threads")]
    if not results:
        return "No per-thread figures in this run (`Benchmarks/results-c-webrtcbin.json`)."
    names = [r["config"].replace("h264", "H.264").replace("vp8", "VP8") for r in results]
    rows = ["| thread | " + " | ".join(f"{n} Sluice | {n} C" for n in names) + " |",
            "|---|" + "---|---|" * len(results)]
    roles = []
    for r in results:
        for role, (sv, cv) in r["median"]["threads"].items():
            if sv + cv >= 0.1 and role not in roles:
                roles.append(role)
    for role in roles:
        cells = []
        for r in results:
            sv, cv = r["median"]["threads"].get(role, [0, 0])
            cells += [f"{sv:.2f}", f"{cv:.2f}"]
        rows.append(f"| `{role}` | " + " | ".join(cells) + " |")
    totals = []
    for r in results:
        t = r["median"]["threads"]
        totals += [f"{sum(v[0] for v in t.values()):.2f}", f"{sum(v[1] for v in t.values()):.2f}"]
    rows.append("| all (sum of the medians) | " + " | ".join(totals) + " |")
    rows.append("")
    rows.append(f"CPU s per minute in the steady window, median of {d['runs']} runs per side; threads named alike "
                "(`nicesrc1:src`, `nicesrc2:src`) are one role (`Benchmarks/results-c-webrtcbin.json`).")
    return "\n".join(rows)


def c_compare_run():
    d = load("results-c-webrtcbin-run.json")
    rows = ["| configuration | Sluice CPU s/min | C CPU s/min | Sluice ÷ C (median of pairs) | fps S / C |",
            "|---|---|---|---|---|"]
    for r in d["results"]:
        rows.append(cpu_cells(r) + "|")
    rows.append("")
    rows.append(f"{d['runs']} alternating runs of {d['seconds']:g} s per configuration; medians "
                f"(`Benchmarks/results-c-webrtcbin-run.json`).")
    return "\n".join(rows)


def latency_floor():
    d = load("results-latency-floor.json")
    m = d["median"]
    rows = [f"| figure (median of {d['runs']} runs of {d['seconds_per_run']:g} s, first {d['warmup_s']:g} s left out) | value |",
            "|---|---|",
            f"| glass-to-glass p50 | {m['p50_ms']:.1f} ms |",
            f"| p95 / p99 / max | {m['p95_ms']:.1f} / {m['p99_ms']:.1f} / {m['max_ms']:.1f} ms |",
            f"| delivered | {m['delivered_fps']:.1f} fps, {m['lost']:g} frames lost per run |",
            f"| CPU | {m['cpu_cores']:.2f} of one core |",
            "",
            "Where the time goes (`sluice measure`'s stages, means over every frame; medians of the runs):",
            "",
            "| stage | mean | p50 |",
            "|---|---|---|"]
    for s in d.get("stages", []):
        p50 = f"{s['p50_ms']:.2f}" if s.get("p50_ms") is not None else "–"
        rows.append(f"| {s['stage']} | {s['mean_ms']:.2f} | {p50} |")
    return "\n".join(rows)


def guard_table(mode):
    d = load("results-guard.json")[mode]
    rows = ["| figure | recorded (median) | noise band | runs | better |", "|---|---|---|---|---|"]
    for name, f in d["figures"].items():
        runs = ", ".join(f"{v:.2f}" for v in f["runs"])
        rows.append(f"| {name} | {f['median']:.3f} | {f['band'] * 100:.0f}% | {runs} | {f['better']} |")
    rows.append("")
    rows.append(f"Recorded {d['recorded_at']} with `{d['how'].split(';')[0]}`, runs of {d['seconds']:g} s.")
    return "\n".join(rows)


def two_way():
    d = load("results-two-way.json")
    rows = ["| build | a → b p50 / p95 | b → a p50 / p95 |", "|---|---|---|"]
    for label, m in d["median"].items():
        rows.append(f"| {label} | {m['a → b']['p50_ms']:.1f} / {m['a → b']['p95_ms']:.1f} ms "
                    f"| {m['b → a']['p50_ms']:.1f} / {m['b → a']['p95_ms']:.1f} ms |")
    rows.append("")
    rows.append(f"{d['runs']} alternating runs of {d['seconds_per_run']:g} s per build, first {d['warmup_s']:g} s left out; "
                f"medians (`Benchmarks/results-two-way.json`).")
    return "\n".join(rows)


def load_clients():
    d = load("results-load-clients.json")
    rows = ["| viewers | Sluice CPU per client-second | aiortc | Sluice ÷ aiortc (median of pairs) "
            "| fps in the window S / A (slowest S / A) | CPU per frame S / A | loopback per viewer S / A | server S / A |",
            "|---|---|---|---|---|---|---|---|"]
    for c in d["cases"]:
        s, a = c["sluice"], c["aiortc"]
        rows.append(f"| {c['clients']} {c['case'].split(' (')[0]} | {s['cpu_ms_per_client_s']:.1f} ms | {a['cpu_ms_per_client_s']:.1f} ms "
                    f"| {c['ratio']:.2f} ({c['pair_ratio']:.2f}) | {s['fps_window']:.1f} / {a['fps_window']:.1f} "
                    f"({s['fps_min']:.1f} / {a['fps_min']:.1f}) | {s['cpu_ms_per_frame']:.2f} / {a['cpu_ms_per_frame']:.2f} ms "
                    f"| {s['loopback_kbit_s'] / c['clients']:.0f} / {a['loopback_kbit_s'] / c['clients']:.0f} kbit/s "
                    f"| {s['server_cores']:.2f} / {a['server_cores']:.2f} cores |")
    rows.append("")
    rows.append(f"{d['runs']} runs, sides alternating, CPU over {d['window_s']:g} s from {d['warmup_s']:g} s after the server "
                f"counts every viewer; medians (`{d['how']}`, `Benchmarks/results-load-clients.json`).")
    return "\n".join(rows)


def load_fanout():
    d = load("results-load-fanout.json")
    rows = ["| N viewers | slowest / median viewer | encoder | server | server per viewer-second (over alone) "
            "| load process (of the machine) | load per viewer-second | machine busy |",
            "|---|---|---|---|---|---|---|---|"]
    for r in d["rows"]:
        failed = f", {r['clients_failed']:g} failed" if r["clients_failed"] else ""
        rows.append(f"| {r['n']} | {r['min_fps']:.1f} / {r['median_fps']:.1f} fps{failed} | {r['server_encoded_fps']:.1f} fps "
                    f"| {r['server_cores']:.2f} cores | {r['server_ms_per_viewer_s']:.1f} ms ({r['server_added_ms_per_viewer_s']:.1f} ms) "
                    f"| {r['load_cores']:.2f} cores ({r['load_share_of_machine'] * 100:.0f}%) | {r['load_ms_per_viewer_s']:.1f} ms "
                    f"| {r['machine_cores']:.2f} of {d['cores']} cores |")
    rows.append("")
    rows.append(f"**Largest N with every viewer at ≥ 29 fps: {d['largest_n_at_29fps']}.** {d['runs_per_n']} run{'s' if d['runs_per_n'] != 1 else ''} per N, "
                f"CPU over {d['window_s']:g} s from {d['warmup_s']:g} s after the server counts every viewer, viewers "
                f"starting {d['ramp_per_s']} a second (`{d['how']}`, `Benchmarks/results-load-fanout.json`).")
    return "\n".join(rows)


def passthrough():
    d = load("results-passthrough.json")
    rows = ["| viewers | passthrough server | transcoded server | passthrough ÷ transcoded (median of pairs) "
            "| slowest viewer, passthrough / transcoded |", "|---|---|---|---|---|"]
    for r in d["rows"]:
        fps = (f"{r['passthrough']['min_fps']:.1f} / {r['transcoded']['min_fps']:.1f} fps"
               if r["passthrough"]["min_fps"] is not None else "–")
        rows.append(f"| {r['viewers']} | {r['passthrough']['server_cpu_cores']:.3f} cores "
                    f"| {r['transcoded']['server_cpu_cores']:.3f} cores | {r['ratio']:.3f} | {fps} |")
    for r in d["rows"]:
        if "floor" in r:
            rows.append(f"| {r['viewers']}, the floor: gst-launch reading the camera, no Sluice "
                        f"| {r['floor']['server_cpu_cores']:.4f} cores | {r['transcoded']['server_cpu_cores']:.3f} cores "
                        f"| {r['floor_ratio']:.3f} | – |")
    rows.append("")
    rows.append(f"One camera: {d['camera']}. {d['runs']} alternating runs of {d['seconds_per_run']:g} s per mode and "
                f"viewer count, CPU from {d['steady_from']:g} s on; medians (`Benchmarks/results-passthrough.json`).")
    return "\n".join(rows)


def send_floor():
    f, d = load("results-send-floor.json"), load("results-passthrough.json")
    kbps = d["camera_kbps"]
    alone = next(r for r in d["rows"] if r["viewers"] == 0)
    viewers = max(r["viewers"] for r in d["rows"])
    transcoded, intake = alone["transcoded"]["server_cpu_cores"], alone["floor"]["server_cpu_cores"]
    packets = kbps * 1000 / 8 / 1200
    allowed = lambda taking_in: (0.05 * transcoded - taking_in) / (viewers - 0.05 * viewers) * 1000
    rows = ["| figure | value |", "|---|---|",
            f"| one `sendto()` of {f['bytes']} bytes on loopback, the sender's CPU (median of {len(f['runs_us'])} runs) "
            f"| {f['median_us']:.2f} µs |",
            f"| packets a second a viewer of the {kbps:.0f} kbit/s camera gets, at least (1200-byte packets) | {packets:.0f} |",
            f"| so sending alone costs, per viewer-second, at least | {packets * f['median_us'] / 1000:.2f} ms |",
            f"| what 5% with {viewers} viewers leaves each viewer if taking the camera in cost nothing | {allowed(0):.2f} ms |",
            f"| … if it cost what bare `gst-launch rtspsrc` spends ({intake:.4f} cores) | {allowed(intake):.2f} ms |"]
    rows.append("")
    rows.append(f"`{f['how']}` (`Benchmarks/results-send-floor.json`, {f['recorded_at']}) and the transcoded server and the floor "
                "of the passthrough table above (`Benchmarks/results-passthrough.json`).")
    return "\n".join(rows)


def proxy_4k():
    d = load("results-proxy-4k.json")
    rows = ["| camera | what reads it | CPU | per megapixel-second | per pixel, ÷ go2rtc's | viewer |",
            "|---|---|---|---|---|---|"]
    for r in d["rows"]:
        fps = f"{r['viewer_fps']:.1f} fps" if r["viewer_fps"] is not None else "–"
        rows.append(f"| {r['camera']}, {r['kbps'] / 1000:.1f} Mbit/s | {r['mode']} | {r['cores']:.4f} cores "
                    f"| {r['cores_per_mpx_s'] * 1e6:.0f} µcores | {r['per_pixel_vs_go2rtc']:.2f} | {fps} |")
    rows.append("")
    rows.append(f"Cameras at {d['fps']} fps, GOP 2 s, RTSP over TCP. {d['runs']} alternating runs of "
                f"{d['seconds_per_run']:g} s per camera and mode, CPU from {d['steady_from']:g} s on; medians; "
                f"go2rtc: 3% of a CPU over 3840x2160 at {d['fps']} fps, {d['go2rtc_cores_per_mpx_s'] * 1e6:.0f} µcores per "
                "megapixel-second (`Benchmarks/results-proxy-4k.json`).")
    return "\n".join(rows)


def cameras():
    d = load("results-cameras.json")
    rows = ["| cameras | picture | viewers at ≥ {:g} fps | slowest / median viewer | freezes per viewer-minute | server (per camera) "
            "| server, no viewer | cameras' process | load process | machine busy (others) | UDP drops | verdict |".format(d["at_rate_fps"]),
            "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in d["rows"] + d["search"]:
        runs = "" if r in d["rows"] else f" ({r['runs_measured']} run{'s' if r['runs_measured'] != 1 else ''})"
        failed = f", {r['viewers_failed']:g} failed" if r["viewers_failed"] else ""
        freezes = f"{r['freezes_per_viewer_min']:.1f}" if r.get("freezes_per_viewer_min") is not None else "–"
        rows.append(f"| {r['n']}{runs} | {r['size']}, {r['kbps']} kbit/s | {r['viewers_at_rate']:g} of {r['n']}{failed} "
                    f"| {r['viewer_fps_min']:.1f} / {r['viewer_fps_median']:.1f} fps | {freezes} "
                    f"| {r['server_cores']:.2f} cores ({r['server_cores_per_camera'] * 1000:.1f} m) "
                    f"| {r['server_cores_no_viewers']:.2f} cores | {r['cameras_cores']:.2f} cores | {r['load_cores']:.2f} cores "
                    f"| {r['machine_cores']:.2f} of {d['cores']} ({r['other_cores']:.2f}) | {r['udp_drops_per_s']:.1f}/s | {r['verdict']} |")
    t = d["target"]
    largest = d["largest_n_passing_at_size"]
    remark = f" *{d['remark'][0].upper()}{d['remark'][1:]}.*" if d.get("remark") else ""  # NOTE, when recorded
    rows.append("")
    rows.append(f"**{t['n']} cameras at {t['size']} {t['fps']} fps, one viewer each: {t['verdict']}** ({t['why']}). "
                f"Largest N that passed at {t['size']}: {largest if largest is not None else 'none'}.{remark}")
    rows.append("")
    rows.append(f"Cameras: {d['camera']}. Server: {d['server']}. Viewers: {d['viewers']}, starting {d['ramp_per_s']:g} a second. "
                f"CPU over {d['seconds_per_run'] - d['steady_from']:g} s from {d['steady_from']:g} s after every stream has its viewer; "
                f"m = thousandths of a core. Rows without a run count are medians of {d['runs']} run{'s' if d['runs'] != 1 else ''} "
                f"(`{d['how']}`, `Benchmarks/results-cameras.json`, recorded {d['recorded_at']}).")
    return "\n".join(rows)


def passthrough_latency():
    d = load("results-passthrough-latency.json")
    m, diff = d["median"], d["median_transcoded_minus_passthrough"]
    rows = ["| path | glass-to-glass p50 | p95 | viewer fps |", "|---|---|---|---|"]
    for mode in ("passthrough", "transcoded"):
        rows.append(f"| {mode} | {m[mode]['p50_ms']:.1f} ms | {m[mode]['p95_ms']:.1f} ms | {m[mode]['fps']:.1f} |")
    rows.append(f"| transcoded − passthrough (median of pairs) | {diff['p50_ms']:+.1f} ms | {diff['p95_ms']:+.1f} ms | |")
    p95s = ", ".join(f"{r['p95_ms']:.0f}" for r in d["runs_by_mode"]["passthrough"])
    rows.append("")
    rows.append(f"Camera: {d['camera']}; viewer: {d['viewer']}. {d['runs']} alternating runs of {d['seconds_per_run']:g} s "
                f"per mode; medians (`Benchmarks/results-passthrough-latency.json`). Passthrough p95 per run: {p95s} ms.")
    return "\n".join(rows)


def load_accuracy():
    d = load("results-load-accuracy.json")
    names = {"p50_ms": "glass-to-glass p50", "p95_ms": "glass-to-glass p95",
             "connected_to_first_frame_ms": "connected → first frame", "first_frame_ms": "time to first frame (each tool's own start)",
             "audio_p50_ms": "audio mouth-to-ear p50", "audio_p95_ms": "audio mouth-to-ear p95",
             "av_offset_p50_ms": "A/V offset p50 (audio minus video)"}
    rows = ["| figure | `sluice load` | `sluice measure` | load − measure (median of runs) |", "|---|---|---|---|"]
    for key, label in names.items():
        load_v, measure_v = d["median"]["load"].get(key), d["median"]["measure"].get(key)
        if load_v is None or measure_v is None:
            continue
        rows.append(f"| {label} | {load_v:.1f} ms | {measure_v:.1f} ms "
                    f"| {d['median_difference_load_minus_measure'][key]:+.1f} ms |")
    rows.append("")
    rows.append(f"{d['viewer']}; {d['runs']} runs of {d['seconds_per_run']:g} s per tool, alternating; medians "
                f"(`{d['how']}`, `Benchmarks/results-load-accuracy.json`).")
    return "\n".join(rows)


def load_publishers():
    d = load("results-load-publishers.json")
    rows = ["| N publishers | received at the server: slowest / median | sent: slowest | shared encoder | load process (of the machine) "
            "| load per publisher-second | server per publisher-second | machine busy |",
            "|---|---|---|---|---|---|---|---|"]
    for r in d["rows"]:
        failed = f", {r['clients_failed']:g} failed" if r["clients_failed"] else ""
        rows.append(f"| {r['n']} | {r['min_received_fps']:.1f} / {r['median_received_fps']:.1f} fps{failed} | {r['min_sent_fps']:.1f} fps "
                    f"| {r['shared_encoder_fps']:.1f} fps | {r['load_cores']:.2f} cores ({r['load_share_of_machine'] * 100:.0f}%) "
                    f"| {r['load_ms_per_publisher_s']:.1f} ms | {r['server_ms_per_publisher_s']:.1f} ms | {r['machine_cores']:.2f} of {d['cores']} cores |")
    rows.append("")
    rows.append(f"**Largest N with every publisher's stream received at ≥ 28.5 fps (95% of 30): {d['largest_n_at_95_percent']}.** "
                f"{d['runs_per_n']} run{'s' if d['runs_per_n'] != 1 else ''} per N, CPU over {d['window_s']:g} s from "
                f"{d['warmup_s']:g} s after the server has every stream live, publishers starting {d['ramp_per_s']} a second "
                f"(`{d['how']}`, `Benchmarks/results-load-publishers.json`).")
    return "\n".join(rows)


def load_calls():
    d = load("results-load-calls.json")
    rows = ["| N members (N/2 calls) | received: slowest / median member | mean in the window | shared encoder "
            "| load process (of the machine) | load per member-second | machine busy |",
            "|---|---|---|---|---|---|---|"]
    for r in d["rows"]:
        failed = f", {r['clients_failed']:g} failed" if r["clients_failed"] else ""
        rows.append(f"| {r['n']} | {r['min_fps']:.1f} / {r['median_fps']:.1f} fps{failed} | {r['window_fps']:.1f} fps "
                    f"| {r['shared_encoder_fps']:.1f} fps | {r['load_cores']:.2f} cores ({r['load_share_of_machine'] * 100:.0f}%) "
                    f"| {r['load_ms_per_member_s']:.1f} ms | {r['machine_cores']:.2f} of {d['cores']} cores |")
    rows.append("")
    rows.append(f"**Largest N with every member receiving ≥ 28.5 fps (95% of 30): {d['largest_n_at_95_percent']}.** "
                f"{d['runs_per_n']} run{'s' if d['runs_per_n'] != 1 else ''} per N, CPU over {d['window_s']:g} s from "
                f"{d['warmup_s']:g} s after the room server counts every member, members starting {d['ramp_per_s']} a second "
                f"(`{d['how']}`, `Benchmarks/results-load-calls.json`).")
    return "\n".join(rows)


def viewer_lanes():
    d = load("results-viewer-lanes.json")
    rows = ["| viewers on | server | server per viewer-second (over alone) | load process | slowest / median viewer | machine busy |",
            "|---|---|---|---|---|---|"]
    names = {"own_threads": "a thread each (`--viewer-lanes 0`)", "lanes": f"{d['lanes_default']} lanes (four per core)"}
    for mode in ("own_threads", "lanes"):
        m = d["medians"][mode]
        rows.append(f"| {names[mode]} | {m['server_cores']:.3f} cores | {m['server_added_ms_per_viewer_s']:.2f} ms "
                    f"| {m['load_cores']:.3f} cores | {m['min_fps']:.1f} / {m['median_fps']:.1f} fps | {m['machine_cores']:.2f} of {d['cores']} cores |")
    r = d["pair_ratio_lanes_over_own"]
    rows.append(f"| lanes ÷ a thread each (median of pairs) | {r['server_cores']:.3f} | {r['server_added_ms_per_viewer_s']:.3f} | | | |")
    rows.append("")
    rows.append(f"{d['viewers']} viewers of one 720p30 H.264 encoder, {d['runs']} alternating pairs, CPU over {d['window_s']:g} s from "
                f"{d['warmup_s']:g} s after the server counts every viewer; medians (`{d['how']}`, `Benchmarks/results-viewer-lanes.json`, "
                f"recorded {d['recorded_at']}).")
    return "\n".join(rows)


def headline():
    """The README's one-line latency figure, from the latency floor and the C comparison."""
    d = load("results-latency-floor.json")
    m = d["median"]
    c = {r["config"]: r["median"] for r in load("results-c-webrtcbin.json")["results"]}
    h = c["h264"]
    v = c["vp8"]
    return (f"Glass-to-glass latency, 720p30 H.264 over WebRTC in one process, a simple moving picture: "
            f"**p50 {m['p50_ms']:.1f} ms, p95 {m['p95_ms']:.1f} ms** (median of {d['runs']} runs of "
            f"{d['seconds_per_run']:g} s). With SMPTE bars at 2500 kbit/s, against the same graph written in "
            f"plain C: H.264 p50 {h['sluice_p50_ms']:.1f} ms (C {h['c_p50_ms']:.1f}), p95 {h['sluice_p95_ms']:.1f} ms "
            f"(C {h['c_p95_ms']:.1f}); VP8 p50 {v['sluice_p50_ms']:.1f} ms (C {v['c_p50_ms']:.1f}), "
            f"p95 {v['sluice_p95_ms']:.1f} ms (C {v['c_p95_ms']:.1f}).")


def startup_floor():
    d = load("results-startup-floor.json")
    rows = ["| | first frame after the key | range | negotiated | ICE connected | connected | first RTP | ",
            "|---|---|---|---|---|---|---|"]
    rows[0] = rows[0].rstrip(" |") + " |"
    for r in d["rows"]:
        st = r["steps_from_key_ms"]
        cell = lambda k: f"+{st[k]:.0f}" if k in st else "–"
        rows.append(f"| {r['cell']} | **{r['first_frame_from_key_ms']:.0f} ms** | {r['range_ms'][0]:.0f}–{r['range_ms'][1]:.0f} "
                    f"| {cell('negotiated')} | {cell('ICE connected')} | {cell('connected')} | {cell('first RTP received')} |")
    rows.append("")
    rows.append(f"Cold processes, {d['runs_per_cell']} runs per cell, alternating; medians, steps in ms after the key "
                f"(`{d['how']}`, `Benchmarks/results-startup-floor.json`, recorded {d['recorded_at']}).")
    return "\n".join(rows)


def load_join():
    d = load("results-load-join.json")
    rows = ["| build | first frame p50 | p95 | ICE p50 | DTLS done p50 (the floor) | first frame − DTLS p50 |",
            "|---|---|---|---|---|---|"]
    for r in d["rows"]:
        after = f"{r['after_dtls_p50_ms']:.0f} ms" if r.get("after_dtls_p50_ms") is not None else "–"
        rows.append(f"| {r['binary']} | **{r['ttff_p50_ms']:.0f} ms** | {r['ttff_p95_ms']:.0f} ms | {r['ice_p50_ms']:.0f} ms "
                    f"| {r['dtls_p50_ms']:.0f} ms | {after} |")
    rows.append("")
    rows.append(f"{d['clients']} clients joining at {d['ramp_per_s']}/s, {d['stream']}; {d['figure']}; medians of "
                f"{len(d['rows'][0]['runs'])} runs (`{d['how']}`, `Benchmarks/results-load-join.json`, recorded {d['recorded_at']}).")
    return "\n".join(rows)


def build_time():
    """A clean release build of the CLI, and the rebuild after an edit to one kind, per commit."""
    d = load("results-build-time.json")
    rows = ["| commit | clean build: CPU s (wall s) | ÷ first | edit to one kind (`{0}`): CPU s (wall s) | ÷ first | modules rebuilt |"
            .format(d["results"][0]["edit"]["file"].rsplit("/", 1)[-1]),
            "|---|---|---|---|---|---|"]
    for r in d["results"]:
        c, e = r["clean"], r["edit"]
        ratio = lambda x: f"{x:.3f}" if x is not None else "1"
        other = "".join(f"; another run {x:.0f}" for x in c.get("other_runs_cpu_s", []))
        rows.append(f"| {r['commit'][:7]} | {c['cpu_s']:.0f} ({c['wall_s']:.0f}{other}) | {ratio(c.get('cpu_ratio'))} "
                    f"| {e['cpu_s']:.0f} ({e['wall_s']:.0f}) | {ratio(e.get('cpu_ratio'))} "
                    f"| {', '.join(e['modules_rebuilt'])} |")
    rows.append("")
    rows.append(f"{d['cores']} cores, one run per commit in a clean clone; CPU seconds are the build's and its children's "
                f"(user + system), the figure compared. {d.get('note', '')} "
                f"(`{d['how']}`, `Benchmarks/results-build-time.json`, recorded {d['recorded_at']}).")
    return "\n".join(rows)


def audio_filter_bench():
    """Per-buffer cost of the Swift audio filters against GStreamer's elements, one process."""
    d = load("results-audio-filter-bench.json")
    labels = ["identity", "volume", "Swift gain", "level", "Swift level"]
    rows = ["| format | buffer | " + " | ".join(labels) + " | gain ÷ volume | Swift level ÷ level |",
            "|---|---|" + "---|" * (len(labels) + 2)]
    for fmt in ("F32LE", "S16LE"):
        for size in ("10 ms", "20 ms"):
            r = d["median_ns"][fmt][size]
            rows.append(f"| {fmt} | {size} | " + " | ".join(f"{r[k]:.0f}" for k in labels)
                        + f" | {r['Swift gain'] / r['volume']:.3f} | {r['Swift level'] / r['level']:.3f} |")
    rows.append("")
    rows.append(f"ns per buffer, {d['rate'] // 1000} kHz, {d['channels']} channels; median of {d['runs']} runs × "
                f"{d['buffers']} buffers, each run's median, candidates alternating order (`{d['how']}`, "
                f"`Benchmarks/results-audio-filter-bench.json`, recorded {d['recorded_at']}).")
    return "\n".join(rows)


def e2ee_bench():
    """What `e2ee` costs per frame against the encode it follows (VP8 and H.264), one process."""
    d = load("results-e2ee-bench.json")
    names = {"vp8": ("VP8", "vp8enc"), "h264": ("H.264", "x264enc + h264parse")}
    rows = ["| codec | stage | CPU µs per frame | share of the encode's CPU | wall µs per frame | share of the encode's time | "
            "first frame, ms |", "|---|---|---|---|---|---|---|"]
    for codec, (name, encoder) in names.items():
        c = d["codecs"][codec]
        rows.append(f"| {name} | {encoder} (the encode) | {c['encode_cpu_us_per_frame']:.0f} | 1 | {c['encode_us_per_frame']:.0f} | 1 | – |")
        for label in ("identity", "swift-keep", "e2ee"):
            rows.append(f"| {name} | {label} | {c['cpu_us_per_frame'][label]:.1f} | {c['share_of_encode_cpu'][label]:.4f} | "
                        f"{c['us_per_frame'][label]:.1f} | {c['share_of_encode'][label]:.4f} | {c['first_frame_ms'][label]:.1f} |")
    rows.append("")
    shares = "; ".join(f"{names[k][0]} **{100 * d['codecs'][k]['share_of_encode_cpu']['e2ee']:.2f}%** "
                       f"at {d['codecs'][k]['encoded_kbps']:.0f} kbit/s" for k in names)
    rows.append(f"{d['width']}x{d['height']} {d['fps']} fps, target {d['target_kbps']} kbit/s, Sluice's realtime encoder "
                f"settings (vp8enc with 1 thread on 2 cores, as Sluice sets it); totals after the first {d['warm_up_frames']} "
                f"frames; median of {d['runs']} runs × {d['frames']} frames per codec, stages alternating (`{d['how']}`, "
                f"`Benchmarks/results-e2ee-bench.json`, recorded {d['recorded_at']}). A stage's CPU is its streaming thread's "
                f"CPU time from its sink pad to its src pad; the encode's is the process's CPU per frame less the source's "
                f"(a source-only pipeline each run) and the stage's; wall time is the same span by the clock. "
                f"**e2ee's share of the encode's CPU:** {shares} (target: at most 2%). `identity` is the floor of being an "
                f"element; `swift-keep` is `faults` with no fault set, a Swift encoded filter that keeps every frame "
                f"(Sluice's element around a filter). Its first frame carries the key's derivation (PBKDF2, 100 000 rounds), "
                f"once per filter.")
    return "\n".join(rows)


def audio_measure():
    """Audio mouth-to-ear and A/V offset beside video glass-to-glass, per set-up."""
    d = load("results-audio-measure.json")
    ms = lambda v: f"{v:.1f}" if v is not None else "–"
    rows = ["| set-up | video p50 | video p95 | audio p50 | audio p95 | audio p99 | A/V offset p50 | audio encode | audio unaccounted | stamps |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for r in d["results"]:
        m = r["median"]
        rows.append(f"| {r['setup']} | {ms(m['video_p50_ms'])} | {ms(m['video_p95_ms'])} | {ms(m['audio_p50_ms'])} | "
                    f"{ms(m['audio_p95_ms'])} | {ms(m['audio_p99_ms'])} | {ms(m['av_offset_p50_ms'])} | "
                    f"{ms(m.get('audio_encode_mean_ms'))} | {ms(m.get('audio_unaccounted_mean_ms'))} | {m['stamps_read']:.0f} |")
    rows.append("")
    rows.append(f"ms; medians of {d['runs']} runs of {d['seconds_per_run']:g} s, an audio stamp {d['stamps']} "
                f"(`{d['how']}`, `Benchmarks/results-audio-measure.json`). A/V offset: audio minus video for the same "
                f"capture instant, positive when audio is late. Audio encode and unaccounted: means from the audio "
                f"path's stages (`audio.stages`); encode holds Opus's wait for its 20 ms frame to fill; unaccounted "
                f"is the mouth-to-ear mean less every stage's, and holds the far end's time where there is one "
                f"(EchoTest, Chromium, aiortc) and the network between two processes.")
    by_setup = {r["setup"]: r for r in d["results"]}
    plain, held = by_setup.get("one process"), by_setup.get("one process, audio held 80 ms")
    if plain and held:
        grown = held["median"]["av_offset_p50_ms"] - plain["median"]["av_offset_p50_ms"]
        rows.append("")
        rows.append(f"The offset's accuracy: a queue in `send.audio.filters` that holds every buffer 80 ms (the "
                    f"\"held 80 ms\" row) reads an A/V offset {grown:+.1f} ms from \"one process\" in the same "
                    f"measurement (target 80 ± 5; `{held.get('how', d['how'])}`).")
    lips, lips_held = by_setup.get("one process, lip-sync"), by_setup.get("one process, lip-sync, audio held 80 ms")
    if plain and lips:
        cost = lips["median"]["video_p50_ms"] - plain["median"]["video_p50_ms"]
        line = (f"Lip-synced playout (`receive.playout: lip-sync`, the \"lip-sync\" rows) reads an A/V offset of "
                f"{lips['median']['av_offset_p50_ms']:+.1f} ms (target 0 ± 5), where playing on arrival reads "
                f"{plain['median']['av_offset_p50_ms']:+.1f} ms, and costs {cost:.1f} ms of glass-to-glass: the jitter "
                f"buffer's latency (`transport.latency`, 50 ms here)")
        if lips_held:
            line += (f"; with the sound held back 80 ms it reads {lips_held['median']['av_offset_p50_ms']:+.1f} ms: "
                     f"the picture waits for the sound")
        rows += ["", line + f" (`{lips.get('how', d['how'])}`)."]
    return "\n".join(rows)


def headline_audio():
    """The README's audio line: mouth-to-ear and A/V offset beside glass-to-glass."""
    d = {r["setup"]: r["median"] for r in load("results-audio-measure.json")["results"]}
    one, two, echo = d.get("one process"), d.get("two processes"), d.get("Janus EchoTest")
    offset = one["av_offset_p50_ms"]
    lead = (f"**{abs(offset):.1f} ms {'after' if offset >= 0 else 'before'}** the picture captured with it "
            f"(A/V offset {offset:+.1f} ms)")
    text = (f"Audio in the same kind of run (720p30 VP8 and a tone in Opus, one process): mouth-to-ear **p50 "
            f"{one['audio_p50_ms']:.1f} ms** where the picture takes {one['video_p50_ms']:.1f} ms, the sound arriving {lead}")
    if two:
        text += f"; between two processes audio {two['audio_p50_ms']:.1f} ms, video {two['video_p50_ms']:.1f} ms"
    if echo:
        text += (f"; there and back through Janus's EchoTest audio {echo['audio_p50_ms']:.1f} ms, video "
                 f"{echo['video_p50_ms']:.1f} ms (640x360)")
    chromium = d.get("Chromium echo")
    if chromium:
        text += (f", through headless Chromium (its NetEq, decoders and encoders) audio {chromium['audio_p50_ms']:.1f} ms, "
                 f"video {chromium['video_p50_ms']:.1f} ms")
    firefox = d.get("Firefox echo")
    if firefox:
        text += f", through headless Firefox audio {firefox['audio_p50_ms']:.1f} ms, video {firefox['video_p50_ms']:.1f} ms"
    return text + " (`Benchmarks/audio-measure.sh`)."


def audiobridge():
    """Crowds of load members in a Janus AudioBridge room, mouth-to-ear through the mixer."""
    d = load("results-audiobridge.json")
    ms = lambda v: f"{v:.1f}" if v is not None else "–"
    rows = ["| members | succeeded | mouth-to-ear p50 | p95 | stamps read (fewest by one member) | first audio p50 | "
            "missing audio p95 | Janus CPU | load CPU |",
            "|---|---|---|---|---|---|---|---|---|"]
    for r in d["rows"]:
        m, n = r["median"], r["members"]
        label = f"{n}" + (" (reference: one other speaker)" if n == 2 and not r.get("prebuffer") else "")
        label += f", prebuffer {r['prebuffer']}" if r.get("prebuffer") else ""
        rows.append(f"| {label} | {m['succeeded']:.0f} of {n} | {ms(m['mouth_to_ear_p50_ms'])} ms | {ms(m['mouth_to_ear_p95_ms'])} ms | "
                    f"{m['stamps_read']:.0f} ({m['fewest_stamps_one_member']:.0f}) | {ms(m['time_to_first_audio_p50_ms'])} ms | "
                    f"{ms(m['missing_audio_ms_per_minute_p95'])} ms/min | {m['janus_cpu_ms_per_member_s']:.1f} ms/member-s "
                    f"({m['janus_cores']:.2f} cores) | {m['load_cpu_ms_per_member_s']:.1f} ms/member-s |")
    rows.append("")
    rows.append(f"Medians of {d['runs']} runs of {d['seconds_per_run']:g} s per crowd ({d['room']}; stamps {d['stamps']}; "
                f"`{d['how']}`, `Benchmarks/results-audiobridge.json`, {d['recorded_at']}). Janus and the load process "
                f"share the machine's {d['cores']} cores.")
    return "\n".join(rows)


def headline_start():
    """The README's start-up and CPU line, from the full guard's record (ratios in one run)."""
    d = load("results-guard.json")["full"]
    f = {k: v["median"] for k, v in d["figures"].items()}
    dates = sorted({d["recorded_at"]} | {p["recorded_at"] for p in d.get("partial", [])})
    cached = f.get("warm first frame, gop_cache ÷ Pion server")
    return (f"Against references in the same run (the guard's record of {', '.join(dates)}): the first frame after "
            f"GStreamer's one-time DTLS key takes **{f['first frame after the DTLS key ÷ C']:.2f}×** the same graph's in "
            f"plain C; steady CPU is **{f['vp8 CPU steady ÷ C']:.3f}×** C's for VP8 and **{f['h264 CPU steady ÷ C']:.3f}×** "
            f"for H.264; a Pion viewer's first complete frame from `sluice serve` takes "
            f"**{f['warm first frame ÷ Pion server']:.1f}×** as long as from Pion's own server (a file that starts with a "
            f"keyframe), and the connection alone (POST → DTLS done, a floor under the first frame: webrtcbin, libnice and "
            f"OpenSSL) {f['warm connection (POST → DTLS done) ÷ Pion server']:.1f}× as long as Pion's"
            + (f"; starting viewers from the encoder's cached keyframe (`gop_cache`) {cached:.1f}×" if cached else "") + ".")


def estimate_floor_ratio(d):
    """Per viewer, a simulcast viewer following its estimate ÷ a transcoding-ladder viewer following
    its own (both read transport-wide feedback: the same floor)."""
    return d["modes"]["simulcast"]["per_viewer_cores"] / d["modes"]["ladder"]["per_viewer_cores"]


def simulcast():
    """Server CPU forwarding a publisher's simulcast layers, one stream, and transcoding the same sizes."""
    d = load("results-simulcast.json")
    names = {"simulcast": "simulcast relay, each viewer's layer by its estimate (transport-wide feedback)",
             "pinned": "simulcast relay, viewers pinned to the top layer (`?layer=h`: no estimate, no feedback)",
             "single": "relay of one 640x360 stream (passthrough)",
             "ladder": "transcoding ladder of the same three sizes (encoded on the server)"}
    rows = [f"| server | no viewer | {d['viewers']} viewers | per viewer | slowest viewer |", "|---|---|---|---|---|"]
    for mode, name in names.items():
        m = d["modes"][mode]
        rows.append(f"| {name} | {m['server_cpu_cores_0']:.3f} cores | {m['server_cpu_cores_viewers']:.3f} cores "
                    f"| {m['per_viewer_cores'] * 1000:.1f} millicores | {m['min_fps']:.1f} fps |")
    rows.append("")
    feedback = (d["modes"]["simulcast"]["per_viewer_cores"] - d["modes"]["pinned"]["per_viewer_cores"]) * 1000
    rows.append(f"Per viewer, simulcast ÷ one stream: **{d['per_viewer_simulcast_over_single']:.2f}** (pinned: "
                f"**{d['per_viewer_pinned_over_single']:.2f}**; the estimate's feedback, simulcast − pinned: {feedback:.1f} "
                f"millicores per viewer, the floor of any viewer whose rung follows its estimate: a viewer of the transcoding "
                f"ladder, which reads the same feedback, costs as much, simulcast ÷ ladder per viewer "
                f"**{estimate_floor_ratio(d):.2f}**); the server with {d['viewers']} viewers, transcoding ladder ÷ "
                f"simulcast: **{d['server_ladder_over_simulcast']:.2f}**. {d['runs']} alternating runs of {d['seconds_per_run']:g} s "
                f"per mode and viewer count, CPU from {d['steady_from']:g} s on; medians (`Benchmarks/simulcast.sh`, "
                f"`Benchmarks/results-simulcast.json`, recorded {d['recorded_at']}).")
    return "\n".join(rows)


def simulcast_links():
    """Simulcast viewers behind a 400 kbit/s link and a link that drops and comes back."""
    d = load("results-simulcast-links.json")
    m = d["median"]
    f = lambda v, fmt="{:.1f}": fmt.format(v) if v is not None else "–"
    rows = ["| viewer | frame rate | glass-to-glass p50 | p95 | freezes (longest) | received |", "|---|---|---|---|---|---|"]
    for key, name in (("free", "free link (20 Mbit/s)"), ("slow_400kbit", "behind 400 kbit/s")):
        v = m[key]
        longest = f" ({v['longest_freeze_ms']:.0f} ms)" if v.get("longest_freeze_ms") else ""
        rows.append(f"| {name} | {f(v['fps'])} fps | {f(v['glass_to_glass_p50_ms'])} ms | {f(v['glass_to_glass_p95_ms'])} ms "
                    f"| {f(v['freezes'], '{:.0f}')}{longest} | {f(v['bitrate_kbps'], '{:.0f}')} kbit/s |")
    browser = (d.get("browser") or {}).get("median")
    if browser:
        for key, name in (("free", "free link (20 Mbit/s)"), ("slow", "behind 400 kbit/s")):
            v = browser[key]
            size = f"{v['width']:.0f}x{v['height']:.0f}" if v.get("width") else "–"
            rows.append(f"| Chromium, {name}: {size} | {f(v['fps'])} fps | – (jitter buffer {f(v['jitter_buffer_ms'])} ms) | – "
                        f"| {f(v['freezes'], '{:.0f}')} ({f(v['freeze_ms'], '{:.0f}')} ms in all) | {f(v['bitrate_kbps'], '{:.0f}')} kbit/s |")
    ends = [r["layer_viewers_at_end"] for r in d["narrow_runs"]]
    end_text = "; ".join(", ".join(f"{k} {int(n)}" for k, n in sorted(e.items()) if n) for e in ends)
    rows.append("")
    up = (f"back on the top layer **{m['switch_up_s']:.2f} s** after the restore" if m["switch_up_s"] is not None else
          f"**not back on the top layer** within {d['drop_seconds'] - 4:g} s of the restore in most runs")
    per_run = "; ".join(f"down {r['down_s']:.2f} s, up " + (f"{r['up_s']:.2f} s" if r["up_s"] is not None else "never")
                        + f", layers {' → '.join(l for _, l in r['layers'] if l)}, {r['viewer'].get('freezes')} freezes "
                        f"{r['viewer'].get('freeze_ms', 0):.0f} ms"
                        + (f" (longest {r['viewer']['longest_freeze_ms']:.0f})" if r["viewer"].get("longest_freeze_ms") is not None else "")
                        for r in d["switch_runs"])
    longest = m.get("switch_longest_freeze_ms")
    longest_text = (f" The longest freeze of a switch run (the drop and the climb back): **{longest:.0f} ms** (median; target: "
                    f"none over 300 ms at a switch)." if longest is not None else "")
    rows.append(f"Layers with a viewer near each run's end: {end_text}. Viewers start on the middle layer (the relay's "
                f"start); the 400 kbit/s one stays there, its tries of the top layer (probes of its path) failing. A link that drops from 3 Mbit/s to 500 kbit/s for "
                f"{d['drop_seconds']:g} s and comes back: the viewer is on a smaller layer **{f(m['switch_down_s'], '{:.2f}')} s** "
                f"after the drop (target ≤ 2 s), and {up} (target ≤ 5 s; {m['switch_up_runs']} of {d['runs']} runs got "
                f"there), at {f(m['switch_fps'])} fps (per run: {per_run}). Medians of {d['runs']} runs of {d['seconds']:g} s "
                f"(`{d['how']}`, `Benchmarks/results-simulcast-links.json`); freezes by WebRTC's definition, from the `sluice "
                f"load` viewer, over its whole run." + longest_text
                + (f" The Chromium rows: headless Chromium viewers in the same places, playing the relay from `sluice serve`'s "
                   f"page; the size each decoded at the end, its frame rate and the freezes Chromium counted (getStats) over the "
                   f"last {d['seconds'] - 8:g} s, medians of {len(d['browser']['runs'])} runs; the page reads no framestamps." if browser else ""))
    return "\n".join(rows)


def simulcast_uplink():
    """The simulcast publisher's own congestion control behind a link that drops and comes back."""
    d = load("results-simulcast-uplink.json")
    f = lambda v, unit=" s": f"{v:.2f}{unit}" if v is not None else "never"
    rows = ["| run | top layer sent before the drop | top layer off after the drop | smallest layer sent during it "
            "| top layer back after the restore | switched off (h, m, l) |", "|---|---|---|---|---|---|"]
    for i, r in enumerate(d["runs_raw"], start=1):
        offs = ", ".join(str(l.get("switched_off")) for l in r["layers"])
        rows.append(f"| {i} | {r['top_sent_before_drop'] * 100:.0f}% | {f(r['top_off_after_drop_s'])} "
                    f"| {r['smallest_sent_during_drop'] * 100:.0f}% | {f(r['top_on_after_restore_s'])} | {offs} |")
    rows.append("")
    rows.append(f"Link: {d['link']}. Medians: the top layer stops reaching the server **{f(d['top_off_after_drop_s'])}** "
                f"after the drop and arrives again **{f(d['top_on_after_restore_s'])}** after the restore. From the server's "
                f"`sluice_relay_layer_sending`, read every 100 ms; switch counts from the publisher's report "
                f"(`Benchmarks/simulcast-uplink.sh`, `Benchmarks/results-simulcast-uplink.json`, recorded {d['recorded_at']}).")
    return "\n".join(rows)


def janus_simulcast():
    """A `sluice load` crowd through Janus's VideoRoom, a group per simulcast substream."""
    d = load("results-janus-simulcast.json")
    substream = {"large": 2, "medium": 1, "small": 0}
    rows = ["| group (substream) | its layer | clients on it | succeeded | lowest fps | median fps |", "|---|---|---|---|---|---|"]
    for r in d["rows"]:
        rows.append(f"| {r['group']} ({substream.get(r['group'], '?')}) | {r['substream_size']} | {r['on_its_layer']:g} of {r['clients']:g} "
                    f"| {r['succeeded']:g} | {r['min_fps']:.2f} | {r['p50_fps']:.2f} |")
    rows.append("")
    rows.append(f"{d['clients']} viewers of one Sluice publisher's three layers through Janus, each group asking for one substream "
                f"(`Pipelines/load-janus-simulcast.yaml`); the layer each got is its last keyframe's size, read from the frame "
                f"(nothing decoded). Janus used {d['janus_cores']:.2f} cores. Medians of {d['runs']} runs of {d['seconds_per_run']:g} s "
                f"(`Benchmarks/janus-simulcast.sh`, `Benchmarks/results-janus-simulcast.json`, recorded {d['recorded_at']}).")
    return "\n".join(rows)


def headline_simulcast():
    """The README's simulcast line: what forwarding layers saves against the transcoding ladder."""
    d = load("results-simulcast.json")
    m = d["modes"]
    return (f"Simulcast against the transcoding ladder (three sizes, 640x360 to 160x90, {d['viewers']} viewers): the server "
            f"forwarding a WHIP publisher's layers uses **{m['simulcast']['server_cpu_cores_viewers']:.3f} cores** where "
            f"encoding the same three sizes itself uses {m['ladder']['server_cpu_cores_viewers']:.3f} "
            f"(**{d['server_ladder_over_simulcast']:.1f}×**); a viewer held on a layer costs {d['per_viewer_pinned_over_single']:.2f}× "
            f"a viewer of one passed-through stream, one whose layer follows its estimate {d['per_viewer_simulcast_over_single']:.2f}× "
            f"(the transport-wide feedback; a ladder viewer reading the same feedback costs as much: "
            f"{estimate_floor_ratio(d):.2f}×) (`Benchmarks/simulcast.sh`)." + simulcast_links_headline())


def simulcast_links_headline():
    """The README's sentence on simulcast viewers behind narrow links, if they were measured."""
    if not os.path.exists(os.path.join(ROOT, "Benchmarks", "results-simulcast-links.json")):
        return ""
    m = load("results-simulcast-links.json")["median"]
    slow = m["slow_400kbit"]
    back = (f"back on the top one {m['switch_up_s']:.1f} s after it recovers" if m["switch_up_s"] is not None
            else "not reliably back on the top one after it recovers (a failed try backs off)")
    return (f" Behind 400 kbit/s a viewer plays a smaller layer at {slow['fps']:.1f} fps, glass-to-glass p95 "
            f"{slow['glass_to_glass_p95_ms']:.0f} ms; a link that drops from 3 Mbit/s to 500 kbit/s has its viewer on a smaller "
            f"layer in {m['switch_down_s']:.1f} s, {back} (`Benchmarks/simulcast-links.sh`).")


TABLES = {"audiobridge": audiobridge, "audio-filter-bench": audio_filter_bench, "e2ee-bench": e2ee_bench, "audio-measure": audio_measure, "headline-audio": headline_audio, "build-time": build_time, "headline": headline, "headline-start": headline_start, "startup-floor": startup_floor, "load-join": load_join, "c-compare": c_compare, "c-compare-threads": c_compare_threads, "c-compare-run": c_compare_run, "latency-floor": latency_floor,
          "guard": lambda: guard_table("full"), "guard-fast": lambda: guard_table("fast"), "two-way": two_way,
          "load-clients": load_clients, "load-fanout": load_fanout, "load-publishers": load_publishers, "load-calls": load_calls,
          "load-accuracy": load_accuracy, "simulcast-links": simulcast_links, "simulcast-uplink": simulcast_uplink, "passthrough": passthrough, "proxy-4k": proxy_4k, "send-floor": send_floor,
          "passthrough-latency": passthrough_latency, "cameras": cameras, "viewer-lanes": viewer_lanes,
          "simulcast": simulcast, "headline-simulcast": headline_simulcast, "janus-simulcast": janus_simulcast}
BLOCK = re.compile(r"(<!-- table:(?P<name>[\w-]+) -->)(?P<body>.*?)(<!-- /table:(?P=name) -->)", re.S)


def render(text, document):
    def one(m):
        name = m.group("name")
        if name not in TABLES:
            sys.exit(f"{document}: unknown generated table '{name}' (known: {', '.join(TABLES)})")
        return m.group(1) + "\n" + TABLES[name]() + "\n" + m.group(4)
    return BLOCK.sub(one, text)


def main():
    args = sys.argv[1:]
    documents = DOCUMENTS
    for flag in ("--file", "--readme"):
        if flag in args:
            documents = [args[args.index(flag) + 1]]
    found, stale, written = set(), [], 0
    for path in documents:
        name = os.path.relpath(path, ROOT) if path.startswith(ROOT) else path
        with open(path) as f:
            text = f.read()
        new = render(text, name)
        names = [m.group("name") for m in BLOCK.finditer(text)]
        found.update(names)
        stale += [f"{m.group('name')} ({name})" for m, n in zip(BLOCK.finditer(text), BLOCK.finditer(new))
                  if m.group(0) != n.group(0)]
        if "--check" not in args and new != text:
            with open(path, "w") as f:
                f.write(new)
            written += 1
    if "--check" in args:
        # A single document given by hand need not hold every table.
        missing = sorted(set(TABLES) - found) if documents == DOCUMENTS else []
        if stale or missing:
            print(f"tables out of date with their results: {', '.join(stale) or '-'}; "
                  f"missing: {', '.join(missing) or '-'}. Run Scripts/bench-tables.py")
            return 1
        print(f"{', '.join(os.path.relpath(p, ROOT) if p.startswith(ROOT) else p for p in documents)}: "
              f"{len(found)} generated tables match their results")
        return 0
    print(f"{len(found)} tables, {written} documents rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
