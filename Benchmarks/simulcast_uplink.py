#!/usr/bin/env python3
"""The simulcast sender's congestion control behind a link that drops and comes back
(issue 48: "turns the top layers off when the estimate cannot carry them, and back on when
it can"), medians of RUNS runs.

A Sluice WHIP publisher with `adaptive_layers` (Benchmarks/simulcast-uplink-publisher.yaml: a
moving 640x360 scene, VP8 in layers h 1000, m 300, l 100 kbit/s) in namespace S publishes to
`sluice serve --relay` in namespace V1; what S sends to V1 passes a token-bucket link in a
router namespace (Benchmarks/ladder.py's `Net` and `sluice netem-relay`): 3 Mbit/s for FREE
seconds, LOW for DROP seconds, then 3 Mbit/s again. The server's `sluice_relay_layer_sending`
(1 while a layer's frames arrive), read every 100 ms from V1, says when the publisher sent
which layer: how long after the drop the top layer stopped, how long after the restore it
came back, and whether the smallest layer kept coming. The publisher's report says how often
each layer was switched off and on.

Usage (root: it makes namespaces): python3 Benchmarks/simulcast_uplink.py [--runs N] [--json]
Env: RUNS (3), FREE (10), DROP (12), AFTER (15), LOW (400kbit), SLUICE (release binary).
With --json only one JSON object is printed (the tests read it); otherwise the results go to
Benchmarks/results-simulcast-uplink.json.
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ladder  # noqa: E402
from ladder import PORT, ROOT  # noqa: E402
from simulcast_links import LayerWatch  # noqa: E402

FREE = float(os.environ.get("FREE", "10"))
DROP = float(os.environ.get("DROP", "12"))
AFTER = float(os.environ.get("AFTER", "15"))
LOW = os.environ.get("LOW", "400kbit")
PUBLISHER = os.path.join(HERE, "simulcast-uplink-publisher.yaml")
SERVER = "10.98.1.1"


def first_after(samples, start, layer, value):
    """Seconds from `start` to the first sample at or after it where `layer` reads `value`."""
    for t, v in samples:
        if t >= start and v.get(layer) == value:
            return round(t - start, 2)
    return None


def share(samples, start, end, layer):
    """The share of samples in [start, end) in which `layer` was sent (None without samples)."""
    window = [v.get(layer, 0) for t, v in samples if start <= t < end]
    return round(sum(window) / len(window), 3) if window else None


def one_run(sluice):
    """One publisher behind the dropping link; its figures."""
    schedule = f"3mbit for {FREE}s; {LOW} for {DROP}s; 3mbit"
    net = ladder.Net(sluice, [schedule])
    started = time.monotonic()  # the relays are ready: the schedule runs from about now
    server = publisher = watch = None
    report = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
    try:
        server = subprocess.Popen(["ip", "netns", "exec", net.v[0], sluice, "serve", "--relay", "--host", SERVER, "--port", str(PORT)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        watch = LayerWatch(net.v[0], host=SERVER, metric="sluice_relay_layer_sending")
        env = dict(os.environ, SLUICE_WHIP=f"http://{SERVER}:{PORT}/whip/live")
        seconds = FREE + DROP + AFTER
        publisher = subprocess.Popen(
            ["ip", "netns", "exec", net.s, sluice, "run", PUBLISHER, "--set", "transport.ice.addresses=[10.98.0.1]",
             "--duration", str(seconds - 1), "--quiet", "--report", report],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        publisher.wait(seconds + 30)
        drop, restore = started + FREE, started + FREE + DROP
        samples = list(watch.samples)
        try:
            layers = json.load(open(report)).get("send", {}).get("video", {}).get("simulcast", [])
        except (OSError, ValueError):
            layers = []
        live = next((t for t, v in samples if v.get("h") == 1), None)
        return {
            "top_sent_before_drop": share(samples, (live or drop) + 2, drop, "h"),
            "top_off_after_drop_s": first_after(samples, drop, "h", 0),
            "top_on_after_restore_s": first_after(samples, restore, "h", 1),
            "top_sent_at_end": share(samples, restore + AFTER - 4, restore + AFTER - 1, "h"),
            "smallest_sent_during_drop": share(samples, drop, restore, "l"),
            "layers": [{k: l.get(k) for k in ("rid", "frames", "switched_off", "switched_on")} for l in layers],
            "publisher_error": (publisher.stderr.read() or "")[-400:] if publisher.returncode else None,
        }
    finally:
        for p in (publisher, server):
            if p and p.poll() is None:
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
        if watch:
            watch.stop()
        net.close()
        os.unlink(report)


def median(values):
    got = [v for v in values if v is not None]
    return round(statistics.median(got), 2) if got else None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=int(os.environ.get("RUNS", "3")))
    p.add_argument("--json", action="store_true", help="print one JSON object, write no results file")
    p.add_argument("--sluice", default=os.path.abspath(os.environ.get("SLUICE") or os.path.join(ROOT, ".build/release/sluice")))
    a = p.parse_args()
    runs = [one_run(a.sluice) for _ in range(a.runs)]
    result = {
        "link": f"3mbit for {FREE}s; {LOW} for {DROP}s; 3mbit for {AFTER}s", "runs": a.runs,
        "top_off_after_drop_s": median([r["top_off_after_drop_s"] for r in runs]),
        "top_on_after_restore_s": median([r["top_on_after_restore_s"] for r in runs]),
        "runs_raw": runs,
    }
    if a.json:
        print(json.dumps(result))
        return
    result["recorded_at"] = time.strftime("%Y-%m-%d")
    with open(os.path.join(HERE, "results-simulcast-uplink.json"), "w") as f:
        json.dump(result, f, indent=1)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
