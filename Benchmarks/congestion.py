"""Congestion control against a fixed bitrate, behind the links issue 12 names.

Each case runs `sluice measure Pipelines/adaptive.yaml --processes 2` (two namespaces, Sluice's
TUN relay shaping the sender-to-receiver direction) with the file's adaptive bitrate
{min 300, start 2500, max 2500} and again with a fixed 2500 kbit/s, interleaved, RUNS times;
the figures are medians. Results: Benchmarks/results-congestion.json.

  narrow   rate 1mbit: when the target is at or below 1 Mbit/s for good, fps delivered,
           latency p95 over the whole run and after the first 5 s, latency in the last second.
  reopen   rate 1mbit for 10s, then 4mbit: seconds after the link opens until the target is
           back at 2.25 Mbit/s or more (90% of 2.5).
  loss     delay 40ms loss 5%: share of stamped frames read back intact, fps, p95, and the
           receiver's repair figures (NACKs, PLIs, FIRs, packets repaired, jitter buffer).
  loss10   the same at 10% loss.
"""
import json, os, statistics, subprocess, sys, tempfile

RUNS = int(os.environ.get("RUNS", "5"))
DURATION = float(os.environ.get("DURATION", "20"))
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLUICE = os.path.abspath(os.environ.get("SLUICE") or os.path.join(ROOT, ".build/release/sluice"))
FIXED = ["--set", "send.video.encode.bitrate=2500"]
CASES = {
    "narrow": ["--netem", "rate 1mbit"],
    "reopen": ["--netem-schedule", "rate 1mbit for 10s; rate 4mbit"],
    "loss": ["--netem", "delay 40ms loss 5%"],
    "loss10": ["--netem", "delay 40ms loss 10%"],
}


def measure(case, fixed):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    try:
        args = [SLUICE, "measure", "Pipelines/adaptive.yaml", "--processes", "2", "--duration", str(DURATION),
                "--quiet", "--json", out] + CASES[case] + (FIXED if fixed else [])
        r = subprocess.run(args, capture_output=True, text=True, timeout=DURATION + 120)
        if r.returncode != 0:
            sys.exit(f"{' '.join(args)} failed: {r.stderr}")
        with open(out) as fh:
            return json.load(fh)
    finally:
        os.unlink(out)


def p95(values):
    v = sorted(values)
    return v[max(0, int(round(0.95 * len(v))) - 1)] if v else None


def figures(case, report):
    samples = report["samples"]  # [t, number, latency ms]
    rows = report["bitrate"]
    out = {
        "fps": report["delivered_fps"],
        "p95_ms": report["latency"]["p95_ms"],
        "p95_after_5s_ms": p95([s[2] for s in samples if s[0] >= 5]),
        "last_second_p50_ms": statistics.median([s[2] for s in samples if s[0] >= DURATION - 1] or [0]),
        "rtp_last_5s_kbps": statistics.mean([r["rtp_kbps"] for r in rows if r["t"] >= DURATION - 5] or [0]),
    }
    targets = [(r["t"], r.get("target_kbps")) for r in rows if r.get("target_kbps") is not None]
    if case == "narrow" and targets:
        # When the target first was at or below the link, and from 5 s on how often and how
        # far it went above it (probing).
        out["first_at_or_below_1mbit_s"] = next((t for t, v in targets if v <= 1000), None)
        late = [v for t, v in targets if t >= 5]
        out["share_of_seconds_above_1mbit_after_5s"] = sum(v > 1000 for v in late) / max(1, len(late))
        out["max_target_after_5s_kbps"] = max(late) if late else None
        out["median_target_after_5s_kbps"] = statistics.median(late) if late else None
    if case == "reopen" and targets:
        back = [t for t, v in targets if t >= 10 and v >= 2250]
        out["back_after_s"] = (back[0] - 10) if back else None
    if case in ("loss", "loss10"):
        f = report["frames"]
        # Frames read back (a damaged frame's stamp does not read) of those sent after the
        # first one arrived and not still in flight at the stop.
        out["intact_share"] = f["received"] / max(1, f["stamped"] - f["before_first_frame"] - f["in_flight_at_stop"])
        out["unreadable"] = f["unreadable"]
        r = report.get("repair") or {}
        for k in ("nacks", "plis", "firs", "rtx_repaired", "jitter_buffer_latency_ms"):
            out[k] = r.get(k)
    return out


def median_of(runs, key):
    values = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(values) if values else None


def main():
    # ONLY=loss,narrow runs those cases and keeps the others' last results.
    only = [c for c in os.environ.get("ONLY", "").split(",") if c]
    results = {"runs": RUNS, "duration_s": DURATION, "cases": {}}
    if only and os.path.exists("Benchmarks/results-congestion.json"):
        with open("Benchmarks/results-congestion.json") as fh:
            results["cases"] = json.load(fh).get("cases", {})
    for case in CASES:
        if only and case not in only:
            continue
        adaptive, fixed = [], []
        for i in range(RUNS):
            adaptive.append(figures(case, measure(case, False)))
            fixed.append(figures(case, measure(case, True)))
            print(f"{case} run {i + 1}: adaptive {adaptive[-1]}\n{' ' * len(case)}        fixed    {fixed[-1]}", flush=True)
        keys = sorted(set(adaptive[0]) | set(fixed[0]))
        results["cases"][case] = {
            "netem": " ".join(CASES[case][1:]), "runs": RUNS, "duration_s": DURATION,
            "adaptive": {k: median_of(adaptive, k) for k in keys},
            "fixed_2500": {k: median_of(fixed, k) for k in keys},
            "all_adaptive": adaptive, "all_fixed": fixed,
        }
        print(json.dumps({k: v for k, v in results["cases"][case].items() if not k.startswith("all_")}, indent=1), flush=True)
    with open("Benchmarks/results-congestion.json", "w") as fh:
        json.dump(results, fh, indent=1)


if __name__ == "__main__":
    main()
