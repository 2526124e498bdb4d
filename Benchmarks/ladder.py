#!/usr/bin/env python3
"""Renditions ladder behind different links (issue 12: "each viewer gets the highest
rendition its link carries").

One `sluice serve` of a ladder (Benchmarks/ladder-720p.yaml by default: 720p/2.5M,
480p/1M, 240p/300k, H.264, encoded once each) in namespace S; each viewer is a `sluice run
Pipelines/whep-play.yaml` in its own namespace V_k. S and every V_k hang off a router R;
what S sends to V_k passes a TUN device in R whose `sluice netem-relay` limits it to that
viewer's rate (a token bucket with a queue of about 300 ms). What the viewers send back
takes the plain route.

For each viewer it prints the link, the picture size it decodes at the end, its frames and
frame rate, and which rung that is; then, from the server's /metrics, the viewers per rung
and the moves up and down. A viewer gets what it should when its final rung is the best one
whose measured rate (the server's `sluice_stream_rendition_bitrate_bps`) plus 10% for RTP
fits its link.

With `--simulcast FILE`, the server is `sluice serve --relay` and FILE (a WHIP publisher with
`encode.simulcast`, e.g. Pipelines/whip-publish-simulcast.yaml) publishes to it from S: the
rungs are the publisher's layers, forwarded without decoding, and the figures come from
`sluice_relay_layer_*` (the same keys in the output).

With `--camera "ARGS"`, an RTSP camera (Tests/Interop/rtsp/server.py ARGS, on
127.0.0.1:18629 in S) runs before the server, for a ladder whose best rung is that camera's
stream passed through (`encode: {passthrough: true, renditions: [...]}`); that rung is
named `source` and has the camera's `--size`.

Usage (root: it makes namespaces):
  python3 Benchmarks/ladder.py [--pipeline FILE] [--seconds S] [--camera ARGS] RATE...
  RATE: a relay rate, e.g. 3mbit 800kbit 250kbit
Run through Benchmarks/ladder.sh (release build). Its output is one JSON object on the last
line of stdout.
"""
import argparse, json, os, re, subprocess, sys, tempfile, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PORT = 18620
CAMERA_PORT = 18629


def sh(*args, check=True):
    r = subprocess.run(args, capture_output=True, text=True)
    if check and r.returncode != 0:
        sys.exit(f"{' '.join(args)}: {r.stderr.strip()}")
    return r.stdout


def rate_bps(text):
    m = re.fullmatch(r"([0-9.]+)(k|m|g)?bit", text)
    if not m:
        sys.exit(f"rate '{text}': write it as 3mbit, 800kbit")
    return float(m.group(1)) * {None: 1, "k": 1e3, "m": 1e6, "g": 1e9}[m.group(2)]


def netem_of(rate):
    """The relay's netem settings for a link: `3mbit` is that rate with a queue of about 300 ms
    of 1200-byte packets; `3mbit for 12s; 500kbit for 15s; 3mbit` is a schedule of such links."""
    def one(r):
        return f"rate {r} limit {max(10, int(rate_bps(r) * 0.3 / 9600))}"
    steps = []
    for step in rate.split(";"):
        m = re.fullmatch(r"\s*(\S+)(?:\s+for\s+(\S+))?\s*", step)
        if not m:
            sys.exit(f"link '{rate}': write it as 3mbit, or 3mbit for 12s; 500kbit")
        steps.append(one(m.group(1)) + (f" for {m.group(2)}" if m.group(2) else ""))
    return "; ".join(steps)


class Net:
    """S (10.98.0.1) and V_k (10.98.k.1) around R; S→V_k through relay k."""

    def __init__(self, sluice, rates):
        tag = str(os.getpid() % 100000)
        self.r, self.s = f"sll{tag}r", f"sll{tag}s"
        self.v = [f"sll{tag}v{k}" for k in range(1, len(rates) + 1)]
        self.relays = []
        for ns in [self.r, self.s] + self.v:
            sh("ip", "netns", "add", ns)
        self.link(self.s, f"sl{tag}s", f"sl{tag}rs", "10.98.0")
        sh("ip", "netns", "exec", self.r, "sh", "-c",
           "echo 1 > /proc/sys/net/ipv4/ip_forward && for f in /proc/sys/net/ipv4/conf/*/rp_filter; do echo 0 > $f; done")
        for k, (ns, rate) in enumerate(zip(self.v, rates), start=1):
            self.link(ns, f"sl{tag}v{k}", f"sl{tag}r{k}", f"10.98.{k}")
            tun = f"sl{tag}t{k}"
            sh("ip", "-n", self.r, "tuntap", "add", "dev", tun, "mode", "tun")
            sh("ip", "-n", self.r, "link", "set", tun, "up")
            sh("ip", "netns", "exec", self.r, "sh", "-c", f"echo 0 > /proc/sys/net/ipv4/conf/{tun}/rp_filter")
            sh("ip", "-n", self.r, "rule", "add", "iif", f"sl{tag}rs", "to", f"10.98.{k}.0/24", "lookup", str(100 + k))
            sh("ip", "-n", self.r, "route", "add", "default", "dev", tun, "table", str(100 + k))
            p = subprocess.Popen(["ip", "netns", "exec", self.r, sluice, "netem-relay", "--tun", tun,
                                  "--netem", netem_of(rate)],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            self.relays.append(p)
            deadline = time.monotonic() + 10
            while "relay: ready" not in (p.stdout.readline() or ""):
                if time.monotonic() > deadline or p.poll() is not None:
                    sys.exit("a netem relay did not start")

    def link(self, ns, dev, rdev, net):
        sh("ip", "link", "add", dev, "netns", ns, "type", "veth", "peer", "name", rdev, "netns", self.r)
        sh("ip", "-n", ns, "addr", "add", f"{net}.1/24", "dev", dev)
        sh("ip", "-n", self.r, "addr", "add", f"{net}.254/24", "dev", rdev)
        for n, d in [(ns, "lo"), (ns, dev), (self.r, "lo"), (self.r, rdev)]:
            sh("ip", "-n", n, "link", "set", d, "up")
        sh("ip", "-n", ns, "route", "add", "default", "via", f"{net}.254")

    def close(self):
        for p in self.relays:
            p.terminate()
        for p in self.relays:
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
        for ns in [self.s, self.r] + self.v:
            sh("ip", "netns", "del", ns, check=False)


def metrics(ns):
    out = sh("ip", "netns", "exec", ns, "python3", "-c",
             f"import urllib.request;print(urllib.request.urlopen('http://10.98.0.1:{PORT}/metrics',timeout=5).read().decode())")
    series = {}
    for line in out.splitlines():
        # A relay's simulcast layers are its rungs: the same keys.
        line = line.replace("sluice_relay_layer_", "sluice_stream_rendition_").replace('layer="', 'rendition="')
        m = re.match(r'(sluice_stream_rendition_\w+)\{[^}]*?(?:rendition|direction)="([^"]+)"\} (\S+)', line)
        if m:
            series.setdefault(m.group(1), {})[m.group(2)] = float(m.group(3))
    return series


def simulcast_sizes(spec):
    """The layers of a publisher file: [(width, height, rid)], largest first."""
    capture = re.search(r"width:\s*(\d+),\s*height:\s*(\d+)", spec)
    width, height = int(capture.group(1)), int(capture.group(2))
    layers = re.findall(r"\{\s*rid:\s*(\w+)(?:,\s*scale:\s*(\d+))?", spec)
    return [(width // int(scale or 1), height // int(scale or 1), rid) for rid, scale in layers]


def start_publisher(ns, sluice, spec_path, seconds):
    """`sluice run` of a WHIP simulcast publisher into the relay's `live`, in `ns`."""
    env = dict(os.environ, SLUICE_WHIP=f"http://10.98.0.1:{PORT}/whip/live")
    return subprocess.Popen(
        ["ip", "netns", "exec", ns, sluice, "run", spec_path, "--set", "transport.ice.addresses=[10.98.0.1]",
         "--duration", str(seconds + 30), "--quiet"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def wait_live(ns, deadline, layers=3):
    """Until the relay lists `live` as live with its `layers` layers (bounded). A Sluice WHIP
    publisher sends its best layer alone until the server's answer says it takes the others
    (a WHIP server may take one stream), so they follow a moment later; a viewer that joins
    before the relay knows them is served only those it knows (after 2 s, RelayLayers)."""
    live_at = None
    while time.monotonic() < deadline:
        out = sh("ip", "netns", "exec", ns, "python3", "-c",
                 f"import urllib.request;print(urllib.request.urlopen('http://10.98.0.1:{PORT}/streams.json',timeout=5).read().decode())",
                 check=False)
        if '"live": true' in out or '"live":true' in out:
            live_at = live_at or time.monotonic()
            if out.count('"rid"') >= layers or time.monotonic() - live_at > 10:
                return
        time.sleep(0.2)
    sys.exit("the simulcast publisher did not go live")


def start_camera(ns, args):
    """Tests/Interop/rtsp/server.py in `ns`, once it says READY (bounded: 20 s)."""
    camera = subprocess.Popen(["ip", "netns", "exec", ns, "/usr/bin/python3", os.path.join(ROOT, "Tests/Interop/rtsp/server.py"),
                               "--port", str(CAMERA_PORT)] + args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        line = camera.stdout.readline()
        if line.startswith("READY"):
            return camera
        if not line and camera.poll() is not None:
            break
    camera.kill()
    sys.exit("the RTSP camera did not start")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("rates", nargs="+")
    p.add_argument("--pipeline", default=os.path.join(ROOT, "Benchmarks/ladder-720p.yaml"))
    p.add_argument("--seconds", type=float, default=25)
    p.add_argument("--sluice", default=os.path.abspath(os.environ.get("SLUICE") or os.path.join(ROOT, ".build/release/sluice")))
    p.add_argument("--camera", help="arguments of Tests/Interop/rtsp/server.py, run in S on port 18629")
    p.add_argument("--simulcast", help="a WHIP simulcast publisher file: relay its layers instead of serving --pipeline")
    a = p.parse_args()
    if a.simulcast:
        a.pipeline = a.simulcast
    spec = open(a.pipeline).read()
    name = "live" if a.simulcast else re.search(r"^name:\s*(\S+)", spec, re.M).group(1)
    served = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False)
    served.write(re.sub(r"addresses:\s*\[127\.0\.0\.1\]", "addresses: [10.98.0.1]", spec))
    served.close()
    net = Net(a.sluice, a.rates)
    server, camera, publisher, viewers, reports = None, None, None, [], []
    try:
        if a.camera:
            camera = start_camera(net.s, a.camera.split())
        served_args = ["--relay"] if a.simulcast else ["--pipeline", served.name]
        server = subprocess.Popen(["ip", "netns", "exec", net.s, a.sluice, "serve", "--host", "10.98.0.1", "--port", str(PORT)]
                                  + served_args + (["--log-level", "trace"] if os.environ.get("LADDER_TRACE") else []),
                                  stdout=subprocess.DEVNULL, text=True,
                                  stderr=open(os.environ["LADDER_TRACE"], "w") if os.environ.get("LADDER_TRACE") else subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while True:  # bounded wait for the server
            try:
                metrics(net.s)
                break
            except SystemExit:
                if time.monotonic() > deadline or server.poll() is not None:
                    sys.exit("the server did not start")
                time.sleep(0.2)
        if a.simulcast:
            publisher = start_publisher(net.s, a.sluice, a.simulcast, a.seconds)
            wait_live(net.s, time.monotonic() + 30)
        for k, ns in enumerate(net.v, start=1):
            report = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
            reports.append(report)
            env = dict(os.environ, SLUICE_WHEP=f"http://10.98.0.1:{PORT}/whep/{name}")
            viewers.append(subprocess.Popen(
                ["ip", "netns", "exec", ns, a.sluice, "run", "Pipelines/whep-play.yaml", "--set",
                 f"transport.ice.addresses=[10.98.{k}.1]", "--duration", str(a.seconds), "--quiet", "--report", report],
                cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
        time.sleep(a.seconds - 3)  # the servers' figures near the end: a measuring window
        m = metrics(net.s)
        for v in viewers:
            try:
                v.wait(a.seconds + 60)
            except subprocess.TimeoutExpired:
                v.kill()
        rungs = sorted(m.get("sluice_stream_rendition_bitrate_bps", {}).items(), key=lambda kv: -kv[1])
        sizes = simulcast_sizes(spec) if a.simulcast else [
            (int(w), int(h), n) for n, w, h in re.findall(r"\{\s*name:\s*(\w+),\s*width:\s*(\d+),\s*height:\s*(\d+)", spec)]
        if a.camera:
            size = re.search(r"--size\s+(\d+)x(\d+)", a.camera)
            sizes.insert(0, (int(size.group(1)), int(size.group(2)), "source") if size else (640, 360, "source"))
        out = []
        for k, (rate, report, v) in enumerate(zip(a.rates, reports, viewers), start=1):
            try:
                r = json.load(open(report))
                video = r["receive"]["video"]
            except (OSError, ValueError, KeyError):
                out.append({"viewer": k, "link": rate, "error": (v.stderr.read() or "")[-400:]})
                continue
            got = next((n for w, h, n in sizes if w == video.get("width") and h == video.get("height")), None)
            # The best rung whose measured rate + 10% fits the link.
            rates = m.get("sluice_stream_rendition_bitrate_bps", {})
            fits = [n for w, h, n in sizes if rates.get(n, 1e18) * 1.1 <= rate_bps(rate)]
            expected = fits[0] if fits else (sizes[-1][2] if sizes else None)
            out.append({"viewer": k, "link": rate, "width": video.get("width"), "height": video.get("height"),
                        "frames": video.get("frames"), "fps": round(video.get("fps", 0), 1), "rendition": got,
                        "kbps": round(r.get("network", {}).get("bitrate_kbps", 0)),
                        "expected": expected, "first_frame_ms": r.get("time_to_first_frame_ms")})
        result = {"pipeline": os.path.relpath(a.pipeline, ROOT), "seconds": a.seconds, "viewers": out,
                  "rendition_bitrate_bps": dict(rungs), "rendition_viewers": m.get("sluice_stream_rendition_viewers", {}),
                  "switches": m.get("sluice_stream_rendition_switches_total", {}),
                  "right_rung": sum(1 for o in out if o.get("rendition") and o["rendition"] == o["expected"]),
                  "kbps": [o.get("kbps") for o in out], "heights": [o.get("height") for o in out],
                  "count": len(out)}
        for o in out:
            print(f"viewer {o['viewer']:2}: link {o['link']:>8}  got {o.get('rendition')} ({o.get('width')}x{o.get('height')}, "
                  f"{o.get('fps')} fps, {o.get('kbps')} kbit/s)  expected {o.get('expected')}", file=sys.stderr)
        print(json.dumps(result))
    finally:
        for v in viewers:
            if v.poll() is None:
                v.kill()
        if publisher and publisher.poll() is None:
            publisher.terminate()
            publisher.wait(10)
        if server and server.poll() is None:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
        if camera and camera.poll() is None:
            camera.terminate()
            camera.wait(10)
        net.close()
        os.unlink(served.name)
        for r in reports:
            if os.path.exists(r):
                os.unlink(r)


if __name__ == "__main__":
    main()
