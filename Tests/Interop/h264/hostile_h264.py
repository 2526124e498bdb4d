#!/usr/bin/python3
"""A live H.264 sender with hostile access units, for Sluice's bad-input tests.

    /usr/bin/python3 Tests/Interop/h264/hostile_h264.py --to srt://127.0.0.1:PORT --attack huge-sps,garbage-nal
    /usr/bin/python3 Tests/Interop/h264/hostile_h264.py --to rtmp://127.0.0.1:PORT/live/cam --attack bad-nal-size

It sends a 320x240 30 fps picture made by x264: red for --red seconds, then the attacks (one
access unit each, one frame apart), then blue (from a keyframe with its SPS and PPS) until
--seconds. SRT carries MPEG-TS (Annex B start codes); RTMP carries FLV (AVC, each NAL unit
after a 4-byte length), published as a client would.

Attacks:
  huge-sps      an SPS whose valid fields are followed by 1 MiB of junk, then a PPS and a keyframe
  garbage-nal   a keyframe NAL unit of 64 KiB of random bytes
  bad-nal-size  (FLV) a NAL unit whose length field says 16 MiB, more than the tag holds
  zero-nal-size (FLV) a NAL unit of length 0 followed by a truncated length field

Prints READY once the sender plays and ATTACK <name> as each hostile unit is pushed.
"""
import argparse
import os
import random
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

FPS = 30
FRAME_NS = Gst.SECOND // FPS


def encode(colour, frames):
    """x264 access units (Annex B) of a picture in `colour`, a keyframe every second."""
    pipeline = Gst.parse_launch(
        f"videotestsrc pattern={colour} num-buffers={frames} ! video/x-raw,width=320,height=240,framerate={FPS}/1 ! "
        "x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! "
        "video/x-h264,stream-format=byte-stream,alignment=au,profile=constrained-baseline ! appsink name=out sync=false"
    )
    out = pipeline.get_by_name("out")
    pipeline.set_state(Gst.State.PLAYING)
    units = []
    while True:
        sample = out.emit("try-pull-sample", 10 * Gst.SECOND)
        if sample is None:
            break
        buf = sample.get_buffer()
        units.append(buf.extract_dup(0, buf.get_size()))
    pipeline.set_state(Gst.State.NULL)
    if len(units) < frames:
        sys.exit(f"hostile_h264: x264 made {len(units)} of {frames} frames")
    return units


def nal_units(au):
    """The NAL units of an Annex B access unit, without their start codes."""
    starts, i = [], 0
    while True:
        i = au.find(b"\x00\x00\x01", i)
        if i < 0:
            break
        starts.append(i + 3)
        i += 3
    units = []
    for n, s in enumerate(starts):
        end = starts[n + 1] - 3 if n + 1 < len(starts) else len(au)
        unit = au[s:end]
        while unit.endswith(b"\x00"):
            unit = unit[:-1]
        units.append(unit)
    return units


def junk(size, seed):
    """Bytes with no zero in them, so no start code or emulation prevention appears."""
    rng = random.Random(seed)
    return bytes(rng.randrange(1, 256) for _ in range(size))


def annex_b(units):
    return b"".join(b"\x00\x00\x00\x01" + u for u in units)


def attacks_for(names, keyframe_units):
    """(name, NAL units, raw FLV payload or None) for each attack."""
    sps = next(u for u in keyframe_units if u[0] & 0x1F == 7)
    pps = next(u for u in keyframe_units if u[0] & 0x1F == 8)
    idr = next(u for u in keyframe_units if u[0] & 0x1F == 5)
    out = []
    for name in names:
        if name == "huge-sps":
            out.append((name, [sps + junk(1 << 20, 1), pps, idr], None))
        elif name == "garbage-nal":
            out.append((name, [bytes([0x65]) + junk(64 << 10, 2)], None))
        elif name == "bad-nal-size":
            body = idr[:2000]
            out.append((name, None, (16 << 20).to_bytes(4, "big") + body))
        elif name == "zero-nal-size":
            out.append((name, None, (0).to_bytes(4, "big") + b"\x00\x00"))
        else:
            sys.exit(f"hostile_h264: unknown attack {name}")
    return out


def avc_config(sps, pps):
    return bytes([1, sps[1], sps[2], sps[3], 0xFF, 0xE1]) + len(sps).to_bytes(2, "big") + sps + b"\x01" + len(pps).to_bytes(2, "big") + pps


def avc(units):
    return b"".join(len(u).to_bytes(4, "big") + u for u in units)


def sender(target, keyframe_units):
    if target.startswith("srt://"):
        caps = "video/x-h264,stream-format=byte-stream,alignment=au,width=320,height=240,framerate=30/1"
        tail = f"mpegtsmux alignment=7 ! srtsink uri={target}?mode=caller latency=60 wait-for-connection=true"
        flv = False
    elif target.startswith("rtmp://"):
        sps = next(u for u in keyframe_units if u[0] & 0x1F == 7)
        pps = next(u for u in keyframe_units if u[0] & 0x1F == 8)
        config = avc_config(sps, pps).hex()
        caps = f"video/x-h264,stream-format=avc,alignment=au,width=320,height=240,framerate=30/1,codec_data=(buffer){config}"
        tail = f"flvmux streamable=true ! rtmp2sink location={target}"
        flv = True
    else:
        sys.exit("hostile_h264: --to takes srt:// or rtmp://")
    pipeline = Gst.parse_launch(f"appsrc name=src is-live=true format=time caps=\"{caps}\" ! {tail}")
    return pipeline, pipeline.get_by_name("src"), flv


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--to", required=True)
    p.add_argument("--attack", default="huge-sps,garbage-nal")
    p.add_argument("--red", type=float, default=2.0)
    p.add_argument("--seconds", type=float, default=8.0)
    a = p.parse_args()
    Gst.init(None)
    red = encode("red", int(a.red * FPS))
    blue = encode("blue", int((a.seconds - a.red) * FPS))
    attacks = attacks_for(a.attack.split(","), nal_units(red[0]))
    pipeline, src, flv = sender(a.to, nal_units(red[0]))
    plan = [("frame", u) for u in red] + [("attack", x) for x in attacks] + [("frame", u) for u in blue]
    state = {"n": 0}
    loop = GLib.MainLoop()

    def payload(kind, item):
        if kind == "frame":
            return avc(nal_units(item)) if flv else item
        name, units, raw = item
        print(f"ATTACK {name}", flush=True)
        if units is None:
            return raw if flv else annex_b([bytes([0x65]) + raw])
        return avc(units) if flv else annex_b(units)

    def push():
        n = state["n"]
        if n >= len(plan):
            src.emit("end-of-stream")
            return False
        kind, item = plan[n]
        buf = Gst.Buffer.new_wrapped(payload(kind, item))
        buf.pts = buf.dts = n * FRAME_NS
        buf.duration = FRAME_NS
        if kind == "frame" and not any(u[0] & 0x1F == 5 for u in nal_units(item)):
            buf.set_flags(Gst.BufferFlags.DELTA_UNIT)
        src.emit("push-buffer", buf)
        state["n"] = n + 1
        return True

    bus = pipeline.get_bus()
    bus.add_signal_watch()

    def on_message(_bus, message):
        if message.type in (Gst.MessageType.EOS, Gst.MessageType.ERROR):
            if message.type == Gst.MessageType.ERROR:
                print(f"SENDER-ERROR {message.parse_error()[0].message}", flush=True)
            loop.quit()

    bus.connect("message", on_message)
    pipeline.set_state(Gst.State.PLAYING)
    print("READY", flush=True)
    GLib.timeout_add(1000 // FPS, push)
    GLib.timeout_add(int((a.seconds + 5) * 1000), loop.quit)
    loop.run()
    pipeline.set_state(Gst.State.NULL)
    os._exit(0)


if __name__ == "__main__":
    main()
