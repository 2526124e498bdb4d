#!/usr/bin/python3
"""N RTSP cameras for the price of none, for Benchmarks/cameras.sh (issue 28's 50 passthrough cameras).

At start, x264enc encodes a few seconds of a moving test picture once, as fast as it can
(1280x720, 30 fps, GOP 60, 1500 kbit/s by default; constrained baseline, no scene-cut
keyframes, so a keyframe opens every GOP), and keeps the frames in memory. Then one thread
plays that loop at the frame rate, handing every frame to each mount's `appsrc`. The mounts
/cam-0 … /cam-{N-1} are gst-rtsp-server media (python3-gi), each with its own RTSP session,
payloader, SSRC and RTP stream, as N real cameras would be, only with the same picture. RTSP
over TCP (interleaved) only, the way Benchmarks/cameras.py's `sluice serve` files capture them.
So the cameras' process costs the RTSP serving and payloading, not N encoders (which on this
2-core machine would leave nothing for the server being measured).

The default picture is SMPTE bars scrolling 8 pixels a frame: x264 makes about the asked
bitrate of it (a ball on black, Tests/Interop/rtsp/server.py's picture, is ~170 kbit/s at
any `bitrate`, which would understate a real camera's packets).

    /usr/bin/python3 Benchmarks/rtsp_cameras.py --port 18760 --cameras 50
        [--size 1280x720] [--fps 30] [--gop 60] [--kbps 1500] [--loop-gops 2]
        [--picture "pattern=smpte horizontal-speed=8"]

A mount's appsrc restamps each frame with its own pipeline's running time (do-timestamp);
it starts at the loop's next keyframe, as a camera's new session starts at its next one.
Prints `READY rtsp://127.0.0.1:PORT/cam-0 … cam-{N-1} KBPS kbit/s` once it listens (KBPS:
the loop's real bitrate), then `PLAYING cam-I` the first time a mount plays; SIGTERM or
SIGINT stops it.
"""
import argparse
import signal
import sys
import threading
import time

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstRtsp", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtsp, GstRtspServer  # noqa: E402

# Up to a GOP may wait in a mount's appsrc while gst-rtsp-server holds the media blocked
# between DESCRIBE and PLAY; past that the oldest frames go (leaky) instead of piling up.
MOUNT_LAUNCH = ("( appsrc name=src is-live=true format=time do-timestamp=true min-latency=0 max-buffers={gop} "
                "leaky-type=downstream caps=\"{caps}\" ! rtph264pay name=pay0 pt=96 config-interval=-1 )")


def encode_loop(args):
    """(caps, [(buffer, keyframe)]) of `--loop-gops` GOPs, encoded as fast as x264enc goes."""
    width, height = args.size.split("x")
    frames = args.gop * args.loop_gops
    pipeline = Gst.parse_launch(
        f"videotestsrc num-buffers={frames} {args.picture} ! "
        f"video/x-raw,format=I420,width={width},height={height},framerate={args.fps}/1 ! "
        f"x264enc tune=zerolatency speed-preset=ultrafast key-int-max={args.gop} bitrate={args.kbps} "
        "option-string=scenecut=0 ! video/x-h264,profile=constrained-baseline ! h264parse ! "
        "video/x-h264,stream-format=byte-stream,alignment=au ! appsink name=out sync=false")
    sink = pipeline.get_by_name("out")
    pipeline.set_state(Gst.State.PLAYING)
    loop, caps = [], None
    while True:
        sample = sink.emit("try-pull-sample", 60 * Gst.SECOND)
        if sample is None:
            break
        caps = caps or sample.get_caps()
        buffer = sample.get_buffer().copy()
        buffer.unset_flags(Gst.BufferFlags.DISCONT)  # played again and again: no frame is a discontinuity
        loop.append((buffer, not buffer.has_flags(Gst.BufferFlags.DELTA_UNIT)))
    pipeline.set_state(Gst.State.NULL)
    if len(loop) != frames or not loop[0][1]:
        sys.exit(f"the encoder made {len(loop)} of {frames} frames (first a keyframe: {bool(loop and loop[0][1])})")
    return caps, loop


class Player:
    """Plays the loop at the frame rate into the mounts' appsrcs (registered and unregistered
    from gst-rtsp-server's threads)."""

    def __init__(self, loop, fps):
        self.loop, self.period = loop, 1.0 / fps
        self.lock = threading.Lock()
        self.mounts = {}  # appsrc -> started (a keyframe reached it)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._play, name="player", daemon=True)

    def add(self, appsrc):
        with self.lock:
            self.mounts[appsrc] = False

    def remove(self, appsrc):
        with self.lock:
            self.mounts.pop(appsrc, None)

    def _play(self):
        due, i = time.monotonic(), 0
        while not self.stopping.is_set():
            buffer, keyframe = self.loop[i % len(self.loop)]
            i += 1
            with self.lock:
                if keyframe:
                    for appsrc in self.mounts:
                        self.mounts[appsrc] = True
                targets = [a for a, started in self.mounts.items() if started]
            for appsrc in targets:
                copy = buffer.copy()  # the memory is shared; each mount stamps its own copy
                copy.pts = copy.dts = Gst.CLOCK_TIME_NONE
                appsrc.emit("push-buffer", copy)
            due += self.period
            late = time.monotonic() - due
            if late > 1.0:
                due = time.monotonic()  # the machine stalled: go on from now, do not burst
            elif late < 0:
                self.stopping.wait(-late)


def make_factory(player, name, caps, gop):
    factory = GstRtspServer.RTSPMediaFactory()
    factory.set_launch(MOUNT_LAUNCH.format(gop=gop, caps=caps.to_string().replace('"', '\\"')))
    factory.set_shared(True)
    factory.set_protocols(GstRtsp.RTSPLowerTrans.TCP)
    played = [False]

    def configure(_factory, media):
        appsrc = media.get_element().get_by_name("src")
        player.add(appsrc)
        media.connect("unprepared", lambda _m: player.remove(appsrc))

        def state(_media, new):
            if new == Gst.State.PLAYING and not played[0]:
                played[0] = True
                print(f"PLAYING {name}", flush=True)
        media.connect("new-state", state)

    factory.connect("media-configure", configure)
    return factory


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--cameras", type=int, default=50)
    p.add_argument("--size", default="1280x720")
    p.add_argument("--fps", type=int, default=30)
    p.add_argument("--gop", type=int, default=60)
    p.add_argument("--kbps", type=int, default=1500)
    p.add_argument("--loop-gops", type=int, default=2, help="GOPs in the encoded loop")
    p.add_argument("--picture", default="pattern=smpte horizontal-speed=8", help="videotestsrc properties")
    args = p.parse_args()

    Gst.init(None)
    caps, loop = encode_loop(args)
    kbps = sum(b.get_size() for b, _ in loop) * 8 / 1000 / (len(loop) / args.fps)
    player = Player(loop, args.fps)
    server = GstRtspServer.RTSPServer()
    server.set_address("127.0.0.1")
    server.set_service(str(args.port))
    # gst-rtsp-server serves its clients from one thread by default, and a DESCRIBE waits
    # there until its media has prerolled (up to a GOP, for its first keyframe): cameras
    # connecting together would queue behind each other.
    server.get_thread_pool().set_max_threads(max(2, min(args.cameras, 64)))
    mounts = server.get_mount_points()
    for i in range(args.cameras):
        mounts.add_factory(f"/cam-{i}", make_factory(player, f"cam-{i}", caps, args.gop))
    if server.attach(None) == 0:
        print(f"cannot listen on 127.0.0.1:{args.port}", file=sys.stderr)
        return 2
    player.thread.start()
    main_loop = GLib.MainLoop()
    for s in (signal.SIGTERM, signal.SIGINT):
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, s, main_loop.quit)
    print(f"READY rtsp://127.0.0.1:{args.port}/cam-0 … cam-{args.cameras - 1} {kbps:.0f} kbit/s", flush=True)
    try:
        main_loop.run()
    finally:
        player.stopping.set()
    return 0


if __name__ == "__main__":
    sys.exit(main())
