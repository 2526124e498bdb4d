#!/usr/bin/env python3
"""Drives a Cast receiver with pychromecast, as a user's sender app would.

    cast_sender.py NAME FIRST_URL SECOND_URL [--timeout T]

Discovers the receiver NAME over multicast DNS (zeroconf on 127.0.0.1), connects, launches the
Default Media Receiver and loads FIRST_URL; waits for PLAYING and a currentTime that moves;
a second, separate pychromecast sender connects and must see the same media and state; then
the first pauses (both see PAUSED), seeks, plays, sets the volume (the second sees it), and
queues SECOND_URL, which the receiver starts when the first item ends (both see it PLAYING);
finally the first stops the app, and the second sees the receiver without an app.
Prints one JSON line of what it saw; exits 1 with a message on failure. Every wait is a
bounded poll. Run it inside a loopback-only network namespace.
"""
import argparse
import json
import os
import ssl
import sys
import threading
import time

import pychromecast
from zeroconf import IPVersion, Zeroconf


def _serialize_tls():
    """pychromecast writes to its TLS socket from the caller's thread (update_status, play_media,
    queue_next) and from its socket thread (heartbeat PING/PONG, launch callbacks) while that thread
    also reads it. CPython's ssl module does not lock an SSL object and OpenSSL forbids using one from
    two threads at once: concurrent writes corrupt the heap (glibc aborts with "corrupted size vs.
    prev_size", "double free or corruption"). One re-entrant lock per socket makes its reads, writes
    and close take turns."""
    cls = ssl.SSLSocket
    if getattr(cls, "_serialized_by_cast_sender", False):
        return

    def locked(name):
        original = getattr(cls, name)

        def method(self, *args, **kwargs):
            lock = self.__dict__.get("_cast_sender_lock") or self.__dict__.setdefault("_cast_sender_lock", threading.RLock())
            with lock:
                return original(self, *args, **kwargs)
        return method

    for name in ("recv", "recv_into", "read", "send", "sendall", "write", "unwrap", "close"):
        setattr(cls, name, locked(name))
    cls._serialized_by_cast_sender = True


_serialize_tls()


class Failure(Exception):
    pass


def wait_for(what, timeout, check, interval=0.1):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise Failure(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)


def discover(name, timeout):
    """Finds the receiver `name` over multicast DNS on 127.0.0.1: (zeroconf, browser, cast)."""
    zc = Zeroconf(interfaces=["127.0.0.1"], ip_version=IPVersion.V4Only)
    found, browser = pychromecast.get_listed_chromecasts(friendly_names=[name], zeroconf_instance=zc,
                                                         discovery_timeout=timeout)
    if not found:
        close(zc, browser, [])
        raise Failure(f"no Cast receiver named '{name}' was discovered")
    return zc, browser, found[0]


def close(zc, browser, casts):
    """Disconnects the senders and stops discovery (best effort)."""
    for c in casts:
        try:
            c.disconnect(timeout=2)
        except Exception:  # noqa: BLE001 - best effort at the end
            pass
    if browser:
        browser.stop_discovery()
    zc.close()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name")
    p.add_argument("first")
    p.add_argument("second")
    p.add_argument("--timeout", type=float, default=20)
    p.add_argument("--hold-until", help="once the queued item plays, print QUEUED and wait until this file exists before stopping the app")
    args = p.parse_args()
    t = args.timeout
    out = {}
    zc = browser = None
    casts = []
    try:
        zc, browser, cast = discover(args.name, t)
        casts.append(cast)
        info = cast.cast_info
        out["discovered"] = {"name": info.friendly_name, "host": info.host, "port": info.port,
                             "model": info.model_name, "uuid": str(info.uuid)}
        cast.wait(timeout=t)
        mc = cast.media_controller

        def status(c=mc):
            c.update_status()
            time.sleep(0.2)
            return c.status

        mc.play_media(args.first, "video/webm", title="First")
        mc.block_until_active(timeout=t)
        out["app"] = cast.status.display_name
        wait_for("PLAYING", t, lambda: status().player_state == "PLAYING")
        start = status().current_time
        moved = wait_for("currentTime to move", t, lambda: status().current_time >= start + 1.0 and status().current_time)
        out["first"] = {"state": "PLAYING", "content": mc.status.content_id, "time_from": start, "time_to": moved,
                        "duration": mc.status.duration}

        # A second sender, its own connection: it sees the session and the media.
        second = pychromecast.get_chromecast_from_cast_info(info, zc)
        casts.append(second)
        second.wait(timeout=t)
        mc2 = second.media_controller
        wait_for("the second sender to see the app", t, lambda: second.status and second.status.app_id == "CC1AD845")
        wait_for("the second sender to see the media", t, lambda: status(mc2).content_id == args.first)
        out["second_sees"] = {"content": mc2.status.content_id, "state": mc2.status.player_state}

        mc.pause()
        wait_for("PAUSED at the first sender", t, lambda: mc.status.player_state == "PAUSED")
        wait_for("PAUSED at the second sender", t, lambda: mc2.status.player_state == "PAUSED")
        paused_at = status().current_time
        time.sleep(0.0)
        out["paused"] = {"first": mc.status.player_state, "second": mc2.status.player_state, "at": paused_at}
        mc.seek(0.5)
        sought = wait_for("the seek", t, lambda: status().current_time < paused_at - 0.2 and status().current_time + 0.001)
        out["seek"] = {"to": 0.5, "at": sought - 0.001}
        mc.play()
        wait_for("PLAYING again", t, lambda: status().player_state == "PLAYING")

        cast.set_volume(0.3)
        wait_for("the volume at the second sender", t, lambda: second.status and abs(second.status.volume_level - 0.3) < 0.01)
        out["volume_seen_by_second"] = second.status.volume_level

        mc.play_media(args.second, "video/webm", title="Second", enqueue=True)
        wait_for("the queued item to play", 2 * t,
                 lambda: status().content_id == args.second and mc.status.player_state == "PLAYING")
        wait_for("the second sender to see the queued item", t, lambda: status(mc2).content_id == args.second)
        out["queued"] = {"first_sees": mc.status.content_id, "second_sees": mc2.status.content_id,
                         "state": mc.status.player_state}
        if args.hold_until:
            print("QUEUED", flush=True)
            wait_for(f"{args.hold_until} to exist", 3 * t, lambda: os.path.exists(args.hold_until))
        # The first sender stops the app: the receiver goes back to no app, for both senders.
        cast.quit_app(timeout=t)
        wait_for("the app to stop at the second sender", t, lambda: second.status and second.status.app_id is None)
        out["stopped"] = {"first_app": cast.status.app_id, "second_app": second.status.app_id}
        print(json.dumps(out), flush=True)
        return 0
    except (Failure, pychromecast.error.PyChromecastError) as e:
        print(f"cast_sender: {e}; so far: {json.dumps(out)}", file=sys.stderr)
        return 1
    finally:
        if zc:
            close(zc, browser, casts)


if __name__ == "__main__":
    sys.exit(main())
