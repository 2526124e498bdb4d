#!/usr/bin/env python3
"""aiortc subscribing to one publisher of a Janus VideoRoom, through Janus's HTTP API.

    aiortc_subscriber.py HTTP_BASE ROOM DISPLAY [--seconds S] [--timeout T]

HTTP_BASE is Janus's HTTP transport (http://127.0.0.1:8088/janus). Finds the publisher named
DISPLAY (listparticipants, every 100 ms until it publishes), joins as a subscriber to its
streams, answers Janus's offer with aiortc, receives for S seconds (default 6) and prints one
JSON line: the frames aiortc decoded per kind, the RTP packets its receivers got per kind
(getStats), and the connection's state. Decoding is aiortc's own (libvpx, Opus); a picture it
cannot decode is no frame. Exits 1 with a message on stderr when Janus refuses or a wait
passes its timeout (T, default 15 s). Run inside the test's network namespace.
"""
import argparse
import asyncio
import json
import secrets
import sys
import time
import urllib.request

from aiortc import RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import MediaStreamError


def post(url, body):
    body["transaction"] = secrets.token_hex(6)
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def get(url):
    with urllib.request.urlopen(url, timeout=35) as response:
        return json.load(response)


def fail(message):
    print(f"aiortc_subscriber: {message}", file=sys.stderr, flush=True)
    sys.exit(1)


def find_publisher(base, handle, room, display, timeout):
    """The feed ID of the participant named `display` once it publishes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        answer = post(handle, {"janus": "message", "body": {"request": "listparticipants", "room": room}})
        for p in answer.get("plugindata", {}).get("data", {}).get("participants", []):
            if p.get("display") == display and p.get("publisher"):
                return p["id"]
        time.sleep(0.1)
    fail(f"no publisher named {display} in room {room} within {timeout} s")


def offer_of(base, session, timeout):
    """Janus's offer for the subscription, from the session's events."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        event = get(f"{base}/{session}?maxev=1")
        if event.get("janus") == "event" and event.get("jsep", {}).get("type") == "offer":
            return event["jsep"]["sdp"]
        if event.get("plugindata", {}).get("data", {}).get("error"):
            fail(f"Janus refused the subscription: {event}")
    fail(f"no offer from Janus within {timeout} s")


async def subscribe(args):
    loop = asyncio.get_running_loop()
    base = args.base.rstrip("/")
    session = (await loop.run_in_executor(None, post, base, {"janus": "create"}))["data"]["id"]
    attached = await loop.run_in_executor(None, post, f"{base}/{session}", {"janus": "attach", "plugin": "janus.plugin.videoroom"})
    handle = f"{base}/{session}/{attached['data']['id']}"
    feed = await loop.run_in_executor(None, find_publisher, base, handle, args.room, args.display, args.timeout)
    join = {"request": "join", "ptype": "subscriber", "room": args.room, "streams": [{"feed": feed}]}
    await loop.run_in_executor(None, post, handle, {"janus": "message", "body": join})
    offer = await loop.run_in_executor(None, offer_of, base, session, args.timeout)

    pc = RTCPeerConnection()
    frames = {"video": 0, "audio": 0}

    async def consume(track):
        try:
            while True:
                await track.recv()
                frames[track.kind] += 1
        except MediaStreamError:
            pass

    pc.on("track", lambda track: asyncio.ensure_future(consume(track)))
    await pc.setRemoteDescription(RTCSessionDescription(sdp=offer, type="offer"))
    await pc.setLocalDescription(await pc.createAnswer())
    start = {"janus": "message", "body": {"request": "start"}, "jsep": {"type": "answer", "sdp": pc.localDescription.sdp}}
    await loop.run_in_executor(None, post, handle, start)
    await asyncio.sleep(args.seconds)
    packets = {}
    for s in (await pc.getStats()).values():
        if s.type == "inbound-rtp":
            packets[s.kind] = packets.get(s.kind, 0) + s.packetsReceived
    out = {"frames": dict(frames), "packets": packets, "connection": pc.connectionState}
    await pc.close()
    await loop.run_in_executor(None, post, f"{base}/{session}", {"janus": "destroy"})
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("base")
    p.add_argument("room", type=int)
    p.add_argument("display")
    p.add_argument("--seconds", type=float, default=6)
    p.add_argument("--timeout", type=float, default=15)
    args = p.parse_args()
    print(json.dumps(asyncio.run(subscribe(args))), flush=True)


if __name__ == "__main__":
    main()
