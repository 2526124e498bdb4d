#!/usr/bin/python3
"""An RTSP server for Sluice's rtsp capture tests, built on gst-rtsp-server (Debian's
gir1.2-gst-rtsp-server-1.0 with python3-gi): the kind of server an IP camera runs.

It streams a live test picture encoded by x264enc (H.264, constrained baseline unless
--profile says main or high) or vp8enc,
optionally with an Opus tone.

    /usr/bin/python3 Tests/Interop/rtsp/server.py --port 8554 [--path /cam] [--codec h264]
        [--pattern red] [--size 640x360] [--fps 30] [--gop 60] [--profile high] [--audio]
        [--transport tcp|udp|any] [--user NAME --password-env VAR [--auth digest|basic]] [--stamp]

With --stamp, every frame carries Sluice's framestamp (framestamp.py): its number and
capture time, which a Sluice viewer reads back as the glass-to-glass delay.

With --user, clients must authenticate (digest by default, as most cameras ask) with the
password held in the environment variable VAR; others get 401 Unauthorized.

Prints `READY rtsp://127.0.0.1:PORT/PATH` once it listens, then `CLIENT` for every client
that connects; SIGTERM or SIGINT stops it.
"""
import argparse
import os
import signal
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstRtsp", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtsp, GstRtspServer  # noqa: E402

ENCODERS = {
    "h264": "x264enc tune=zerolatency speed-preset={preset} key-int-max={gop} bitrate=1500 "
    "! video/x-h264,profile={profile} ! rtph264pay name=pay0 pt=96 config-interval=-1",
    "vp8": "vp8enc deadline=1 keyframe-max-dist={gop} target-bitrate=1500000 ! rtpvp8pay name=pay0 pt=96",
}


def launch(args):
    width, height = args.size.split("x")
    video = (
        f"videotestsrc is-live=true pattern={args.pattern} ! "
        f"video/x-raw,format=I420,width={width},height={height},framerate={args.fps}/1 ! "
        + ("identity name=stamp signal-handoffs=true ! " if args.stamp else "")
        # ultrafast turns off what Main and High add (CABAC, 8x8 transforms), so x264 would
        # write Constrained Baseline whatever profile the caps allow.
        + ENCODERS[args.codec].format(
            gop=args.gop, profile=args.profile, preset="ultrafast" if args.profile == "constrained-baseline" else "superfast")
    )
    audio = " audiotestsrc is-live=true wave=sine freq=440 ! audioconvert ! opusenc ! rtpopuspay name=pay1 pt=97"
    return "( " + video + (audio if args.audio else "") + " )"


def stamp_frames(media, args):
    """Stamps each raw frame of `media` (the `identity name=stamp` before the encoder)."""
    import framestamp

    width, height = (int(v) for v in args.size.split("x"))
    count = [0]

    def handoff(_identity, buffer):
        framestamp.stamp(buffer, width, height, count[0])
        count[0] += 1

    media.get_element().get_by_name("stamp").connect("handoff", handoff)


def require_auth(server, factory, args):
    """Only `args.user` with the password from the environment may play the factory."""
    import os

    password = os.environ[args.password_env]
    auth = GstRtspServer.RTSPAuth()
    token = GstRtspServer.RTSPToken()
    token.set_string("media.factory.role", args.user)
    if args.auth == "digest":
        auth.add_digest(args.user, password, token)
        auth.set_supported_methods(GstRtsp.RTSPAuthMethod.DIGEST)
    else:
        auth.add_basic(GstRtspServer.RTSPAuth.make_basic(args.user, password), token)
        auth.set_supported_methods(GstRtsp.RTSPAuthMethod.BASIC)
    server.set_auth(auth)
    permissions = GstRtspServer.RTSPPermissions()
    permissions.add_permission_for_role(args.user, "media.factory.access", True)
    permissions.add_permission_for_role(args.user, "media.factory.construct", True)
    factory.set_permissions(permissions)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--path", default="/cam")
    p.add_argument("--codec", choices=sorted(ENCODERS), default="h264")
    p.add_argument("--pattern", default="red")
    p.add_argument("--size", default="640x360")
    p.add_argument("--fps", type=int, default=30)
    p.add_argument("--gop", type=int, default=60)
    p.add_argument("--profile", default="constrained-baseline", help="the H.264 profile x264enc makes (main, high)")
    p.add_argument("--audio", action="store_true")
    p.add_argument("--transport", choices=["any", "tcp", "udp"], default="any")
    p.add_argument("--user")
    p.add_argument("--password-env")
    p.add_argument("--auth", choices=["digest", "basic"], default="digest")
    p.add_argument("--stamp", action="store_true", help="write Sluice's framestamp into every frame")
    args = p.parse_args()

    Gst.init(None)
    server = GstRtspServer.RTSPServer()
    server.set_address("127.0.0.1")
    server.set_service(str(args.port))
    factory = GstRtspServer.RTSPMediaFactory()
    factory.set_launch(launch(args))
    factory.set_shared(True)
    protocols = {
        "any": GstRtsp.RTSPLowerTrans.UDP | GstRtsp.RTSPLowerTrans.TCP,
        "tcp": GstRtsp.RTSPLowerTrans.TCP,
        "udp": GstRtsp.RTSPLowerTrans.UDP,
    }[args.transport]
    factory.set_protocols(protocols)
    if args.stamp:
        factory.connect("media-configure", lambda _f, media: stamp_frames(media, args))
    if args.user:
        require_auth(server, factory, args)
    server.get_mount_points().add_factory(args.path, factory)
    server.connect("client-connected", lambda *_: print("CLIENT", flush=True))
    if server.attach(None) == 0:
        print(f"cannot listen on 127.0.0.1:{args.port}", file=sys.stderr)
        return 2
    loop = GLib.MainLoop()
    for s in (signal.SIGTERM, signal.SIGINT):
        GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, s, loop.quit)
    print(f"READY rtsp://127.0.0.1:{args.port}{args.path}", flush=True)
    loop.run()
    # Out at once: Python's finalisation unrefs the server while its media's threads may still
    # be tearing a client's session down, which can wait on them for good.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
