#!/usr/bin/env python3
"""A hostile WHEP endpoint for `sluice load` tests: POST number k (0-based) gets answer k mod 4:
garbage, SDP without ICE credentials or a fingerprint, 201 without a Location header, and an
SDP whose only media section is an absurd port and codec. Serves until killed.
    hostile_whep.py PORT"""
import http.server
import sys

ANSWERS = [
    (201, True, b"this is not SDP at all \x00\x01\x02"),
    (201, True, b"v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n"
                b"c=IN IP4 0.0.0.0\r\na=mid:0\r\na=sendonly\r\na=rtpmap:96 VP8/90000\r\n"),
    (201, False, b"v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"),
    (201, True, b"v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=video 99999999 RTP/XYZ 300\r\n"
                b"a=rtpmap:300 NOPE/1\r\n"),
]


class Handler(http.server.BaseHTTPRequestHandler):
    count = 0

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        status, location, body = ANSWERS[Handler.count % len(ANSWERS)]
        Handler.count += 1
        self.send_response(status)
        self.send_header("Content-Type", "application/sdp")
        if location:
            self.send_header("Location", f"/whep/hostile/{Handler.count}")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_DELETE(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
