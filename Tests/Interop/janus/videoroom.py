#!/usr/bin/env python3
"""Talks to a VideoRoom room through Janus's HTTP API, as a room's administrator would.

    videoroom.py HTTP_BASE destroy ROOM [--secret S]
    videoroom.py HTTP_BASE wait-publishers ROOM COUNT [--display NAME] [--timeout S]

HTTP_BASE is Janus's HTTP transport (http://127.0.0.1:8088/janus). Each command creates a
session, attaches the VideoRoom plugin and prints the plugin's last answer as one JSON line.

- destroy: sends {"request": "destroy", "room": ROOM}; exits 1 if Janus refused.
- wait-publishers: asks `listparticipants` every 100 ms until at least COUNT participants are
  publishing (Janus says so only once a publisher's PeerConnection is up, after DTLS) and, with
  --display, one of them has that display name; exits 1 when the timeout (10 s) passes first.

Run inside the test's network namespace.
"""
import argparse
import json
import secrets
import sys
import time
import urllib.request


def post(url, body):
    body["transaction"] = secrets.token_hex(6)
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


class Room:
    """A session with the VideoRoom plugin attached; `ask` sends one plugin request."""

    def __init__(self, base):
        self.base = base
        self.session = post(base, {"janus": "create"})["data"]["id"]
        self.handle = post(f"{base}/{self.session}", {"janus": "attach", "plugin": "janus.plugin.videoroom"})["data"]["id"]

    def ask(self, body):
        reply = post(f"{self.base}/{self.session}/{self.handle}", {"janus": "message", "body": body})
        return reply.get("plugindata", {}).get("data", {})

    def close(self):
        post(f"{self.base}/{self.session}", {"janus": "destroy"})


def destroy(room, args):
    body = {"request": "destroy", "room": args.room}
    if args.secret:
        body["secret"] = args.secret
    answer = room.ask(body)
    print(json.dumps(answer))
    return 0 if answer.get("videoroom") == "destroyed" else 1


def wait_publishers(room, args):
    deadline = time.monotonic() + args.timeout
    while True:
        answer = room.ask({"request": "listparticipants", "room": args.room})
        publishing = [p for p in answer.get("participants", []) if p.get("publisher") is True]
        named = args.display is None or any(p.get("display") == args.display for p in publishing)
        if len(publishing) >= args.count and named:
            print(json.dumps(answer))
            return 0
        if time.monotonic() >= deadline:
            print(json.dumps({"timeout": args.timeout, "wanted": args.count, "last": answer}))
            return 1
        time.sleep(0.1)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("base")
    commands = p.add_subparsers(dest="command", required=True)
    d = commands.add_parser("destroy")
    d.add_argument("room", type=int)
    d.add_argument("--secret")
    d.set_defaults(run=destroy)
    w = commands.add_parser("wait-publishers")
    w.add_argument("room", type=int)
    w.add_argument("count", type=int)
    w.add_argument("--display")
    w.add_argument("--timeout", type=float, default=10)
    w.set_defaults(run=wait_publishers)
    args = p.parse_args()
    room = Room(args.base)
    try:
        return args.run(room, args)
    finally:
        room.close()


if __name__ == "__main__":
    sys.exit(main())
