#!/usr/bin/env python3
"""Destroys a VideoRoom room through Janus's HTTP API, as a room's administrator would.

    destroy_room.py HTTP_BASE ROOM [--secret S]

HTTP_BASE is Janus's HTTP transport (http://127.0.0.1:8088/janus). Creates a session, attaches
the VideoRoom plugin, sends {"request": "destroy", "room": ROOM} and prints the plugin's answer
as one JSON line; exits 1 if Janus refused. Run inside the test's network namespace.
"""
import argparse
import json
import secrets
import sys
import urllib.request


def post(url, body):
    body["transaction"] = secrets.token_hex(6)
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("base")
    p.add_argument("room", type=int)
    p.add_argument("--secret")
    args = p.parse_args()
    session = post(args.base, {"janus": "create"})["data"]["id"]
    handle = post(f"{args.base}/{session}", {"janus": "attach", "plugin": "janus.plugin.videoroom"})["data"]["id"]
    body = {"request": "destroy", "room": args.room}
    if args.secret:
        body["secret"] = args.secret
    answer = post(f"{args.base}/{session}/{handle}", {"janus": "message", "body": body}).get("plugindata", {}).get("data", {})
    post(f"{args.base}/{session}", {"janus": "destroy"})
    print(json.dumps(answer))
    return 0 if answer.get("videoroom") == "destroyed" else 1


if __name__ == "__main__":
    sys.exit(main())
