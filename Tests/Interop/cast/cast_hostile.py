#!/usr/bin/env python3
"""Sends a Cast receiver what a broken or hostile sender would, then checks it still serves.

    cast_hostile.py HOST PORT [--senders N]

Each case opens its own TLS connection (certificates are not checked, as senders do) and uses
pychromecast's own generated CastMessage (pychromecast.generated.cast_channel_pb2):
  bad-length      a frame header announcing 16 MiB                      -> the receiver closes
  broken-protobuf a frame whose body is not a CastMessage               -> closes
  oversized       a 70 KB CastMessage (over the 64 KiB limit)           -> closes
  unknown-ns      a JSON message on urn:x-cast:com.example.nothing      -> INVALID_REQUEST
  not-json        garbage text on the receiver namespace                -> INVALID_REQUEST
  disallowed      LOAD of http://203.0.113.7/x.webm (not allowed)        -> LOAD_FAILED
  unknown-app     LAUNCH of an app other than the Default Media Receiver -> LAUNCH_ERROR
  device-auth     a DeviceAuthMessage challenge                         -> a DeviceAuthMessage answer
  tls-garbage     plain bytes where a TLS handshake should be           -> the receiver closes
  flood           N senders connect, CONNECT, PING and vanish without CLOSE
and finally a well-behaved sender gets RECEIVER_STATUS and a PONG. Prints one JSON line with
what each case got; exits 1 if the receiver stopped answering.
"""
import argparse
import json
import socket
import ssl
import struct
import sys
import time

from pychromecast.generated import cast_channel_pb2 as pb

RECEIVER = "urn:x-cast:com.google.cast.receiver"
CONNECTION = "urn:x-cast:com.google.cast.tp.connection"
HEARTBEAT = "urn:x-cast:com.google.cast.tp.heartbeat"
MEDIA = "urn:x-cast:com.google.cast.media"
DEVICEAUTH = "urn:x-cast:com.google.cast.tp.deviceauth"


def tls(host, port):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    s = ctx.wrap_socket(socket.create_connection((host, port), timeout=5))
    s.settimeout(5)
    return s


def frame(msg):
    body = msg.SerializeToString()
    return struct.pack(">I", len(body)) + body


def message(ns, payload, dest="receiver-0", source="sender-h"):
    m = pb.CastMessage()
    m.protocol_version = pb.CastMessage.CASTV2_1_0
    m.source_id = source
    m.destination_id = dest
    m.namespace = ns
    if isinstance(payload, bytes):
        m.payload_type = pb.CastMessage.BINARY
        m.payload_binary = payload
    else:
        m.payload_type = pb.CastMessage.STRING
        m.payload_utf8 = payload if isinstance(payload, str) else json.dumps(payload)
    return m


def read_message(s, timeout=5):
    """The next CastMessage, or 'closed' when the receiver closed the connection."""
    s.settimeout(timeout)
    data = b""
    try:
        while len(data) < 4:
            chunk = s.recv(4 - len(data))
            if not chunk:
                return "closed"
            data += chunk
        n = struct.unpack(">I", data)[0]
        body = b""
        while len(body) < n:
            chunk = s.recv(n - len(body))
            if not chunk:
                return "closed"
            body += chunk
    except (ConnectionResetError, ssl.SSLError, BrokenPipeError, OSError) as e:
        if isinstance(e, socket.timeout):
            return "timeout"
        return "closed"
    m = pb.CastMessage()
    m.ParseFromString(body)
    return m


def answer_type(m):
    if isinstance(m, str):
        return m
    if m.payload_type == pb.CastMessage.BINARY:
        return "binary:" + m.namespace
    return json.loads(m.payload_utf8).get("type")


def until_closed(s):
    for _ in range(20):
        m = read_message(s)
        if isinstance(m, str):
            return m
    return "still open"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("host")
    p.add_argument("port", type=int)
    p.add_argument("--senders", type=int, default=100)
    args = p.parse_args()
    h, port = args.host, args.port
    out = {}

    s = tls(h, port); s.sendall(struct.pack(">I", 16 << 20) + b"x" * 64); out["bad-length"] = until_closed(s); s.close()
    s = tls(h, port); s.sendall(struct.pack(">I", 12) + b"\xff" * 12); out["broken-protobuf"] = until_closed(s); s.close()
    s = tls(h, port); s.sendall(frame(message(RECEIVER, "x" * 70000))); out["oversized"] = until_closed(s); s.close()

    s = tls(h, port)
    s.sendall(frame(message(CONNECTION, {"type": "CONNECT"})))
    s.sendall(frame(message("urn:x-cast:com.example.nothing", {"type": "HELLO", "requestId": 7})))
    m = read_message(s); out["unknown-ns"] = {"type": answer_type(m), "reason": json.loads(m.payload_utf8).get("reason") if not isinstance(m, str) else None}
    s.sendall(frame(message(RECEIVER, "{not json")))
    out["not-json"] = answer_type(read_message(s))
    s.sendall(frame(message(RECEIVER, {"type": "LAUNCH", "appId": "DEADBEEF", "requestId": 8})))
    out["unknown-app"] = answer_type(read_message(s))
    s.sendall(frame(message(RECEIVER, {"type": "LAUNCH", "appId": "CC1AD845", "requestId": 9})))
    status = read_message(s)
    transport = json.loads(status.payload_utf8)["status"]["applications"][0]["transportId"]
    s.sendall(frame(message(CONNECTION, {"type": "CONNECT"}, dest=transport)))
    s.sendall(frame(message(MEDIA, {"type": "LOAD", "requestId": 10, "media": {"contentId": "http://203.0.113.7/x.webm",
                                                                                "contentType": "video/webm"}}, dest=transport)))
    m = read_message(s); out["disallowed"] = {"type": answer_type(m), "reason": json.loads(m.payload_utf8).get("reason") if not isinstance(m, str) else None}
    challenge = pb.DeviceAuthMessage(); challenge.challenge.sender_nonce = b"\x01" * 16
    s.sendall(frame(message(DEVICEAUTH, challenge.SerializeToString())))
    m = read_message(s)
    if not isinstance(m, str) and m.payload_type == pb.CastMessage.BINARY:
        d = pb.DeviceAuthMessage(); d.ParseFromString(m.payload_binary)
        out["device-auth"] = "error" if d.HasField("error") else ("response" if d.HasField("response") else "empty")
    else:
        out["device-auth"] = answer_type(m)
    s.close()

    raw = socket.create_connection((h, port), timeout=5); raw.sendall(b"GET / HTTP/1.1\r\n\r\n" + b"\x00" * 512)
    try:
        raw.settimeout(5)
        got = raw.recv(4096)
        out["tls-garbage"] = "closed" if got == b"" or b"HTTP" not in got else "answered"
        while got:
            got = raw.recv(4096)
    except OSError:
        out["tls-garbage"] = "closed"
    raw.close()

    flood = 0
    for _ in range(args.senders):
        s = tls(h, port)
        s.sendall(frame(message(CONNECTION, {"type": "CONNECT"})) + frame(message(HEARTBEAT, {"type": "PING"})))
        if answer_type(read_message(s)) == "PONG":
            flood += 1
        s.close()
    out["flood-pongs"] = flood

    s = tls(h, port)
    s.sendall(frame(message(CONNECTION, {"type": "CONNECT"})) + frame(message(HEARTBEAT, {"type": "PING"})))
    out["after-ping"] = answer_type(read_message(s))
    s.sendall(frame(message(RECEIVER, {"type": "GET_STATUS", "requestId": 99})))
    out["after-status"] = answer_type(read_message(s))
    s.close()
    print(json.dumps(out), flush=True)
    return 0 if out["after-status"] == "RECEIVER_STATUS" and out["after-ping"] == "PONG" else 1


if __name__ == "__main__":
    sys.exit(main())
