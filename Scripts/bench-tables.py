#!/usr/bin/env python3
"""The README's benchmark tables, generated from the recorded results, never typed in.

Each generated table sits in README.md between `<!-- table:NAME -->` and
`<!-- /table:NAME -->`; NAME picks the generator below and the JSON it reads.

    Scripts/bench-tables.py            rewrite the tables in README.md from Benchmarks/results-*.json
    Scripts/bench-tables.py --check    exit 1 if a table in README.md differs from its results
                                       (a test runs this: the README cannot keep a figure the
                                       results no longer have)
    --readme PATH                      another copy of the README (the test's tampered one)
"""
import json, os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")


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
            "| latency p50 S / S 2 processes / C | p95 S / S 2 processes / C |",
            "|---|---|---|---|---|---|---|"]
    for r in d["results"]:
        m = r["median"]
        two = lambda k: f"{m[k]:.1f}" if m.get(k) is not None else "–"
        rows.append(cpu_cells(r) + f"| {m['sluice_p50_ms']:.1f} / {two('sluice2_p50_ms')} / {m['c_p50_ms']:.1f} ms "
                    f"| {m['sluice_p95_ms']:.1f} / {two('sluice2_p95_ms')} / {m['c_p95_ms']:.1f} ms |")
    rows.append("")
    rows.append(f"{d['runs']} alternating runs of {d['seconds']:g} s per configuration; medians "
                f"(`Benchmarks/results-c-webrtcbin.json`).")
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


TABLES = {"c-compare": c_compare, "c-compare-run": c_compare_run, "latency-floor": latency_floor,
          "guard": lambda: guard_table("full"), "guard-fast": lambda: guard_table("fast"), "two-way": two_way}
BLOCK = re.compile(r"(<!-- table:(?P<name>[\w-]+) -->)(?P<body>.*?)(<!-- /table:(?P=name) -->)", re.S)


def render(text):
    def one(m):
        name = m.group("name")
        if name not in TABLES:
            sys.exit(f"README.md: unknown generated table '{name}' (known: {', '.join(TABLES)})")
        return m.group(1) + "\n" + TABLES[name]() + "\n" + m.group(4)
    return BLOCK.sub(one, text)


def main():
    global README
    args = sys.argv[1:]
    if "--readme" in args:
        README = args[args.index("--readme") + 1]
    with open(README) as f:
        text = f.read()
    new = render(text)
    found = {m.group("name") for m in BLOCK.finditer(text)}
    if "--check" in sys.argv[1:]:
        stale = [m.group("name") for m, n in zip(BLOCK.finditer(text), BLOCK.finditer(new)) if m.group(0) != n.group(0)]
        missing = sorted(set(TABLES) - found)
        if stale or missing:
            print(f"README.md: tables out of date with their results: {', '.join(stale) or '-'}; "
                  f"missing: {', '.join(missing) or '-'}. Run Scripts/bench-tables.py")
            return 1
        print(f"README.md: {len(found)} generated tables match their results")
        return 0
    with open(README, "w") as f:
        f.write(new)
    print(f"README.md: {len(found)} tables written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
