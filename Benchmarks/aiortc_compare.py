#!/usr/bin/env python3
"""Sluice loopback against aiortc loopback (Benchmarks/aiortc-compare.sh).

Both sides replay the same pre-rendered raw I420 frames (60 frames of videotestsrc
pattern=smpte horizontal-speed=4, dumped once with gst-launch-1.0) at 30 fps, stamp them with the framestamp
pattern right after "capture", send them over WebRTC on 127.0.0.1 to a second peer in the
same process, and read the stamp back from the decoded frame.

- Sluice: `sluice measure Benchmarks/aiortc-replay.yaml --json` (framestamp writer after the
  capture, framestamp-read before the sink, CPU of the process over the run).
- aiortc: `python aiortc_compare.py peer ...` in its own process: two RTCPeerConnections,
  a MediaStreamTrack that replays the frames (framestamp written in recv(), just before the
  frame goes to aiortc's encoder), frames read on the receiving track. CPU is the process's
  own getrusage over the same kind of window (from before the peer connections are created
  to the end of the run).

Bitrate: aiortc's encoders take their target bitrate from module constants and REMB; the
peer pins it by setting DEFAULT_BITRATE = MIN_BITRATE = MAX_BITRATE = the target in
aiortc.codecs.vpx and aiortc.codecs.h264 (the target_bitrate setter clamps to MIN/MAX, so
REMB cannot move it either).

Modes:
  aiortc_compare.py               the benchmark (env RUNS, SECONDS_PER_RUN, CONFIGS)
  aiortc_compare.py peer W H CODEC KBPS SECONDS JSON_OUT FRAME_DIR
  aiortc_compare.py selftest      framestamp port round trip
"""
import asyncio, fractions, json, os, resource, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SLUICE = os.path.abspath(os.environ.get("SLUICE") or os.path.join(ROOT, ".build/release/sluice"))
FRAMES = 60
# The replayed content: SMPTE bars scrolling 4 px per frame. Both encoders reach their
# target bitrate on it (pattern=ball is so easy that they send ~150 kbit/s of 2500).
PATTERN = ["pattern=smpte", "horizontal-speed=4"]

# (label, width, height, codec, kbit/s)
CONFIGS = [
    ("480p VP8", 640, 480, "vp8", 1000),
    ("480p H.264", 640, 480, "h264", 1000),
    ("720p VP8", 1280, 720, "vp8", 2500),
    ("720p H.264", 1280, 720, "h264", 2500),
]

# ---------------------------------------------------------------------------------------
# Framestamp, ported from Plugins/framestamp/Framestamp.swift (identical stamps):
# 3 rows of 32 squares at (0, 0) on the luma plane, MSB first; word 0 the frame number,
# word 1 bits 47..16 of CLOCK_MONOTONIC µs, word 2 bits 15..0 then CRC-16/CCITT-FALSE of
# number (4 bytes BE) + timestamp (6 bytes BE). 1 = luma 235, 0 = luma 16, chroma under
# the pattern 128. Read: mean luma of each square's central half (inset block/4),
# threshold halfway.

MASK48 = (1 << 48) - 1
YUV_ONE, YUV_ZERO = 235, 16


def block_for_width(width):
    return min(16, max(4, width // 32))  # MeasurePlan.block(forWidth:)


def monotonic_us():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000 & MASK48


# The framestamp's words and CRC, shared with the stamped RTSP camera (Tests/Interop/rtsp/framestamp.py).
sys.path.insert(0, os.path.join(ROOT, "Tests/Interop/rtsp"))
from framestamp import crc16, words as stamp_words  # noqa: E402


def decode_words(words):
    t = (words[1] << 16) | (words[2] >> 16)
    if words[2] & 0xFFFF != crc16(words[0].to_bytes(4, "big") + t.to_bytes(6, "big")):
        return None
    return words[0], t


def make_stamper(np, block):
    shifts = np.arange(31, -1, -1, dtype=np.uint64)
    ones = np.ones((block, block), dtype=np.uint8)
    b = block

    def write(y, u, v, number, timestamp):
        """Stamps the planes (numpy views) in place."""
        words = np.array(stamp_words(number, timestamp), dtype=np.uint64)
        bits = ((words[:, None] >> shifts[None, :]) & 1).astype(np.uint8)  # 3×32
        y[0:3 * b, 0:32 * b] = np.kron(np.where(bits == 1, YUV_ONE, YUV_ZERO).astype(np.uint8), ones)
        cx1, cy1 = (32 * b + 1) // 2, (3 * b + 1) // 2
        u[0:cy1, 0:cx1] = 128
        v[0:cy1, 0:cx1] = 128

    inset = b // 4
    n = (b - 2 * inset) ** 2
    limit = (YUV_ONE + YUV_ZERO) * n

    def read(y):
        """(number, timestamp) from a luma plane (2-D numpy), or None if the CRC fails."""
        region = y[0:3 * b, 0:32 * b].reshape(3, b, 32, b)[:, inset:b - inset, :, inset:b - inset]
        sums = region.sum(axis=(1, 3), dtype=np.int64)  # 3×32
        bits = (2 * sums > limit).astype(np.uint64)
        words = [int((bits[r] << shifts).sum()) for r in range(3)]
        return decode_words(words)

    return write, read


def percentile(sorted_values, p):
    """Nearest-rank percentile (as Sluice's LatencyRecorder)."""
    if not sorted_values:
        return None
    import math
    rank = max(1, math.ceil(p / 100 * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


# ---------------------------------------------------------------------------------------
# aiortc peer (runs in its own process, in the venv)

def peer(width, height, codec, kbps, seconds, out_path, frame_dir):
    import numpy as np
    import av
    import aioice.ice
    from aiortc import RTCPeerConnection, RTCConfiguration, RTCRtpSender, MediaStreamTrack
    import aiortc.codecs.vpx as vpx
    import aiortc.codecs.h264 as h264

    # Loopback only: aioice skips loopback when it enumerates host addresses.
    aioice.ice.get_host_addresses = lambda use_ipv4=True, use_ipv6=True: ["127.0.0.1"]
    # Pin the encoder bitrate (see the module docstring).
    bps = kbps * 1000
    for mod in (vpx, h264):
        mod.DEFAULT_BITRATE = mod.MIN_BITRATE = mod.MAX_BITRATE = bps

    block = block_for_width(width)
    write_stamp, read_stamp = make_stamper(np, block)
    ysize, csize = width * height, width * height // 4
    frames = []
    for i in range(FRAMES):
        with open(os.path.join(frame_dir, f"f-{i:02d}.i420"), "rb") as f:
            data = f.read()
        assert len(data) == ysize + 2 * csize, "frame size"
        frames.append(np.frombuffer(data, dtype=np.uint8))

    clock = 90000
    fps = 30

    class ReplayTrack(MediaStreamTrack):
        kind = "video"

        def __init__(self):
            super().__init__()
            self.n = 0
            self.start = None
            self.stamped = 0

        async def recv(self):
            if self.start is None:
                self.start = time.monotonic()
            due = self.start + self.n / fps
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            buf = frames[self.n % FRAMES].copy()
            y = buf[:ysize].reshape(height, width)
            u = buf[ysize:ysize + csize].reshape(height // 2, width // 2)
            v = buf[ysize + csize:].reshape(height // 2, width // 2)
            write_stamp(y, u, v, self.n, monotonic_us())  # right after "capture"
            frame = av.VideoFrame.from_ndarray(buf.reshape(height * 3 // 2, width), format="yuv420p")
            frame.pts = self.n * clock // fps
            frame.time_base = fractions.Fraction(1, clock)
            self.n += 1
            self.stamped += 1
            return frame

    result = {}

    async def main():
        t0 = time.monotonic()
        ru0 = resource.getrusage(resource.RUSAGE_SELF)
        config = RTCConfiguration(iceServers=[])  # no STUN
        pc1, pc2 = RTCPeerConnection(config), RTCPeerConnection(config)
        track = ReplayTrack()
        transceiver = pc1.addTransceiver(track, direction="sendonly")
        mime = "video/VP8" if codec == "vp8" else "video/H264"
        caps = RTCRtpSender.getCapabilities("video")
        transceiver.setCodecPreferences([c for c in caps.codecs if c.mimeType == mime])

        samples = []  # (t, latency_us)
        numbers = set()
        stats = {"received": 0, "unreadable": 0, "first": None}

        async def consume(remote):
            while True:
                try:
                    frame = await remote.recv()
                except Exception:
                    return
                stats["received"] += 1
                plane = frame.planes[0]
                yplane = np.frombuffer(plane, dtype=np.uint8).reshape(-1, plane.line_size)[:frame.height, :frame.width]
                got = read_stamp(yplane)
                now = monotonic_us()
                if got is None:
                    stats["unreadable"] += 1
                    continue
                number, ts = got
                lat = (now - ts) & MASK48
                if lat >= 1 << 47:
                    lat -= 1 << 48
                t = time.monotonic()
                if stats["first"] is None:
                    stats["first"] = t
                samples.append((t, lat))
                numbers.add(number)

        tasks = []

        @pc2.on("track")
        def on_track(remote):
            tasks.append(asyncio.ensure_future(consume(remote)))

        await pc1.setLocalDescription(await pc1.createOffer())
        await pc2.setRemoteDescription(pc1.localDescription)
        await pc2.setLocalDescription(await pc2.createAnswer())
        await pc1.setRemoteDescription(pc2.localDescription)

        await asyncio.sleep(max(0.0, t0 + seconds - time.monotonic()))
        ru1 = resource.getrusage(resource.RUSAGE_SELF)
        t1 = time.monotonic()
        cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
        lats = sorted(l / 1000 for _, l in samples)
        window = t1 - stats["first"] if stats["first"] else 0
        sent_bytes = 0
        for st in (await pc1.getStats()).values():
            if getattr(st, "type", "") == "outbound-rtp":
                sent_bytes += st.bytesSent
        result.update({
            "duration_s": t1 - t0, "cpu_seconds": cpu,
            "frames": {"stamped": track.stamped, "received": stats["received"], "read": len(samples),
                       "distinct": len(numbers), "unreadable": stats["unreadable"]},
            "delivered_fps": len(numbers) / window if window > 0.5 else 0,
            "time_to_first_frame_ms": (stats["first"] - t0) * 1000 if stats["first"] else None,
            "latency": {"p50_ms": percentile(lats, 50), "p95_ms": percentile(lats, 95),
                        "p99_ms": percentile(lats, 99), "max_ms": lats[-1] if lats else None},
            "peak_memory_mib": ru1.ru_maxrss / 1024,
            "bitrate_kbps": kbps,
            # RTP payload + headers sent (Sluice's encoder_bitrate_kbps counts encoded bytes)
            "sent_kbps": sent_bytes * 8 / 1000 / (t1 - t0),
        })
        for t in tasks:
            t.cancel()
        await pc1.close()
        await pc2.close()

    asyncio.run(main())
    with open(out_path, "w") as f:
        json.dump(result, f, indent=2)


# ---------------------------------------------------------------------------------------
# The benchmark

def prepare_frames(width, height):
    d = os.path.join(ROOT, "Benchmarks/.frames", f"{width}x{height}-smpte-scroll4")
    if len([n for n in os.listdir(d) if n.endswith(".i420")] if os.path.isdir(d) else []) == FRAMES:
        return d
    os.makedirs(d, exist_ok=True)
    subprocess.run(["gst-launch-1.0", "-q", "videotestsrc", *PATTERN, f"num-buffers={FRAMES}", "!",
                    f"video/x-raw,format=I420,width={width},height={height},framerate=30/1", "!",
                    "multifilesink", f"location={d}/f-%02d.i420"], check=True)
    return d


def run_sluice(width, height, codec, kbps, seconds, frame_dir, file="Benchmarks/aiortc-replay.yaml"):
    fd, path = tempfile.mkstemp(suffix=".json"); os.close(fd)
    env = dict(os.environ, REPLAY_DIR=frame_dir, W=str(width), H=str(height), CODEC=codec, BITRATE=str(kbps))
    p = subprocess.run([SLUICE, "measure", file, "--duration", str(seconds),
                        "--json", path, "--quiet"], cwd=ROOT, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"sluice measure failed ({p.returncode}): {p.stderr[-1500:]}{p.stdout[-500:]}")
    with open(path) as f:
        rep = json.load(f)
    os.unlink(path)
    return {"cpu_s_per_min": rep["cpu_seconds"] / rep["duration_s"] * 60, "delivered_fps": rep["delivered_fps"],
            "p50_ms": rep["latency"]["p50_ms"], "p95_ms": rep["latency"]["p95_ms"], "p99_ms": rep["latency"]["p99_ms"],
            "kbps": rep.get("encoder_bitrate_kbps"), "frames": rep.get("frames"),
            "cpu_seconds": rep["cpu_seconds"], "duration_s": rep["duration_s"],
            "time_to_first_frame_ms": rep.get("time_to_first_frame_ms")}


def run_aiortc(width, height, codec, kbps, seconds, frame_dir):
    fd, path = tempfile.mkstemp(suffix=".json"); os.close(fd)
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "peer", str(width), str(height), codec, str(kbps),
                        str(seconds), path, frame_dir], cwd=ROOT, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"aiortc peer failed ({p.returncode}): {p.stderr[-2000:]}")
    with open(path) as f:
        rep = json.load(f)
    os.unlink(path)
    return {"cpu_s_per_min": rep["cpu_seconds"] / rep["duration_s"] * 60, "delivered_fps": rep["delivered_fps"],
            "p50_ms": rep["latency"]["p50_ms"], "p95_ms": rep["latency"]["p95_ms"], "p99_ms": rep["latency"]["p99_ms"],
            "frames": rep["frames"], "cpu_seconds": rep["cpu_seconds"], "duration_s": rep["duration_s"],
            "time_to_first_frame_ms": rep["time_to_first_frame_ms"], "kbps": rep["sent_kbps"]}


def med(rows, key):
    xs = [r[key] for r in rows if r.get(key) is not None]
    return statistics.median(xs) if xs else None


def fmt(x, spec=".1f"):
    return "–" if x is None else format(x, spec)


SIDES = {
    "sluice": "Sluice",
    "sluice-vp8-threads1": "Sluice, vp8enc threads=1",
    "aiortc": "aiortc",
}


def main():
    runs = int(os.environ.get("RUNS", "5"))
    seconds = float(os.environ.get("SECONDS_PER_RUN", "20"))
    wanted = os.environ.get("CONFIGS")  # e.g. "480p VP8,720p H.264"
    # VP8_THREADS1=1 also runs Sluice with an explicit vp8enc threads=1 (now the preset's own
    # choice on 2-core machines; kept to compare with earlier runs).
    extra = os.environ.get("VP8_THREADS1", "0") != "0"
    configs = [c for c in CONFIGS if not wanted or c[0] in [w.strip() for w in wanted.split(",")]]
    results = []
    for label, w, h, codec, kbps in configs:
        frame_dir = prepare_frames(w, h)
        sides = ["sluice", "aiortc"] + (["sluice-vp8-threads1"] if codec == "vp8" and extra else [])
        rows = {side: [] for side in sides}
        for i in range(runs):
            order = sides if i % 2 == 0 else list(reversed(sides))
            for side in order:
                if side == "aiortc":
                    rows[side].append(run_aiortc(w, h, codec, kbps, seconds, frame_dir))
                else:
                    f = "Benchmarks/aiortc-replay.yaml" if side == "sluice" else "Benchmarks/aiortc-replay-vp8-threads1.yaml"
                    rows[side].append(run_sluice(w, h, codec, kbps, seconds, frame_dir, f))
            print(f"{label} run {i+1}/{runs}: " + " | ".join(
                f"{side} {rows[side][-1]['cpu_s_per_min']:.1f} cpu-s/min {rows[side][-1]['delivered_fps']:.1f} fps "
                f"p50 {fmt(rows[side][-1]['p50_ms'])} p95 {fmt(rows[side][-1]['p95_ms'])} ms" for side in sides), file=sys.stderr)
        keys = ["cpu_s_per_min", "delivered_fps", "p50_ms", "p95_ms", "p99_ms", "kbps"]
        m = {side: {k: med(r, k) for k in keys} for side, r in rows.items()}
        ratios = {side: {"cpu_ratio": m[side]["cpu_s_per_min"] / m["aiortc"]["cpu_s_per_min"],
                         "cpu_ratio_median_of_pairs": statistics.median(
                             x["cpu_s_per_min"] / a["cpu_s_per_min"] for x, a in zip(rows[side], rows["aiortc"]))}
                  for side in sides if side != "aiortc"}
        results.append({"config": label, "width": w, "height": h, "codec": codec, "bitrate_kbps": kbps,
                        "runs": rows, "median": m, "vs_aiortc": ratios})

    print(f"\nSluice vs aiortc loopback, {runs} runs of {seconds:.0f} s per side and configuration, alternating, medians\n"
          "(CPU seconds per minute of run, whole process; 60 = one core. kbit/s: Sluice's encoder output, aiortc's RTP bytes sent)\n")
    print("| configuration | side | CPU s/min | delivered fps | latency p50 ms | p95 ms | kbit/s | CPU ÷ aiortc (median of pairs) | CPU ≤ 0.5× at equal fps / lower p95 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        a = r["median"]["aiortc"]
        for side, m in r["median"].items():
            if side == "aiortc":
                extra_cols = "– | –"
            else:
                q = r["vs_aiortc"][side]
                # Sluice's delivered_fps (distinct stamps / time since the first one) reads
                # ~31 for 30 fps in short runs: the frames queued before ICE connected arrive
                # in a burst. Equal = within 5% of each other.
                equal_fps = min(m["delivered_fps"], a["delivered_fps"]) >= 0.95 * max(m["delivered_fps"], a["delivered_fps"])
                cpu_ok = q["cpu_ratio"] <= 0.5 and equal_fps
                lat_ok = m["p95_ms"] is not None and a["p95_ms"] is not None and m["p95_ms"] < a["p95_ms"]
                extra_cols = (f"{q['cpu_ratio']:.2f} ({q['cpu_ratio_median_of_pairs']:.2f}) | "
                              f"{'met' if cpu_ok else 'NOT met'}{'' if equal_fps else ' (fps differ)'} / {'met' if lat_ok else 'NOT met'}")
            print(f"| {r['config']} {r['bitrate_kbps']} kbit/s | {SIDES[side]} | {fmt(m['cpu_s_per_min'])} | {fmt(m['delivered_fps'])} "
                  f"| {fmt(m['p50_ms'])} | {fmt(m['p95_ms'])} | {fmt(m['kbps'], '.0f')} | {extra_cols} |")
    with open(os.path.join(ROOT, "Benchmarks/results-aiortc.json"), "w") as f:
        json.dump({"runs": runs, "seconds": seconds, "frames_replayed": FRAMES, "content": " ".join(PATTERN),
                   "results": results}, f, indent=2)


def selftest():
    import numpy as np
    assert crc16(b"123456789") == 0x29B1
    for w, h in [(640, 480), (1280, 720)]:
        write, read = make_stamper(np, block_for_width(w))
        y = np.full((h, w), 90, np.uint8); u = np.full((h // 2, w // 2), 60, np.uint8); v = u.copy()
        write(y, u, v, 123456, 0xABCDEF123456)
        assert read(y) == (123456, 0xABCDEF123456), read(y)
    print("framestamp port ok")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "peer":
        a = sys.argv[2:]
        peer(int(a[0]), int(a[1]), a[2], int(a[3]), float(a[4]), a[5], a[6])
    elif len(sys.argv) > 1 and sys.argv[1] == "selftest":
        selftest()
    else:
        main()
