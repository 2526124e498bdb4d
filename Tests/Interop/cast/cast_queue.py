#!/usr/bin/env python3
"""Moves through a Cast receiver's queue with pychromecast: next, then previous.

    cast_queue.py NAME FIRST_URL SECOND_URL [--dwell S] [--timeout T]

Discovers the receiver NAME over multicast DNS (zeroconf on 127.0.0.1), launches the Default
Media Receiver, loads FIRST_URL and queues SECOND_URL; once the first plays (for --dwell
seconds), `queue_next()` (QUEUE_UPDATE jump 1) must make the second play, and after --dwell
seconds more `queue_prev()` (jump -1) the first again. Prints what it saw after each step
(FIRST, NEXT, PREV, one per line, then one JSON line) and exits 1 with a message on failure.
Every wait is a bounded poll. Run it inside a loopback-only network namespace.
"""
import argparse
import json
import sys
import time

import pychromecast

from cast_sender import Failure, close, discover, wait_for


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name")
    p.add_argument("first")
    p.add_argument("second")
    p.add_argument("--dwell", type=float, default=1.5)
    p.add_argument("--timeout", type=float, default=20)
    args = p.parse_args()
    t = args.timeout
    out = {}
    zc = browser = cast = None
    try:
        zc, browser, cast = discover(args.name, t)
        cast.wait(timeout=t)
        mc = cast.media_controller

        def status():
            mc.update_status()
            time.sleep(0.2)
            return mc.status

        def playing(url):
            s = status()
            return s.content_id == url and s.player_state == "PLAYING" and s.current_time > 0.2

        mc.play_media(args.first, "video/webm", title="First")
        mc.block_until_active(timeout=t)
        wait_for("the first item to play", t, lambda: playing(args.first))
        mc.play_media(args.second, "video/webm", title="Second", enqueue=True)
        # No wait: the receiver handles one sender's messages in order, so the insert is in
        # the queue before the jump below arrives.
        out["supports"] = {"next": mc.status.supports_queue_next, "prev": mc.status.supports_queue_prev}
        out["first"] = {"content": mc.status.content_id, "state": mc.status.player_state}
        print("FIRST", flush=True)
        time.sleep(args.dwell)
        mc.queue_next()
        wait_for("the second item to play after queue_next", t, lambda: playing(args.second))
        out["next"] = {"content": mc.status.content_id, "state": mc.status.player_state}
        print("NEXT", flush=True)
        time.sleep(args.dwell)
        mc.queue_prev()
        wait_for("the first item to play again after queue_prev", t, lambda: playing(args.first))
        out["prev"] = {"content": mc.status.content_id, "state": mc.status.player_state}
        print("PREV", flush=True)
        time.sleep(args.dwell)
        print(json.dumps(out), flush=True)
        return 0
    except (Failure, pychromecast.error.PyChromecastError) as e:
        print(f"cast_queue: {e}; so far: {json.dumps(out)}", file=sys.stderr)
        return 1
    finally:
        if zc:
            close(zc, browser, [cast])


if __name__ == "__main__":
    sys.exit(main())
