#!/usr/bin/env python3
"""aiortc (PyPI) as a WebRTC peer of Sluice, for the interop tests.

    aiortc_peer.py whep-play    URL [--token T] [--seconds N] [--codec vp8|h264] [--no-audio] [--drop P]
                                [--turn turn://USER:PASS@HOST:PORT] [--relay-only]
    aiortc_peer.py whip-publish URL [--token T] [--seconds N] [--codec vp8|h264] [--size 640x360]
    aiortc_peer.py whep-serve   [--port P] [--seconds N] [--codec vp8|h264] [--only-codec] [--size 640x360]
    aiortc_peer.py whep-crowd   URL --viewers N [--seconds N] [--decode K] [--no-delete]
    aiortc_peer.py room-answer  BASE_URL --room R [--seconds N]
    aiortc_peer.py room-offer   BASE_URL --room R [--seconds N]
    aiortc_peer.py room-echo    BASE_URL --room R [--seconds N]

whep-play:    offers recvonly video (+ audio), POSTs it (non-trickle), decodes what arrives for N
              seconds after the first frame, DELETEs the session; prints JSON: frames, size,
              fps, whether the picture moves (luma of the first and last frames differ), audio
              frames, time from POST to the first decoded frame, video RTP packets. With
              --drop P it loses that share of the video packets on arrival (a lossy link).
              With --mdns-name NAME its offer's candidates carry NAME instead of their
              address, as browsers hide host addresses, and python-zeroconf (PyPI) answers
              multicast DNS for NAME on loopback while the session lasts. --turn gives it a
              TURN server, --relay-only gathers nothing but relayed candidates from it; its
              JSON says which ICE path it took ("path": "host -> relay"). With --pictures
              its JSON lists what the picture showed over time ("pictures": [[name, ms after
              the first frame, frames], ...], a name being a colour or "bars"), and always
              the longest wait between two decoded frames ("max_gap_ms"). With
              --select-layers l,h,auto it asks for those layers in turn through WHEP's
              layer selection (the answer's Link rel="urn:ietf:params:whep:ext:core:layer")
              and lists each answer and the size it then decoded ("layer_selections").
whip-publish: sends a synthetic moving picture (a bar sweeping across, a frame counter in
              its luma) and a 440 Hz tone for N seconds; prints JSON with frames sent.
whep-crowd:   N viewers in one process (a load test): each plays for N seconds once all are
              connected; prints JSON with each viewer's video RTP packets (RTX included) in
              the last 2 seconds and in all, missing sequence numbers, the longest silence
              between packets, and decoded frames for the first K viewers (--decode); the
              others count encoded frames and send two PLIs each, timing the keyframe that
              answers. With --no-delete it then prints "connected" and waits to be killed
              (viewers that vanish without DELETE).
room-answer:  joins an AppRTC-compatible room (POST /join, WebSocket register) as the second
              peer, answers the offer found there (queued or arriving), trickles candidates
              both ways, decodes for N seconds, says bye and leaves; prints whep-play's JSON.
room-echo:    as room-answer, and sends every track it receives straight back on the same
              PeerConnection (aiortc's MediaRelay: decoded, then encoded again by aiortc), so
              the offering peer measures the round trip through aiortc; waits for the bye
              (at most N seconds after the first frame).
room-offer:   the same as the first peer: offers receive-only video and audio with aiortc's
              own payload types (VP8 is 97), so the answering peer must follow the offer.
whep-serve:   a WHEP endpoint (POST /whep/<any> → 201 + Location, DELETE) serving the same
              synthetic picture and tone to each viewer; prints "listening URL" on stderr.

Every wait is bounded; failures exit 1 with a message on stderr. Run inside a loopback-only
network namespace: aiortc's host discovery skips loopback, so it is told to use 127.0.0.1
(or the addresses in AIORTC_HOST_ADDRESSES).
"""
import argparse
import asyncio
import fractions
import json
import math
import queue
import os
import random
import sys
import time
import uuid

import aioice.ice
import numpy
from aiortc import (RTCConfiguration, RTCIceServer, RTCIceTransportPolicy, RTCPeerConnection, RTCRtpSender,
                    RTCSessionDescription)
from aiortc.contrib.media import MediaRelay
from aiortc.mediastreams import AudioStreamTrack, MediaStreamError, VideoStreamTrack
from av import AudioFrame, VideoFrame

# AIORTC_HOST_ADDRESSES (comma-separated) names other host addresses, e.g. a viewer's private
# address behind a NAT in the NAT tests.
HOST_ADDRESSES = os.environ.get("AIORTC_HOST_ADDRESSES", "127.0.0.1").split(",")
aioice.ice.get_host_addresses = lambda use_ipv4=True, use_ipv6=False: HOST_ADDRESSES


class Failure(Exception):
    pass


def log(msg):
    print(f"aiortc_peer: {msg}", file=sys.stderr, flush=True)


def prefer(pc, codec):
    """Restricts the video transceiver to `codec` (the offer then lists only it)."""
    if not codec:
        return
    for t in pc.getTransceivers():
        if t.kind != "video":
            continue
        caps = RTCRtpSender.getCapabilities("video").codecs
        wanted = [c for c in caps if c.mimeType.lower() == f"video/{codec}"]
        rtx = [c for c in caps if c.mimeType.lower() == "video/rtx"]
        if not wanted:
            raise Failure(f"aiortc has no {codec}")
        t.setCodecPreferences(wanted + rtx)


class MovingPicture(VideoStreamTrack):
    """A bar sweeping across a gray field: each frame differs, and its size is known."""

    def __init__(self, width, height, fps=30):
        super().__init__()
        self.width, self.height, self.fps = width, height, fps
        self.count = 0
        self.start = None

    async def recv(self):
        if self.start is None:
            self.start = time.monotonic()
        due = self.start + self.count / self.fps
        await asyncio.sleep(max(0, due - time.monotonic()))
        img = numpy.full((self.height, self.width, 3), 96, numpy.uint8)
        x = (self.count * 8) % self.width
        img[:, x:x + 32] = (230, 40, 40)
        frame = VideoFrame.from_ndarray(img, format="rgb24")
        frame.pts = self.count * 3000
        frame.time_base = fractions.Fraction(1, 90000)
        self.count += 1
        return frame


class Tone(AudioStreamTrack):
    def __init__(self):
        super().__init__()
        self.samples = 0
        self.start = None

    async def recv(self):
        if self.start is None:
            self.start = time.monotonic()
        n = 960
        due = self.start + self.samples / 48000
        await asyncio.sleep(max(0, due - time.monotonic()))
        t = (numpy.arange(n) + self.samples) / 48000
        pcm = (numpy.sin(2 * math.pi * 440 * t) * 8000).astype(numpy.int16)
        frame = AudioFrame.from_ndarray(pcm.reshape(1, -1), format="s16", layout="mono")
        frame.sample_rate = 48000
        frame.pts = self.samples
        frame.time_base = fractions.Fraction(1, 48000)
        self.samples += n
        return frame


async def gathered(pc, timeout=10):
    end = time.monotonic() + timeout
    while pc.iceGatheringState != "complete":
        if time.monotonic() > end:
            raise Failure("ICE gathering did not complete")
        await asyncio.sleep(0.05)


async def http(method, url, body=None, token=None, timeout=15):
    import aiohttp
    headers = {}
    if body is not None:
        headers["Content-Type"] = "application/sdp"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as s:
        async with s.request(method, url, data=body, headers=headers) as r:
            return r.status, r.headers.copy(), await r.text()  # a multidict: every Link header kept


async def select_layer(url, rid, token=None, timeout=15):
    """WHEP's layer selection: POSTs {"mediaId": "0", "rid": rid} (or without rid for
    "auto") to the session's layer URL; returns (status, body)."""
    import aiohttp
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    body = {"mediaId": "0"} if rid == "auto" else {"mediaId": "0", "rid": rid}
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as s:
        async with s.request("POST", url, data=json.dumps(body), headers=headers) as r:
            return r.status, await r.text()


def link_url(headers, rel, base):
    """The URL of the response's `Link` with relation `rel`, absolute, or None."""
    import re
    for value in headers.getall("Link", []):
        for one in value.split(","):
            m = re.match(r'\s*<([^>]+)>\s*;.*rel="?([^";]+)"?', one)
            if m and m.group(2) == rel:
                u = m.group(1)
                if u.startswith("/"):
                    parts = base.split("/", 3)
                    u = f"{parts[0]}//{parts[2]}{u}"
                return u
    return None


async def patch(url, fragment, etag, token=None, timeout=15):
    """A trickle-ICE PATCH of `fragment` to a session; returns its status."""
    import aiohttp
    headers = {"Content-Type": "application/trickle-ice-sdpfrag", "If-Match": etag or "*"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as s:
        async with s.request("PATCH", url, data=fragment, headers=headers) as r:
            return r.status


MDNS_NAME = None
MDNS = []  # the zeroconf responder, kept for the session


async def hide_addresses(sdp, name):
    """The offer with every IPv4 candidate address replaced by `name`, and a responder that
    answers `name`'s A record with that address (python-zeroconf, on loopback)."""
    from zeroconf import ServiceInfo
    from zeroconf.asyncio import AsyncZeroconf
    import re
    import socket
    addresses = set(re.findall(r"^a=candidate:\S+ \d+ \S+ \d+ (\d+\.\d+\.\d+\.\d+) ", sdp, re.M))
    if len(addresses) != 1:
        raise Failure(f"--mdns-name: expected one candidate address, found {sorted(addresses)}")
    address = addresses.pop()
    zc = AsyncZeroconf(interfaces=[address])
    info = ServiceInfo("_aiortc-test._udp.local.", "interop._aiortc-test._udp.local.", port=9,
                       addresses=[socket.inet_aton(address)], server=name + ".")
    await zc.async_register_service(info)
    MDNS.append(zc)
    return re.sub(r"^(a=candidate:\S+ \d+ \S+ \d+ )" + re.escape(address) + " ", lambda m: m.group(1) + name + " ", sdp, flags=re.M)


async def exchange(pc, url, token, headers_out=None):
    """Non-trickle offer → POST → answer. Returns the session URL (and puts the response's
    headers into headers_out, when given)."""
    await pc.setLocalDescription(await pc.createOffer())
    await gathered(pc)
    offer = pc.localDescription.sdp
    if MDNS_NAME:
        offer = await hide_addresses(offer, MDNS_NAME)
    exchange.posted = time.monotonic()
    status, headers, text = await http("POST", url, offer, token)
    if status != 201:
        raise Failure(f"POST {url} answered {status}: {text.strip()[:800]}")
    if headers_out is not None:
        headers_out.update(headers)
    exchange.headers = headers
    await pc.setRemoteDescription(RTCSessionDescription(sdp=text, type="answer"))
    location = headers.get("Location", "")
    if location.startswith("/"):
        base = url.split("/", 3)
        location = f"{base[0]}//{base[2]}{location}"
    return location, text


def configuration(args):
    """--turn turn://user:pass@host:port and --relay-only as aiortc's RTCConfiguration."""
    servers = []
    for url in args.turn:
        scheme, rest = url.split("://", 1) if "://" in url else url.split(":", 1)
        creds, _, address = rest.rpartition("@")
        user, _, password = creds.partition(":")
        servers.append(RTCIceServer(urls=f"{scheme}:{address}", username=user or None, credential=password or None))
    policy = RTCIceTransportPolicy.RELAY if args.relay_only else RTCIceTransportPolicy.ALL
    return RTCConfiguration(iceServers=servers or None, iceTransportPolicy=policy)


def ice_path(transceiver):
    """The nominated pair's candidate types, local -> remote (aioice's own state)."""
    try:
        pair = transceiver.receiver.transport.transport._connection._nominated.get(1)
        return f"{pair.local_candidate.type} -> {pair.remote_candidate.type}" if pair else None
    except AttributeError:
        return None


def colour_name(rgb):
    """red, green, blue, white, black or other, for one RGB pixel."""
    r, g, b = (int(v) for v in rgb)
    for name, want in (("red", (1, 0, 0)), ("green", (0, 1, 0)), ("blue", (0, 0, 1)), ("white", (1, 1, 1)), ("black", (0, 0, 0))):
        if all((v > 180) if w else (v < 70) for v, w in zip((r, g, b), want)):
            return name
    return "other"


def picture_name(frame):
    """What a frame shows, from three pixels on its middle row: one colour's name, `bars`
    (SMPTE colour bars: white, green, blue from left to right) or `mixed`."""
    rgb = frame.to_ndarray(format="rgb24")
    row = rgb[frame.height // 2]
    names = [colour_name(row[int(frame.width * x)]) for x in (0.07, 0.5, 0.93)]
    if names == ["white", "green", "blue"]:
        return "bars"
    return names[0] if len(set(names)) == 1 else "mixed"


async def whep_play(args):
    pc = RTCPeerConnection(configuration(args))
    stats = {"video_frames": 0, "audio_frames": 0, "width": 0, "height": 0, "max_gap_ms": 0}
    lumas = []
    pictures = []  # [what it shows, ms after the first frame, frames] per change
    first = {}
    done = asyncio.Event()
    video = pc.addTransceiver("video", direction="recvonly")
    if not args.no_audio:
        pc.addTransceiver("audio", direction="recvonly")
    prefer(pc, args.codec)
    rtp = {"rtp_packets": 0, "rtp_dropped": 0}
    receive, lossy = video.receiver._handle_rtp_packet, random.Random(7)

    async def counted(packet, arrival_time_ms):
        """Counts the video RTP packets that arrive (RTX included) and, with --drop, loses
        that share of them as a lossy link would: aiortc then NACKs and reports the loss."""
        rtp["rtp_packets"] += 1
        if lossy.random() < args.drop:
            rtp["rtp_dropped"] += 1
            return
        await receive(packet, arrival_time_ms)
    video.receiver._handle_rtp_packet = counted

    async def read_video(track):
        while True:
            try:
                frame = await track.recv()
            except MediaStreamError:
                return
            now = time.monotonic()
            stats["video_frames"] += 1
            stats["width"], stats["height"] = frame.width, frame.height
            if "video" not in first:
                first["video"] = now
            if "last" in first:
                stats["max_gap_ms"] = max(stats["max_gap_ms"], round((now - first["last"]) * 1000))
            first["last"] = now
            if args.pictures:
                name = picture_name(frame)
                if not pictures or pictures[-1][0] != name:
                    pictures.append([name, round((now - first["video"]) * 1000), 0])
                pictures[-1][2] += 1
            y = frame.to_ndarray(format="gray")
            lumas.append(y[::8, ::8].astype(numpy.float32))
            if len(lumas) > 2:
                lumas.pop(1)  # keep the first and the latest
            if now - first["video"] >= args.seconds:
                done.set()
                return

    async def read_audio(track):
        while True:
            try:
                await track.recv()
            except MediaStreamError:
                return
            stats["audio_frames"] += 1

    @pc.on("track")
    def on_track(track):
        asyncio.ensure_future(read_video(track) if track.kind == "video" else read_audio(track))

    answer_headers = {}
    location, answer = await exchange(pc, args.url, args.token, answer_headers)
    posted = exchange.posted  # first_frame_ms counts from the POST, as WHEP clients see it
    selections = []
    chooser = None
    if args.select_layers:
        layer_url = link_url(exchange.headers, "urn:ietf:params:whep:ext:core:layer", args.url)
        chooser = asyncio.ensure_future(choose_layers(layer_url, args.select_layers.split(","), stats, first, selections, args.token))
    try:
        await asyncio.wait_for(done.wait(), args.seconds + args.timeout)
        if chooser:
            await asyncio.wait_for(chooser, args.timeout + 30)
    except asyncio.TimeoutError:
        pass
    path = ice_path(video)
    ice_state = pc.iceConnectionState  # before close(), which makes it "closed"
    if location:
        await http("DELETE", location, token=args.token)
    end = time.monotonic()
    await pc.close()
    if "video" not in first:
        raise Failure(f"no video frame decoded within {args.seconds + args.timeout} s "
                      f"(ICE {ice_state}, path {path}, {stats['audio_frames']} audio frames, RTP {rtp}); "
                      f"the answer was:\n{answer}")
    span = max(1e-3, end - first["video"])
    # Frames of different sizes (a layer switch) differ by definition.
    moved = bool(len(lumas) == 2 and (lumas[0].shape != lumas[1].shape or float(numpy.abs(lumas[0] - lumas[1]).mean()) > 1.0))
    out = dict(stats, **rtp, fps=round((stats["video_frames"] - 1) / span, 1),
               first_frame_ms=round((first["video"] - posted) * 1000),
               mean_luma=round(float(lumas[-1].mean()), 1), picture_moves=moved, path=path, pictures=pictures,
               answer_ssrc_lines=[l for l in answer.splitlines() if l.startswith("a=ssrc")], layer_selections=selections,
               answer_fingerprints=sorted({l.split(" ", 1)[1] for l in answer.splitlines()
                                           if l.startswith("a=fingerprint:sha-256 ")}))
    print(json.dumps(out), flush=True)


async def choose_layers(url, rids, stats, first, out, token):
    """--select-layers: once video plays, asks for each layer in turn through WHEP's layer
    selection and, after a 200, waits (up to 8 s) for the decoded size to change and then
    for 10 frames at the new size; appends {rid, status, body, width, height, ms} to `out`."""
    while "video" not in first:
        await asyncio.sleep(0.05)
    for rid in rids:
        entry = {"rid": rid}
        if url is None:
            entry["status"] = None
            out.append(entry)
            continue
        before, t0 = (stats["width"], stats["height"]), time.monotonic()
        entry["status"], body = await select_layer(url, rid, token)
        entry["body"] = body.strip()[:300]
        if entry["status"] == 200 and rid != "auto":
            while time.monotonic() - t0 < 8 and (stats["width"], stats["height"]) == before:
                await asyncio.sleep(0.02)
            entry["ms"] = round((time.monotonic() - t0) * 1000)
            frames = stats["video_frames"]
            while time.monotonic() - t0 < 12 and stats["video_frames"] < frames + 10:
                await asyncio.sleep(0.02)
        entry["width"], entry["height"] = stats["width"], stats["height"]
        out.append(entry)


async def whip_publish(args):
    w, h = map(int, args.size.split("x"))
    pc = RTCPeerConnection()
    video = MovingPicture(w, h)
    pc.addTransceiver(video, direction="sendonly")
    pc.addTransceiver(Tone(), direction="sendonly")
    prefer(pc, args.codec)
    location, _ = await exchange(pc, args.url, args.token)
    end = time.monotonic() + args.timeout
    while pc.connectionState != "connected":
        if time.monotonic() > end or pc.connectionState == "failed":
            raise Failure(f"not connected (connection {pc.connectionState})")
        await asyncio.sleep(0.05)
    sent0 = video.count
    await asyncio.sleep(args.seconds)
    sent = video.count - sent0
    if location:
        await http("DELETE", location, token=args.token)
    await pc.close()
    print(json.dumps({"video_frames_sent": sent, "connection": "connected", "size": args.size}), flush=True)


class _CountingDecoderQueue:
    """Stands in for an aiortc receiver's decoder queue: counts the encoded frames the jitter
    buffer completes (and VP8 keyframes, with when they came) instead of decoding them. The
    decoder thread still starts and waits on it; the None that stops it is passed on."""

    def __init__(self, on_frame):
        self._stop = queue.Queue()
        self._on_frame = on_frame

    def put(self, item):
        if item is None:
            self._stop.put(None)
        else:
            self._on_frame(item[1])

    def get(self, *args, **kwargs):
        return self._stop.get(*args, **kwargs)


class _Viewer:
    """What one crowd viewer saw of its video stream."""

    def __init__(self):
        self.frames = 0            # decoded pictures (decoding viewers only)
        self.encoded = 0           # complete encoded frames (the others)
        self.packets = 0           # video RTP packets, RTX included
        self.seqs = set()          # sequence numbers of the video stream, retransmissions included
        self.ssrc = None
        self.last_arrival = None
        self.max_gap = 0.0         # seconds between two video packets, once media flows
        self.pli_at = None         # a PLI sent and not yet answered by a keyframe
        self.pli_answers = []      # seconds from each PLI to the next keyframe
        self.location = None       # the session URL
        self.patch_status = None   # the trickle PATCH's status (--patch)
        self.delete_status = None  # the DELETE's status

    def keyframe(self):
        if self.pli_at is not None:
            self.pli_answers.append(time.monotonic() - self.pli_at)
            self.pli_at = None


async def whep_crowd(args):
    """N viewers of one stream. Each counts what the server controls: video RTP packets and
    their sequence numbers (continuity, retransmissions included), the longest silence
    between two packets, and, for the viewers that do not decode, whether a keyframe follows
    each PLI it sends. Only the first --decode viewers decode pictures: one Python process
    decoding dozens of streams on two cores measures aiortc, not the server. Not `getStats()`:
    aiortc 1.16 reports one inbound-rtp entry per receiver whatever the SSRC, so once a
    retransmission arrives on the RTX SSRC its `packetsReceived` is the RTX stream's count."""
    seen = [_Viewer() for _ in range(args.viewers)]

    async def one(i):
        v = seen[i]
        pc = RTCPeerConnection()
        video = pc.addTransceiver("video", direction="recvonly")
        pc.addTransceiver("audio", direction="recvonly")
        receiver = video.receiver
        receive = receiver._handle_rtp_packet

        async def counted(packet, arrival_time_ms):
            v.packets += 1
            rtx = receiver._RTCRtpReceiver__rtx_ssrc
            if packet.ssrc in rtx and len(packet.payload) >= 2:
                v.seqs.add(int.from_bytes(packet.payload[:2], "big"))  # the repaired packet's number
            elif packet.ssrc not in rtx:
                v.ssrc = packet.ssrc
                v.seqs.add(packet.sequence_number)
            now = time.monotonic()
            if v.last_arrival is not None:
                v.max_gap = max(v.max_gap, now - v.last_arrival)
            v.last_arrival = now
            await receive(packet, arrival_time_ms)
        receiver._handle_rtp_packet = counted

        if i >= args.decode:
            def on_frame(frame):
                v.encoded += 1
                if frame.data and frame.data[0] & 1 == 0:  # VP8: the inverted key-frame bit
                    v.keyframe()
            receiver._RTCRtpReceiver__decoder_queue = _CountingDecoderQueue(on_frame)

        @pc.on("track")
        def on_track(track):
            async def drain():
                while True:
                    try:
                        await track.recv()
                    except MediaStreamError:
                        return
                    if track.kind == "video":
                        v.frames += 1
            asyncio.ensure_future(drain())
        headers = {}
        location, _ = await exchange(pc, args.url, args.token, headers)
        if args.patch:
            # A trickle PATCH (RFC 8840): the end of this viewer's candidates, to its session.
            fragment = "a=ice-ufrag:x\r\na=ice-pwd:xxxxxxxxxxxxxxxxxxxxxx\r\nm=audio 9 UDP/TLS/RTP/SAVPF 0\r\na=mid:0\r\na=end-of-candidates\r\n"
            v.patch_status = await patch(location, fragment, headers.get("ETag") or headers.get("Etag"), args.token)
        v.location = location
        return pc, location, receiver

    viewers = await asyncio.gather(*[one(i) for i in range(args.viewers)])
    end = time.monotonic() + args.timeout
    while not all(pc.connectionState == "connected" for pc, _, _ in viewers):
        if time.monotonic() > end:
            raise Failure(f"not all viewers connected: {[pc.connectionState for pc, _, _ in viewers]}")
        await asyncio.sleep(0.1)
    log(f"all {len(viewers)} viewers connected")
    if args.no_delete:
        print("connected", flush=True)
        await asyncio.sleep(3600)

    async def ask_keyframes(i, receiver):
        """Two PLIs per counting viewer, spread over the run."""
        for at in (1.0 + 0.05 * i, args.seconds / 2 + 0.05 * i):
            await asyncio.sleep(max(0.0, started + at - time.monotonic()))
            if seen[i].ssrc is not None and seen[i].pli_at is None:
                seen[i].pli_at = time.monotonic()
                await receiver._send_rtcp_pli(seen[i].ssrc)
    started = time.monotonic()
    for v in seen:
        v.max_gap = 0.0  # silences while connecting do not count
    asks = [asyncio.ensure_future(ask_keyframes(i, r)) for i, (_, _, r) in enumerate(viewers) if i >= args.decode]
    await asyncio.sleep(args.seconds - 2)
    before = [(v.frames, v.packets) for v in seen]
    await asyncio.sleep(2)
    await asyncio.gather(*asks)
    for v, (pc, location, _) in zip(seen, viewers):
        if location:
            try:
                v.delete_status = (await http("DELETE", location, token=args.token))[0]
            except Exception as e:  # a replica that is gone: its proxy's error, or none
                v.delete_status = str(e)[:80]
        await pc.close()

    def missing(v):
        return (max(v.seqs) - min(v.seqs) + 1 - len(v.seqs)) if v.seqs else None
    print(json.dumps({"viewers": len(viewers), "decoding": min(args.decode, len(viewers)),
                      "frames_last_2s": [v.frames - b[0] for v, b in zip(seen, before)][:args.decode],
                      "frames": [v.frames for v in seen][:args.decode],
                      "encoded_frames": [v.encoded for v in seen][args.decode:],
                      "packets_last_2s": [v.packets - b[1] for v, b in zip(seen, before)],
                      "packets": [v.packets for v in seen],
                      "seq_missing": [missing(v) for v in seen],
                      "max_gap_ms": [round(v.max_gap * 1000) for v in seen],
                      "pli_answered_ms": [[round(a * 1000) for a in v.pli_answers] for v in seen][args.decode:],
                      "pli_unanswered": [int(v.pli_at is not None) for v in seen][args.decode:],
                      "locations": [v.location for v in seen], "patch_status": [v.patch_status for v in seen],
                      "delete_status": [v.delete_status for v in seen]}), flush=True)


async def room_call(args):
    """The room protocol in a few lines: aiortc does not speak it, so the test does."""
    import aiohttp
    from aiortc.sdp import candidate_from_sdp
    base = args.url.rstrip("/")
    pc = RTCPeerConnection()
    stats = {"video_frames": 0, "audio_frames": 0, "width": 0, "height": 0}
    lumas, first, done = [], {}, asyncio.Event()

    async def read(track):
        while True:
            try:
                frame = await track.recv()
            except MediaStreamError:
                return
            if track.kind != "video":
                stats["audio_frames"] += 1
                continue
            stats["video_frames"] += 1
            stats["width"], stats["height"] = frame.width, frame.height
            first.setdefault("video", time.monotonic())
            lumas.append(frame.to_ndarray(format="gray")[::8, ::8].astype(numpy.float32))
            if len(lumas) > 2:
                lumas.pop(1)
            if time.monotonic() - first["video"] >= args.seconds:
                done.set()

    echo = args.mode == "room-echo"
    relay = MediaRelay() if echo else None

    def on_track(track):
        if echo:
            # Back on the same transceiver: added before the answer, it makes it sendrecv.
            pc.addTrack(relay.subscribe(track))
            track = relay.subscribe(track)
        asyncio.ensure_future(read(track))

    pc.on("track", on_track)
    bye = asyncio.Event()
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=args.timeout)) as http_s:
        async with http_s.post(f"{base}/join/{args.room}") as r:
            joined = json.loads(await r.text())
        if joined.get("result") != "SUCCESS":
            raise Failure(f"join answered {joined}")
        params = joined["params"]
        client = params["client_id"]
        offers = args.mode == "room-offer"
        if (params["is_initiator"] == "true") != offers:
            raise Failure("joined first: this peer only answers; start the offering peer first" if not offers
                          else "joined second: this peer only offers; start it before the answering peer")
        ws = await http_s.ws_connect(params["wss_url"])
        await ws.send_str(json.dumps({"cmd": "register", "roomid": args.room, "clientid": client}))

        async def send(msg):
            await ws.send_str(json.dumps({"cmd": "send", "msg": json.dumps(msg)}))

        async def handle(msg):
            if msg.get("type") == "offer":
                await pc.setRemoteDescription(RTCSessionDescription(sdp=msg["sdp"], type="offer"))
                await pc.setLocalDescription(await pc.createAnswer())
                await gathered(pc)
                await send({"type": "answer", "sdp": pc.localDescription.sdp})
            elif msg.get("type") == "answer" and offers:
                await pc.setRemoteDescription(RTCSessionDescription(sdp=msg["sdp"], type="answer"))
            elif msg.get("type") == "bye":
                bye.set()
            elif msg.get("type") == "candidate" and msg.get("candidate"):
                c = candidate_from_sdp(msg["candidate"].split(":", 1)[1])
                c.sdpMLineIndex = msg.get("label", 0)
                await pc.addIceCandidate(c)

        if offers:
            # aiortc's own payload types (VP8 97): the answering Sluice must follow them.
            pc.addTransceiver("video", direction="recvonly")
            pc.addTransceiver("audio", direction="recvonly")
            await pc.setLocalDescription(await pc.createOffer())
            await gathered(pc)
            await send({"type": "offer", "sdp": pc.localDescription.sdp})
        for queued in params.get("messages", []):
            await handle(json.loads(queued))

        async def listen():
            async for m in ws:
                body = json.loads(m.data)
                if body.get("msg"):
                    await handle(json.loads(body["msg"]))
        listener = asyncio.ensure_future(listen())
        joined_at = time.monotonic()
        try:
            # The echo lasts until the other peer says bye; the others until N seconds of video.
            await asyncio.wait_for((bye if echo else done).wait(), args.seconds + args.timeout)
        except asyncio.TimeoutError:
            pass
        listener.cancel()
        await send({"type": "bye"})
        await http_s.post(f"{base}/leave/{args.room}/{client}")
        await ws.close()
    await pc.close()
    if "video" not in first:
        raise Failure(f"no video frame decoded (ICE {pc.iceConnectionState})")
    span = max(1e-3, time.monotonic() - first["video"])
    # Frames of different sizes (a layer switch) differ by definition.
    moved = bool(len(lumas) == 2 and (lumas[0].shape != lumas[1].shape or float(numpy.abs(lumas[0] - lumas[1]).mean()) > 1.0))
    print(json.dumps(dict(stats, fps=round((stats["video_frames"] - 1) / span, 1), picture_moves=moved,
                          first_frame_ms=round((first["video"] - joined_at) * 1000))), flush=True)


def only_video_codec(sdp, codec):
    """The offer as an answerer that knows only `codec` for video sees it: other video
    formats, and RTX formats repairing them, are removed (with their attributes)."""
    nl = "\r\n" if "\r\n" in sdp else "\n"
    parts = sdp.split(nl + "m=")
    out = [parts[0]]
    for sec in parts[1:]:
        lines = sec.split(nl)
        if not lines[0].startswith("video"):
            out.append(sec)
            continue
        names = {}
        apt = {}
        for l in lines:
            if l.startswith("a=rtpmap:"):
                pt, rest = l[9:].split(" ", 1)
                names[pt] = rest.split("/")[0].lower()
            if l.startswith("a=fmtp:") and "apt=" in l:
                pt = l[7:].split(" ", 1)[0]
                apt[pt] = l.split("apt=")[1].split(";")[0].strip()
        keep = {pt for pt, n in names.items() if n == codec}
        keep |= {pt for pt, a in apt.items() if a in keep and names.get(pt) == "rtx"}
        m = lines[0].split()
        lines[0] = " ".join(m[:3] + [pt for pt in m[3:] if pt in keep])

        def wanted(l):
            for attr in ("a=rtpmap:", "a=fmtp:", "a=rtcp-fb:"):
                if l.startswith(attr):
                    return l[len(attr):].split(" ", 1)[0] in keep
            return True
        out.append(nl.join(l for l in lines if wanted(l)))
    return (nl + "m=").join(out)


async def whep_serve(args):
    from aiohttp import web
    w, h = map(int, args.size.split("x"))
    sessions = {}

    async def post(request):
        offer = await request.text()
        if args.only_codec:
            offer = only_video_codec(offer, args.codec)
        pc = RTCPeerConnection()
        await pc.setRemoteDescription(RTCSessionDescription(sdp=offer, type="offer"))
        for t in pc.getTransceivers():
            if t.kind == "video":
                t.sender.replaceTrack(MovingPicture(w, h))
                t.direction = "sendonly"
            elif t.kind == "audio":
                t.sender.replaceTrack(Tone())
                t.direction = "sendonly"
        prefer(pc, args.codec)
        await pc.setLocalDescription(await pc.createAnswer())
        await gathered(pc)
        # What the answer chose for video, and whether it pairs RTX with it (tests check that
        # an offerer's RTX for a codec other than its first reaches the answer).
        video = pc.localDescription.sdp.split("m=video", 1)[-1].split("\nm=", 1)[0]
        mline = video.split("\n", 1)[0].split()
        chosen = mline[2] if len(mline) > 2 else None
        names = dict(l[len("a=rtpmap:"):].strip().split(" ", 1) for l in video.splitlines() if l.startswith("a=rtpmap:"))
        rtx = any(l.strip().endswith(f"apt={chosen}") for l in video.splitlines() if l.startswith("a=fmtp:"))
        print("ANSWER_VIDEO " + json.dumps({"codec": names.get(chosen, "").split("/")[0], "rtx": rtx}), flush=True)
        sid = uuid.uuid4().hex
        sessions[sid] = pc
        return web.Response(status=201, text=pc.localDescription.sdp, content_type="application/sdp",
                            headers={"Location": f"/whep/session/{sid}"})

    async def delete(request):
        pc = sessions.pop(request.match_info["sid"], None)
        if pc is None:
            return web.Response(status=404)
        await pc.close()
        print("DELETED " + request.match_info["sid"], flush=True)
        return web.Response(status=200)

    app = web.Application()
    app.router.add_post("/whep/{name}", post)
    app.router.add_delete("/whep/session/{sid}", delete)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", args.port)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    log(f"listening http://127.0.0.1:{port}/whep/aiortc")
    await asyncio.sleep(args.seconds)
    for pc in sessions.values():
        await pc.close()
    await runner.cleanup()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["whep-play", "whip-publish", "whep-serve", "whep-crowd", "room-answer", "room-offer", "room-echo"])
    p.add_argument("url", nargs="?")
    p.add_argument("--token")
    p.add_argument("--select-layers", help="whep-play: once video plays, ask for these layers in turn (WHEP layer selection; 'auto' lets the server choose)")
    p.add_argument("--seconds", type=float, default=5)
    p.add_argument("--timeout", type=float, default=15)
    p.add_argument("--codec", choices=["vp8", "h264"])
    p.add_argument("--only-codec", action="store_true",
                   help="whep-serve: answer as a stack that knows only --codec for video")
    p.add_argument("--size", default="640x360")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--no-audio", action="store_true")
    p.add_argument("--viewers", type=int, default=10)
    p.add_argument("--decode", type=int, default=1 << 30, help="whep-crowd: only the first N viewers decode pictures")
    p.add_argument("--room", default="interop")
    p.add_argument("--no-delete", action="store_true")
    p.add_argument("--patch", action="store_true", help="whep-crowd: each viewer PATCHes end-of-candidates to its session")
    p.add_argument("--drop", type=float, default=0.0, help="whep-play: share of video RTP packets to lose")
    p.add_argument("--pictures", action="store_true",
                   help="whep-play: report what the picture shows over time (colour or bars, when it changed)")
    p.add_argument("--mdns-name", help="whep-play/whip-publish: write this .local name instead of the candidates' address")
    p.add_argument("--turn", action="append", default=[], help="whep-play: a TURN server, turn://user:pass@host:port")
    p.add_argument("--relay-only", action="store_true", help="whep-play: relayed candidates only (needs --turn)")
    args = p.parse_args()
    if args.mode != "whep-serve" and not args.url:
        p.error("URL is required")
    global MDNS_NAME
    MDNS_NAME = args.mdns_name
    run = {"whep-play": whep_play, "whip-publish": whip_publish, "whep-serve": whep_serve,
           "whep-crowd": whep_crowd, "room-answer": room_call, "room-offer": room_call, "room-echo": room_call}[args.mode]
    try:
        asyncio.run(asyncio.wait_for(run(args), args.seconds + args.timeout + 30
                                     if args.mode not in ("whep-serve", "whep-crowd") or
                                     (args.mode == "whep-crowd" and not args.no_delete) else None))
    except Failure as e:
        log(str(e))
        sys.exit(1)
    except asyncio.TimeoutError:
        log("timed out")
        sys.exit(1)


if __name__ == "__main__":
    main()
