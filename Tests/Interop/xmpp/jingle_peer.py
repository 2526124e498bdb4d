#!/usr/bin/env python3
"""A foreign Jingle client for Sluice's XMPP tests: slixmpp (PyPI) logs in, aiortc (PyPI) makes
the media. Neither speaks Jingle's RTP applications, so the SDP <-> Jingle mapping below is the
test's own, written from XEP-0166/0167/0176/0320/0338/0339/0343 — not Sluice's code.

    jingle_peer.py answer  --jid carol@localhost/aiortc --password PW --server 127.0.0.1:PORT --ca CERT
                           [--seconds N] [--timeout T]
    jingle_peer.py hostile --jid ... --peer FULLJID

answer:  waits for a session-initiate (after answering an XEP-0353 propose with proceed, if one
         comes), acknowledges it, gives the offer to aiortc, sends session-accept built from
         aiortc's answer (its gathered candidates inside), adds the transport-info candidates
         that trickle in, decodes the video for N seconds after its first frame, then sends
         session-terminate <success/>. Prints one JSON line: frames, width, height, the first
         frame's mean RGB, fps, whether the picture moves, the Jingle actions it received, and
         what arrived on data channels.
hostile: sends Sluice (a callee at FULLJID) stanzas it must refuse, and prints one JSON line
         mapping each case to the reply: "result", or the error condition and Jingle condition.

Every wait is bounded; failures exit 1 with a message on stderr. Run inside a loopback-only
network namespace (aiortc is told to use 127.0.0.1 only).
"""
import argparse
import asyncio
import json
import sys
import time
import xml.etree.ElementTree as ET

import aioice.ice
import numpy
import slixmpp
from aiortc import RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import MediaStreamError
from aiortc.sdp import candidate_from_sdp
from slixmpp.exceptions import IqError, IqTimeout
from slixmpp.xmlstream.handler import Callback
from slixmpp.xmlstream.matcher import MatchXPath

aioice.ice.get_host_addresses = lambda use_ipv4=True, use_ipv6=False: ["127.0.0.1"]

JINGLE = "urn:xmpp:jingle:1"
RTP = "urn:xmpp:jingle:apps:rtp:1"
FB = "urn:xmpp:jingle:apps:rtp:rtcp-fb:0"
HDREXT = "urn:xmpp:jingle:apps:rtp:rtp-hdrext:0"
SSMA = "urn:xmpp:jingle:apps:rtp:ssma:0"
ICE = "urn:xmpp:jingle:transports:ice-udp:1"
DTLS = "urn:xmpp:jingle:apps:dtls:0"
GROUP = "urn:xmpp:jingle:apps:grouping:0"
SCTPMAP = "urn:xmpp:jingle:transports:dtls-sctp:1"
SCTP_PORT = "urn:xmpp:jingle:transports:webrtc-datachannel:1"
JMI = "urn:xmpp:jingle-message:0"
ERRORS = "urn:xmpp:jingle:errors:1"


def log(msg):
    print(f"jingle_peer: {msg}", file=sys.stderr, flush=True)


class Failure(Exception):
    pass


# --- Jingle -> SDP (the offer Sluice sends) -------------------------------------------------

def direction(senders, writer):
    """XEP-0166 `senders` as the SDP direction of the party that wrote the description."""
    senders = senders or "both"
    if senders == "both":
        return "sendrecv"
    if senders == "none":
        return "inactive"
    return "sendonly" if senders == writer else "recvonly"


def candidate_line(c):
    line = (f"candidate:{c.get('foundation')} {c.get('component')} {c.get('protocol', 'udp').upper()} "
            f"{c.get('priority')} {c.get('ip')} {c.get('port')} typ {c.get('type')}")
    if c.get("rel-addr") and c.get("rel-port"):
        line += f" raddr {c.get('rel-addr')} rport {c.get('rel-port')}"
    if c.get("tcptype"):
        line += f" tcptype {c.get('tcptype')}"
    return line


def jingle_to_sdp(jingle, writer):
    lines = ["v=0", "o=- 1 1 IN IP4 0.0.0.0", "s=-", "t=0 0"]
    for group in jingle.findall(f"{{{GROUP}}}group"):
        names = [c.get("name") for c in group.findall(f"{{{GROUP}}}content")]
        lines.append(f"a=group:{group.get('semantics')} {' '.join(names)}")
    mids = []
    for content in jingle.findall(f"{{{JINGLE}}}content"):
        name = content.get("name")
        mids.append(name)
        desc = content.find(f"{{{RTP}}}description")
        transport = content.find(f"{{{ICE}}}transport")
        if transport is None:
            raise Failure(f"content {name} has no ICE-UDP transport")
        if desc is None:
            sctp = transport.find(f"{{{SCTPMAP}}}sctpmap")
            port = sctp.get("number") if sctp is not None else (transport.findtext(f"{{{SCTP_PORT}}}sctp-port") or "5000")
            lines += ["m=application 9 UDP/DTLS/SCTP webrtc-datachannel", "c=IN IP4 0.0.0.0", f"a=sctp-port:{port}"]
        else:
            pts = desc.findall(f"{{{RTP}}}payload-type")
            lines += [f"m={desc.get('media')} 9 UDP/TLS/RTP/SAVPF {' '.join(p.get('id') for p in pts)}", "c=IN IP4 0.0.0.0"]
            for p in pts:
                channels = f"/{p.get('channels')}" if p.get("channels") not in (None, "1") else ""
                lines.append(f"a=rtpmap:{p.get('id')} {p.get('name')}/{p.get('clockrate')}{channels}")
                params = [(x.get("name"), x.get("value")) for x in p.findall(f"{{{RTP}}}parameter")]
                if params:
                    lines.append(f"a=fmtp:{p.get('id')} " + ";".join(f"{k}={v}" if k else v for k, v in params))
                for fb in p.findall(f"{{{FB}}}rtcp-fb"):
                    lines.append(f"a=rtcp-fb:{p.get('id')} {fb.get('type')}" + (f" {fb.get('subtype')}" if fb.get("subtype") else ""))
            for ext in desc.findall(f"{{{HDREXT}}}rtp-hdrext"):
                lines.append(f"a=extmap:{ext.get('id')} {ext.get('uri')}")
            for source in desc.findall(f"{{{SSMA}}}source"):
                for param in source.findall(f"{{{SSMA}}}parameter"):
                    value = f":{param.get('value')}" if param.get("value") is not None else ""
                    lines.append(f"a=ssrc:{source.get('ssrc')} {param.get('name')}{value}")
            for group in desc.findall(f"{{{SSMA}}}ssrc-group"):
                lines.append(f"a=ssrc-group:{group.get('semantics')} " + " ".join(s.get("ssrc") for s in group.findall(f"{{{SSMA}}}source")))
            lines.append("a=rtcp-mux")
        lines += [f"a=mid:{name}", f"a={direction(content.get('senders'), writer)}",
                  f"a=ice-ufrag:{transport.get('ufrag')}", f"a=ice-pwd:{transport.get('pwd')}"]
        fp = transport.find(f"{{{DTLS}}}fingerprint")
        if fp is not None:
            lines += [f"a=fingerprint:{fp.get('hash')} {fp.text.strip()}", f"a=setup:{fp.get('setup', 'actpass')}"]
        for c in transport.findall(f"{{{ICE}}}candidate"):
            lines.append("a=" + candidate_line(c))
    return "\r\n".join(lines) + "\r\n", mids


# --- SDP -> Jingle (aiortc's answer) --------------------------------------------------------

def sdp_to_contents(sdp, writer):
    """aiortc's SDP as <content/> elements (and the BUNDLE group)."""
    sections, session = [], []
    for line in sdp.splitlines():
        if line.startswith("m="):
            sections.append([line])
        elif sections:
            sections[-1].append(line)
        else:
            session.append(line)
    contents = []
    senders_of = {"sendrecv": "both", "inactive": "none",
                  "sendonly": writer, "recvonly": "initiator" if writer == "responder" else "responder"}
    for lines in sections:
        kind, _, proto, *fmts = lines[0][2:].split(" ")
        attrs = [l[2:] for l in lines if l.startswith("a=")]
        value = lambda key: next((a.split(":", 1)[1] for a in attrs if a.startswith(key + ":")), None)
        mid = value("mid")
        dirn = next((a for a in attrs if a in ("sendrecv", "sendonly", "recvonly", "inactive")), "sendrecv")
        content = ET.Element(f"{{{JINGLE}}}content", creator="initiator", name=mid, senders=senders_of[dirn])
        transport = ET.Element(f"{{{ICE}}}transport", ufrag=value("ice-ufrag") or "", pwd=value("ice-pwd") or "")
        if kind == "application":
            ET.SubElement(content, "{urn:xmpp:jingle:apps:webrtc-datachannel:0}description")
            ET.SubElement(transport, f"{{{SCTPMAP}}}sctpmap", number=value("sctp-port") or "5000",
                          protocol="webrtc-datachannel", streams="1024")
        else:
            desc = ET.SubElement(content, f"{{{RTP}}}description", media=kind)
            for pt in fmts:
                rtpmap = next((a.split(" ", 1)[1] for a in attrs if a.startswith(f"rtpmap:{pt} ")), None)
                if not rtpmap:
                    continue
                name, clock, *ch = rtpmap.split("/")
                p = ET.SubElement(desc, f"{{{RTP}}}payload-type", id=pt, name=name, clockrate=clock)
                if ch:
                    p.set("channels", ch[0])
                fmtp = next((a.split(" ", 1)[1] for a in attrs if a.startswith(f"fmtp:{pt} ")), None)
                for item in (fmtp.split(";") if fmtp else []):
                    k, _, v = item.strip().partition("=")
                    ET.SubElement(p, f"{{{RTP}}}parameter", name=k, value=v)
                for a in attrs:
                    if a.startswith(f"rtcp-fb:{pt} "):
                        t, *sub = a.split(" ", 1)[1].split(" ", 1)
                        fb = ET.SubElement(p, f"{{{FB}}}rtcp-fb", type=t)
                        if sub:
                            fb.set("subtype", sub[0])
            for a in attrs:
                if a.startswith("extmap:"):
                    ident, uri = a[7:].split(" ", 1)
                    ET.SubElement(desc, f"{{{HDREXT}}}rtp-hdrext", id=ident.split("/")[0], uri=uri.split(" ")[0])
            sources = {}
            for a in attrs:
                if a.startswith("ssrc:"):
                    ssrc, rest = a[5:].split(" ", 1)
                    k, _, v = rest.partition(":")
                    src = sources.get(ssrc)
                    if src is None:
                        src = sources[ssrc] = ET.SubElement(desc, f"{{{SSMA}}}source", ssrc=ssrc)
                    ET.SubElement(src, f"{{{SSMA}}}parameter", name=k, value=v)
                elif a.startswith("ssrc-group:"):
                    sem, *ssrcs = a[11:].split(" ")
                    g = ET.SubElement(desc, f"{{{SSMA}}}ssrc-group", semantics=sem)
                    for s in ssrcs:
                        ET.SubElement(g, f"{{{SSMA}}}source", ssrc=s)
            if "rtcp-mux" in attrs:
                ET.SubElement(desc, f"{{{RTP}}}rtcp-mux")
        fingerprint = value("fingerprint")
        if fingerprint:
            hash_, fp = fingerprint.split(" ", 1)
            f = ET.SubElement(transport, f"{{{DTLS}}}fingerprint", hash=hash_, setup=value("setup") or "active")
            f.text = fp
        for a in attrs:
            if a.startswith("candidate:"):
                w = a[10:].split()
                c = ET.SubElement(transport, f"{{{ICE}}}candidate", foundation=w[0], component=w[1], protocol=w[2].lower(),
                                  priority=w[3], ip=w[4], port=w[5], type=w[7], generation="0", id=f"c{len(transport)}")
                for i in range(8, len(w) - 1, 2):
                    if w[i] == "raddr":
                        c.set("rel-addr", w[i + 1])
                    elif w[i] == "rport":
                        c.set("rel-port", w[i + 1])
        content.append(transport)
        contents.append(content)
    groups = []
    for line in session:
        if line.startswith("a=group:"):
            sem, *names = line[8:].split(" ")
            g = ET.Element(f"{{{GROUP}}}group", semantics=sem)
            for n in names:
                ET.SubElement(g, f"{{{GROUP}}}content", name=n)
            groups.append(g)
    return contents + groups


# --- The peer -------------------------------------------------------------------------------

class Peer(slixmpp.ClientXMPP):
    def __init__(self, args):
        super().__init__(args.jid, args.password)
        self.args = args
        self.ca_certs = args.ca
        self.ready = asyncio.Event()
        self.initiate = asyncio.Queue()
        self.transport_info = asyncio.Queue()
        self.actions = []
        self.terminated = asyncio.Event()
        self.sid = None
        self.add_event_handler("session_start", self.on_start)
        self.add_event_handler("failed_auth", lambda *_: log("login refused"))
        self.register_handler(Callback("jingle", MatchXPath(f"{{jabber:client}}iq/{{{JINGLE}}}jingle"), self.on_jingle))
        self.register_handler(Callback("jmi", MatchXPath(f"{{jabber:client}}message/{{{JMI}}}propose"), self.on_propose))

    async def on_start(self, _):
        self.send_presence()
        self.ready.set()

    def on_propose(self, msg):
        propose = msg.xml.find(f"{{{JMI}}}propose")
        reply = self.make_message(mto=msg["from"], mtype="chat")
        reply.append(ET.Element(f"{{{JMI}}}proceed", id=propose.get("id")))
        reply.send()

    def on_jingle(self, iq):
        jingle = iq.xml.find(f"{{{JINGLE}}}jingle")
        action = jingle.get("action")
        self.actions.append(action)
        iq.reply(clear=True).send()
        if action == "session-initiate":
            self.sid = jingle.get("sid")
            self.initiate.put_nowait((iq["from"], jingle))
        elif action == "transport-info":
            self.transport_info.put_nowait(jingle)
        elif action == "session-terminate":
            self.terminated.set()

    async def jingle_set(self, to, jingle, timeout=10):
        iq = self.make_iq_set(ito=to)
        iq.append(jingle)
        return await iq.send(timeout=timeout)


async def login(args):
    peer = Peer(args)
    host, port = args.server.rsplit(":", 1)
    peer.connect(host, int(port))
    try:
        await asyncio.wait_for(peer.ready.wait(), args.timeout)
    except asyncio.TimeoutError:
        raise Failure(f"no XMPP session with {args.server} within {args.timeout} s")
    return peer


async def answer(args):
    peer = await login(args)
    log(f"logged in as {peer.boundjid.full}; waiting for a call")
    try:
        caller, jingle = await asyncio.wait_for(peer.initiate.get(), args.timeout)
    except asyncio.TimeoutError:
        raise Failure(f"no session-initiate within {args.timeout} s")
    offer, mids = jingle_to_sdp(jingle, "initiator")
    pc = RTCPeerConnection()
    stats = {"frames": 0, "width": 0, "height": 0, "channel_messages": []}
    first, lumas, done = {}, [], asyncio.Event()

    async def read(track):
        while True:
            try:
                frame = await track.recv()
            except MediaStreamError:
                return
            if track.kind != "video":
                continue
            stats["frames"] += 1
            stats["width"], stats["height"] = frame.width, frame.height
            if "t" not in first:
                first["t"] = time.monotonic()
                rgb = frame.to_ndarray(format="rgb24")
                stats["first_frame_rgb"] = [round(float(rgb[..., i].mean())) for i in range(3)]
            lumas.append(frame.to_ndarray(format="gray")[::8, ::8].astype(numpy.float32))
            if len(lumas) > 2:
                lumas.pop(1)
            if time.monotonic() - first["t"] >= args.seconds:
                done.set()

    pc.on("track", lambda t: asyncio.ensure_future(read(t)))

    @pc.on("datachannel")
    def on_channel(channel):
        channel.on("message", lambda m: stats["channel_messages"].append(f"{channel.label}:{m}"))

    await pc.setRemoteDescription(RTCSessionDescription(sdp=offer, type="offer"))
    await pc.setLocalDescription(await pc.createAnswer())
    for _ in range(100):  # aiortc gathers inside setLocalDescription; bounded anyway
        if pc.iceGatheringState == "complete":
            break
        await asyncio.sleep(0.05)
    accept = ET.Element(f"{{{JINGLE}}}jingle", action="session-accept", sid=peer.sid,
                        initiator=str(caller), responder=peer.boundjid.full)
    for element in sdp_to_contents(pc.localDescription.sdp, "responder"):
        accept.append(element)
    try:
        await peer.jingle_set(caller, accept)
    except (IqError, IqTimeout) as e:
        raise Failure(f"the caller refused session-accept: {e}")

    async def trickle():
        while True:
            jingle = await peer.transport_info.get()
            for content in jingle.findall(f"{{{JINGLE}}}content"):
                for c in content.findall(f"{{{ICE}}}transport/{{{ICE}}}candidate"):
                    cand = candidate_from_sdp(candidate_line(c).split(":", 1)[1])
                    cand.sdpMid = content.get("name")
                    cand.sdpMLineIndex = mids.index(content.get("name")) if content.get("name") in mids else 0
                    await pc.addIceCandidate(cand)
    trickler = asyncio.ensure_future(trickle())
    try:
        await asyncio.wait_for(done.wait(), args.seconds + args.timeout)
    except asyncio.TimeoutError:
        pass
    trickler.cancel()
    terminated_by = "peer" if peer.terminated.is_set() else "us"
    if terminated_by == "us":
        end = ET.Element(f"{{{JINGLE}}}jingle", action="session-terminate", sid=peer.sid)
        ET.SubElement(ET.SubElement(end, f"{{{JINGLE}}}reason"), f"{{{JINGLE}}}success")
        try:
            await peer.jingle_set(caller, end, timeout=5)
        except (IqError, IqTimeout) as e:
            log(f"session-terminate not acknowledged: {e}")
    span = max(1e-3, time.monotonic() - first.get("t", time.monotonic()))
    await pc.close()
    peer.disconnect()
    if not first:
        raise Failure(f"no video frame decoded (ICE {pc.iceConnectionState}); the offer was:\n{offer}")
    moved = bool(len(lumas) == 2 and float(numpy.abs(lumas[0] - lumas[1]).mean()) > 1.0)
    print(json.dumps(dict(stats, fps=round((stats["frames"] - 1) / span, 1), picture_moves=moved,
                          terminated_by=terminated_by, jingle_actions_received=sorted(set(peer.actions)))), flush=True)


async def hostile(args):
    """Stanzas a callee must refuse; each reply (or its absence) reported."""
    peer = await login(args)

    def jingle(action, sid="x1", **extra):
        j = ET.Element(f"{{{JINGLE}}}jingle", sid=sid, initiator=peer.boundjid.full, **extra)
        if action is not None:
            j.set("action", action)
        return j

    def content(payload_id="96", value="1"):
        c = ET.Element(f"{{{JINGLE}}}content", creator="initiator", name="0", senders="both")
        d = ET.SubElement(c, f"{{{RTP}}}description", media="video")
        p = ET.SubElement(d, f"{{{RTP}}}payload-type", id=payload_id, name="VP8", clockrate="90000")
        ET.SubElement(p, f"{{{RTP}}}parameter", name="x", value=value)
        ET.SubElement(c, f"{{{ICE}}}transport", ufrag="u1234", pwd="p" * 22)
        return c

    cases = {}
    no_content = jingle("session-initiate", sid="h1")
    bad_pt = jingle("session-initiate", sid="h2")
    bad_pt.append(content(payload_id="500"))
    injected = jingle("session-initiate", sid="h3")
    injected.append(content(value="1\r\na=evil:1"))
    unknown_action = jingle("frobnicate", sid="h4")
    no_action = ET.Element(f"{{{JINGLE}}}jingle")
    cases_list = [("session-initiate without contents", no_content), ("payload type 500", bad_pt),
                  ("CR/LF in a parameter value", injected), ("unknown action", unknown_action),
                  ("transport-info for an unknown session", jingle("transport-info", sid="nope")),
                  ("session-accept for an unknown session", jingle("session-accept", sid="nope")),
                  ("jingle without action or sid", no_action)]
    for name, element in cases_list:
        try:
            await peer.jingle_set(args.peer, element, timeout=5)
            cases[name] = "result"
        except IqError as e:
            err = e.iq["error"]
            app = [child.tag.split("}")[1] for child in err.xml if child.tag.startswith(f"{{{ERRORS}}}")]
            cases[name] = err["condition"] + (f"/{app[0]}" if app else "")
        except IqTimeout:
            cases[name] = "timeout"
    # A flood: 200 transport-info for an unknown session, all at once; every one answered.
    async def one(i):
        try:
            await peer.jingle_set(args.peer, jingle("transport-info", sid=f"flood{i}"), timeout=10)
            return "result"
        except IqError as e:
            return e.iq["error"]["condition"]
        except IqTimeout:
            return "timeout"
    replies = await asyncio.gather(*(one(i) for i in range(200)))
    cases["flood of 200 transport-info"] = {r: replies.count(r) for r in set(replies)}
    peer.disconnect()
    print(json.dumps(cases), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["answer", "hostile"])
    ap.add_argument("--jid", required=True)
    ap.add_argument("--password", required=True)
    ap.add_argument("--server", required=True)
    ap.add_argument("--ca")
    ap.add_argument("--peer")
    ap.add_argument("--seconds", type=float, default=4)
    ap.add_argument("--timeout", type=float, default=20)
    args = ap.parse_args()
    try:
        asyncio.run(answer(args) if args.mode == "answer" else hostile(args))
    except Failure as e:
        log(str(e))
        sys.exit(1)


if __name__ == "__main__":
    main()
