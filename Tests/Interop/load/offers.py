#!/usr/bin/env python3
"""Prints real aiortc offers for load tests: `offers.py whep` (recvonly video+audio) or
`offers.py whip` (sendonly video+audio), complete with a 127.0.0.1 candidate."""
import asyncio
import sys

import aioice.ice
from aiortc import RTCPeerConnection
from aiortc.mediastreams import AudioStreamTrack, VideoStreamTrack

aioice.ice.get_host_addresses = lambda use_ipv4=True, use_ipv6=False: ["127.0.0.1"]


async def main(kind):
    pc = RTCPeerConnection()
    if kind == "whep":
        pc.addTransceiver("video", direction="recvonly")
        pc.addTransceiver("audio", direction="recvonly")
    else:
        pc.addTransceiver(VideoStreamTrack(), direction="sendonly")
        pc.addTransceiver(AudioStreamTrack(), direction="sendonly")
    await pc.setLocalDescription(await pc.createOffer())
    while pc.iceGatheringState != "complete":
        await asyncio.sleep(0.05)
    sys.stdout.write(pc.localDescription.sdp)
    await pc.close()

asyncio.run(main(sys.argv[1]))
