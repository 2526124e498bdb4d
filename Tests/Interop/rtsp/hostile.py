#!/usr/bin/python3
"""A hostile RTSP server for Sluice's bad-input tests: it answers OPTIONS like a camera,
then DESCRIBE with an SDP chosen by --sdp, and every other request with what a broken
camera might send.

    /usr/bin/python3 Tests/Interop/rtsp/hostile.py --port 8554 --sdp garbage|huge|no-media|bad-rtpmap|binary

Prints `READY rtsp://127.0.0.1:PORT/cam` once it listens, then `REQUEST <method>` for each
request it reads; SIGTERM stops it.
"""
import argparse
import random
import socket
import socketserver
import sys


def sdp(kind):
    head = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=hostile\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
    if kind == "garbage":
        return "this is not an SDP at all\r\n" * 20
    if kind == "no-media":
        return head
    if kind == "bad-rtpmap":
        return head + "m=video 0 RTP/AVP 96\r\na=rtpmap:96 H264/notanumber\r\na=fmtp:96 sprop-parameter-sets=!!!,???\r\na=control:track1\r\n"
    if kind == "huge":
        # 5,000 video streams, each with a 200-byte fmtp
        media = "".join(
            f"m=video 0 RTP/AVP {96 + i % 32}\r\na=rtpmap:{96 + i % 32} H264/90000\r\n"
            f"a=fmtp:{96 + i % 32} packetization-mode=1;profile-level-id={'4' * 200}\r\na=control:track{i}\r\n"
            for i in range(5000)
        )
        return head + media
    if kind == "binary":
        random.seed(3)
        return head + "m=video 0 RTP/AVP 96\r\n" + "".join(chr(random.randrange(1, 256)) for _ in range(4000))
    raise SystemExit(f"unknown --sdp {kind}")


class Handler(socketserver.StreamRequestHandler):
    def handle(self):
        while True:
            request = []
            while True:
                line = self.rfile.readline(65536)
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                request.append(line.decode("latin-1").strip())
            if not request:
                return
            method = request[0].split(" ")[0]
            print("REQUEST", method, flush=True)
            cseq = next((l.split(":", 1)[1].strip() for l in request if l.lower().startswith("cseq:")), "0")
            if method == "OPTIONS":
                self.reply(cseq, "Public: OPTIONS, DESCRIBE, SETUP, PLAY, TEARDOWN\r\n")
            elif method == "DESCRIBE":
                body = self.server.sdp.encode("latin-1")
                self.reply(cseq, f"Content-Type: application/sdp\r\nContent-Length: {len(body)}\r\n", body)
            else:
                self.reply(cseq, "", status="454 Session Not Found")

    def reply(self, cseq, headers, body=b"", status="200 OK"):
        self.wfile.write(f"RTSP/1.0 {status}\r\nCSeq: {cseq}\r\n{headers}\r\n".encode("latin-1") + body)


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--sdp", required=True)
    args = p.parse_args()
    server = Server(("127.0.0.1", args.port), Handler)
    server.sdp = sdp(args.sdp)
    print(f"READY rtsp://127.0.0.1:{args.port}/cam", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
