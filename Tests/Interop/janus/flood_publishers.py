#!/usr/bin/env python3
"""Floods a Janus VideoRoom with publishers: aiortc PeerConnections, each publishing a tiny picture.

    flood_publishers.py WS_URL ROOM COUNT [--first-id N] [--hold-until PATH] [--timeout T]

One Janus session over the WebSocket API (subprotocol janus-protocol); COUNT handles, each
joining ROOM as a publisher with id FIRST_ID + i and display name `flood-i`, and publishing
one VP8 video track of 64x48 at 5 frames a second whose colour tells the publishers apart.
Publishers start 8 at a time. Prints one JSON line when every publisher has an answer (or an
error): {"published": n, "refused": [Janus's errors]}; then keeps them publishing (keepalives
every 10 s) until PATH exists, bounded by --timeout. Run inside a network namespace whose
only route to Janus is the test's.
"""
import argparse
import asyncio
import fractions
import json
import os
import random
import string
import sys
import time

import aiohttp
import numpy
from aiortc import MediaStreamTrack, RTCPeerConnection, RTCSessionDescription
from av import VideoFrame


class Tiny(MediaStreamTrack):
    """64x48, 5 frames a second, one colour per publisher."""
    kind = "video"

    def __init__(self, index):
        super().__init__()
        self.colour = ((index * 37) % 256, (index * 91) % 256, (index * 53) % 256)
        self.start = None
        self.count = 0

    async def recv(self):
        if self.start is None:
            self.start = time.time()
        due = self.start + self.count / 5
        await asyncio.sleep(max(0, due - time.time()))
        picture = numpy.zeros((48, 64, 3), numpy.uint8)
        picture[:, :] = self.colour
        frame = VideoFrame.from_ndarray(picture, format="rgb24")
        frame.pts = self.count * 18000
        frame.time_base = fractions.Fraction(1, 90000)
        self.count += 1
        return frame


class Janus:
    def __init__(self, ws):
        self.ws = ws
        self.waiting = {}
        self.events = {}

    def transaction(self):
        return "".join(random.choice(string.ascii_letters) for _ in range(12))

    async def pump(self):
        async for msg in self.ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            body = json.loads(msg.data)
            t = body.get("transaction")
            kind = body.get("janus")
            if t in self.waiting and kind != "ack":
                self.waiting.pop(t).set_result(body)

    async def request(self, body, timeout=20):
        t = self.transaction()
        body["transaction"] = t
        future = asyncio.get_running_loop().create_future()
        self.waiting[t] = future
        await self.ws.send_str(json.dumps(body))
        return await asyncio.wait_for(future, timeout)


async def publish(janus, session, room, index, ident, pcs):
    attached = await janus.request({"janus": "attach", "session_id": session, "plugin": "janus.plugin.videoroom"})
    handle = attached["data"]["id"]
    joined = await janus.request({"janus": "message", "session_id": session, "handle_id": handle,
                                  "body": {"request": "join", "ptype": "publisher", "room": room,
                                           "id": ident, "display": f"flood-{index}"}})
    data = joined.get("plugindata", {}).get("data", {})
    if data.get("error_code"):
        return f"join: {data.get('error')} ({data.get('error_code')})"
    pc = RTCPeerConnection()
    pcs.append(pc)
    pc.addTrack(Tiny(index))
    await pc.setLocalDescription(await pc.createOffer())
    answer = await janus.request({"janus": "message", "session_id": session, "handle_id": handle,
                                  "body": {"request": "publish", "display": f"flood-{index}"},
                                  "jsep": {"type": "offer", "sdp": pc.localDescription.sdp}})
    data = answer.get("plugindata", {}).get("data", {})
    if data.get("error_code"):
        return f"publish: {data.get('error')} ({data.get('error_code')})"
    jsep = answer.get("jsep")
    if not jsep:
        return f"publish: no answer ({json.dumps(answer)[:200]})"
    await pc.setRemoteDescription(RTCSessionDescription(sdp=jsep["sdp"], type=jsep["type"]))
    return None


async def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("server")
    p.add_argument("room", type=int)
    p.add_argument("count", type=int)
    p.add_argument("--first-id", type=int, default=1000)
    p.add_argument("--hold-until")
    p.add_argument("--timeout", type=float, default=60)
    args = p.parse_args()
    deadline = time.time() + args.timeout
    pcs = []
    async with aiohttp.ClientSession() as http:
        async with http.ws_connect(args.server, protocols=("janus-protocol",)) as ws:
            janus = Janus(ws)
            pump = asyncio.create_task(janus.pump())
            created = await janus.request({"janus": "create"})
            session = created["data"]["id"]
            results = []
            for start in range(0, args.count, 8):
                batch = range(start, min(args.count, start + 8))
                results += await asyncio.gather(*(publish(janus, session, args.room, i, args.first_id + i, pcs) for i in batch),
                                                return_exceptions=True)
            refused = [str(r) for r in results if r is not None]
            # Wait until the published PeerConnections are connected (bounded).
            while time.time() < deadline and any(pc.connectionState in ("new", "connecting") for pc in pcs):
                await asyncio.sleep(0.1)
            connected = sum(1 for pc in pcs if pc.connectionState == "connected")
            print(json.dumps({"published": args.count - len(refused), "connected": connected, "refused": refused}), flush=True)
            while args.hold_until and not os.path.exists(args.hold_until) and time.time() < deadline:
                await janus.ws.send_str(json.dumps({"janus": "keepalive", "session_id": session, "transaction": janus.transaction()}))
                for _ in range(100):
                    if os.path.exists(args.hold_until) or time.time() >= deadline:
                        break
                    await asyncio.sleep(0.1)
            for pc in pcs:
                await pc.close()
            try:
                await janus.request({"janus": "destroy", "session_id": session}, timeout=5)
            except Exception:
                pass
            pump.cancel()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
