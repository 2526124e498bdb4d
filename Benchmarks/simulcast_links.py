#!/usr/bin/env python3
"""Simulcast viewers behind links (issue 48's targets), medians of RUNS runs.

A Sluice WHIP publisher (Benchmarks/simulcast-links-publisher.yaml: a moving 640x360 scene
with framestamps, VP8 in three layers h 1000, m 300, l 100 kbit/s) publishes to `sluice
serve --relay`; each viewer is one decoding `sluice load` client in a namespace of its own
behind a token-bucket link (Benchmarks/ladder.py's router and `sluice netem-relay`). Two
scenarios:

  narrow   a viewer on a free link (20 Mbit/s) and one behind 400 kbit/s, SECONDS long:
           each one's layer at the end, its frame rate and glass-to-glass p95 (the load
           client reads the framestamps, sender and viewers share the machine's clock) and
           its freezes (WebRTC's definition, the load client's).
  browser  the same two links with headless Chromium viewers (Tests/Browser/browser_check.py
           play: `sluice serve`'s page over WHEP, Chromium's own receiver, its TWCC feedback):
           the layer each decodes, its frame rate and the freezes Chromium counts (getStats'
           freezeCount, totalFreezesDuration), over the last SECONDS - 8 s. No glass-to-glass
           figure: the page does not read framestamps.
  switch   one viewer whose link is 3 Mbit/s, then 500 kbit/s for DROP seconds, then 3 Mbit/s
           again (the relay's schedule, started once the viewer plays): from the server's
           `sluice_relay_layer_viewers`, read every 100 ms, how long after the drop the viewer
           was on a smaller layer and how long after the restore it was back on the top one;
           its freezes over the whole run.

Targets (issue 48): the 400 kbit/s viewer on a lower layer at >= 25 fps with p95 <= 150 ms;
the free one on the top layer at the full rate; the switch down within 2 s and back up
within 5 s, no freeze over 300 ms. Writes Benchmarks/results-simulcast-links.json.
Run through Benchmarks/simulcast-links.sh (root). Env: RUNS (3), SECONDS (25), DROP (12),
PYTHON (.venv/bin/python: the browser scenario's selenium), BROWSER (1; 0 leaves it out).
"""
import json, os, signal, statistics, subprocess, sys, tempfile, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ladder  # noqa: E402
from ladder import PORT, ROOT  # noqa: E402

RUNS = int(os.environ.get("RUNS", "3"))
SECONDS = float(os.environ.get("SECONDS", "25"))
DROP = float(os.environ.get("DROP", "12"))
SLUICE = os.path.abspath(os.environ.get("SLUICE") or os.path.join(ROOT, ".build/release/sluice"))
PUBLISHER = os.path.join(HERE, "simulcast-links-publisher.yaml")
PYTHON = os.environ.get("PYTHON") or os.path.join(ROOT, ".venv/bin/python")
BROWSER = os.environ.get("BROWSER", "1") != "0"


class LayerWatch:
    """Polls the relay's /metrics at `host` from `ns` every 100 ms: (monotonic time, {layer: value})
    for a per-layer gauge (`metric`: viewers by default; simulcast_uplink.py reads `sending`)."""

    def __init__(self, ns, host="10.98.0.1", metric="sluice_relay_layer_viewers"):
        code = ("import time,urllib.request,re\n"
                "while True:\n"
                " try:\n"
                f"  m=urllib.request.urlopen('http://{host}:{PORT}/metrics',timeout=2).read().decode()\n"
                "  v={a:float(b) for a,b in re.findall(r'" + metric + "\\{[^}]*layer=\"(\\w+)\"[^}]*\\} (\\S+)',m)}\n"
                "  print(time.monotonic(),repr(v),flush=True)\n"
                " except Exception: pass\n"
                " time.sleep(0.1)\n")
        self.p = subprocess.Popen(["ip", "netns", "exec", ns, "python3", "-c", code], stdout=subprocess.PIPE, text=True)
        self.samples = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            t, _, rest = line.partition(" ")
            try:
                self.samples.append((float(t), eval(rest, {}, {})))  # noqa: S307 (our own repr of a dict)
            except (ValueError, SyntaxError):
                pass

    def layer_at(self):
        """[(t, layer)] for the layer with a viewer in each sample (one-viewer runs)."""
        return [(t, next((k for k, n in v.items() if n > 0), None)) for t, v in self.samples]

    def stop(self):
        self.p.terminate()


def start_viewer(ns, k, seconds):
    report = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
    env = dict(os.environ, SLUICE_WHEP=f"http://10.98.0.1:{PORT}/whep/live")
    p = subprocess.Popen(["ip", "netns", "exec", ns, SLUICE, "load", "Pipelines/load-whep.yaml", "--clients", "1", "--decode", "all",
                          "--set", f"transport.ice.addresses=[10.98.{k}.1]", "--duration", str(seconds), "--quiet", "--json", report],
                         cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return p, report


def client(report, p):
    try:
        p.wait(SECONDS + DROP + 90)
    except subprocess.TimeoutExpired:
        p.kill()
    try:
        with open(report) as f:
            c = json.load(f)["clients"][0]
    except (OSError, ValueError, KeyError, IndexError):
        return {"error": (p.stderr.read() or "")[-400:]}
    finally:
        os.unlink(report)
    return {k: c.get(k) for k in ("fps", "frames", "freezes", "freeze_ms", "longest_freeze_ms", "glass_to_glass_p50_ms", "glass_to_glass_p95_ms",
                                   "glass_to_glass_samples", "time_to_first_frame_ms", "bitrate_kbps")}


def with_relay(links, body):
    """A router with one link per viewer, the server and the publisher in S; runs `body(net)`."""
    net = ladder.Net(SLUICE, links)
    server = publisher = None
    try:
        server = subprocess.Popen(["ip", "netns", "exec", net.s, SLUICE, "serve", "--host", "10.98.0.1", "--port", str(PORT), "--relay"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while True:
            try:
                ladder.metrics(net.s)
                break
            except SystemExit:
                if time.monotonic() > deadline or server.poll() is not None:
                    sys.exit("the server did not start")
                time.sleep(0.2)
        publisher = ladder.start_publisher(net.s, SLUICE, PUBLISHER, SECONDS + DROP + 20)
        ladder.wait_live(net.s, time.monotonic() + 30)
        return body(net)
    finally:
        for p in (publisher, server):
            if p and p.poll() is None:
                p.terminate()
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
        net.close()


def narrow():
    def body(net):
        watch = LayerWatch(net.s)
        viewers = [start_viewer(ns, k, SECONDS) for k, ns in enumerate(net.v, start=1)]
        time.sleep(SECONDS - 2)
        layers = ladder.metrics(net.s).get("sluice_stream_rendition_viewers", {})
        watch.stop()
        free, slow = (client(r, p) for p, r in viewers)
        return {"free": free, "slow": slow, "layer_viewers_at_end": layers}
    return with_relay(["20mbit", "400kbit"], body)


def start_browser_viewer(ns, seconds):
    """Headless Chromium playing the relayed stream from `sluice serve`'s page, in `ns`: its
    JSON line (browser_check.py play) once it has measured `seconds` after its first frames."""
    out = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
    # Host candidates as addresses, not mDNS names: the namespaces have no multicast DNS.
    cmd = ["ip", "netns", "exec", ns, PYTHON, "Tests/Browser/browser_check.py", "play", f"http://10.98.0.1:{PORT}", "live",
           "--min-frames", "30", "--measure", str(seconds), "--timeout", "30",
           "--flag=--disable-features=WebRtcHideLocalIpsWithMdns"]
    f = open(out, "w")
    p = subprocess.Popen(cmd, cwd=ROOT, stdout=f, stderr=subprocess.PIPE, text=True)
    f.close()
    return p, out


def browser_client(p, out):
    try:
        _, err = p.communicate(timeout=SECONDS + 90)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
    try:
        with open(out) as f:
            j = json.loads(f.read().strip().splitlines()[-1])
    except (OSError, ValueError, IndexError):
        return {"error": (err or "")[-400:]}
    finally:
        os.unlink(out)
    window = j.get("measured") or {}
    return {"fps": window.get("fps"), "width": j.get("width"), "height": j.get("height"), "freezes": window.get("freezes"),
            "freeze_ms": window.get("freezesMs"), "jitter_buffer_ms": j.get("jitterBufferMs"), "bitrate_kbps": j.get("bitrate"),
            "packets_lost": j.get("packetsLost"), "measured_s": window.get("seconds"), "first_frame_ms": j.get("firstFrameMs")}


def narrow_browser():
    def body(net):
        viewers = [start_browser_viewer(ns, SECONDS - 8) for ns in net.v]
        free, slow = (browser_client(p, out) for p, out in viewers)
        return {"free": free, "slow": slow}
    return with_relay(["20mbit", "400kbit"], body)


def switch():
    def body(net):
        watch = LayerWatch(net.s)
        p, report = start_viewer(net.v[0], 1, SECONDS + DROP)
        # Settled on the top layer (bounded), then the schedule starts over: 3 Mbit/s for 3 s.
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not (watch.layer_at() and watch.layer_at()[-1][1] == "h"):
            time.sleep(0.1)
        net.relays[0].send_signal(signal.SIGUSR1)
        start = time.monotonic()
        drop_at, restore_at = start + 3, start + 3 + DROP
        time.sleep(3 + DROP + 8)
        watch.stop()
        seen = [(t, l) for t, l in watch.layer_at() if t >= start]
        down = next((t - drop_at for t, l in seen if t >= drop_at and l not in (None, "h")), None)
        up = next((t - restore_at for t, l in seen if t >= restore_at and l == "h"), None)
        timeline = [(round(t - start, 1), l) for t, l in seen]
        changes = [timeline[i] for i in range(len(timeline)) if i == 0 or timeline[i][1] != timeline[i - 1][1]]
        return {"down_s": down, "up_s": up, "layers": changes, "viewer": client(report, p)}
    return with_relay([f"3mbit for 3s; 500kbit for {DROP:g}s; 3mbit"], body)


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def slowest(values):
    """The median where a run that never got there (None) counts as slower than any: None if
    most runs never got there."""
    ranked = sorted(float("inf") if v is None else v for v in values)
    m = statistics.median(ranked) if ranked else None
    return None if m is None or m == float("inf") else m


def summary(narrows, switches, browsers):
    keys = ("fps", "freezes", "freeze_ms", "longest_freeze_ms", "glass_to_glass_p50_ms", "glass_to_glass_p95_ms", "bitrate_kbps")
    return {"how": " ".join(x for x in [f"RUNS={RUNS}" if RUNS != 3 else "", "Benchmarks/simulcast-links.sh"] if x),
            "runs": len(narrows), "seconds": SECONDS, "drop_seconds": DROP, "publisher": os.path.relpath(PUBLISHER, ROOT),
            "median": {"free": {k: median([n["free"].get(k) for n in narrows]) for k in keys},
                       "slow_400kbit": {k: median([n["slow"].get(k) for n in narrows]) for k in keys},
                       "switch_down_s": slowest([s["down_s"] for s in switches]), "switch_up_s": slowest([s["up_s"] for s in switches]),
                       "switch_up_runs": sum(1 for s in switches if s["up_s"] is not None),
                       "switch_freezes": median([s["viewer"].get("freezes") for s in switches]),
                       "switch_freeze_ms": median([s["viewer"].get("freeze_ms") for s in switches]),
                       "switch_longest_freeze_ms": median([s["viewer"].get("longest_freeze_ms") for s in switches]),
                       "switch_fps": median([s["viewer"].get("fps") for s in switches])},
            "browser": {"median": {side: {k: median([b[side].get(k) for b in browsers]) for k in BROWSER_KEYS}
                                   for side in ("free", "slow")}, "runs": browsers} if browsers else None,
            "narrow_runs": narrows, "switch_runs": switches}


BROWSER_KEYS = ("fps", "width", "height", "freezes", "freeze_ms", "jitter_buffer_ms", "bitrate_kbps")


def main():
    narrows, switches, browsers = [], [], []
    for i in range(RUNS):
        if BROWSER:
            browsers.append(narrow_browser())
            b = browsers[-1]
            print(f"browser run {i + 1}: free {b['free']}; 400 kbit/s {b['slow']}", flush=True)
        narrows.append(narrow())
        n = narrows[-1]
        print(f"narrow run {i + 1}: free {n['free']}; 400 kbit/s {n['slow']}; layers {n['layer_viewers_at_end']}", flush=True)
        switches.append(switch())
        s = switches[-1]
        print(f"switch run {i + 1}: down after {s['down_s']} s, up after {s['up_s']} s, layers {s['layers']}, viewer {s['viewer']}",
              flush=True)
    out = summary(narrows, switches, browsers)
    with open(os.path.join(HERE, "results-simulcast-links.json"), "w") as f:
        json.dump(out, f, indent=1)
    print(json.dumps(out["median"], indent=1))


if __name__ == "__main__":
    main()
