#!/usr/bin/env python3
"""Chromium joins a Janus VideoRoom through Janus's own JavaScript API and plays a publisher.

    janus_browser.py WS_URL ROOM FEED [--publish] [--hold-until PATH] [--timeout T]

Serves room.html with Debian's janus.js (libjs-janus-gateway) and webrtc-adapter on
127.0.0.1, opens it in headless Chromium (browser_check.py's flags: Debian's chromium and
chromedriver, nothing downloaded), waits until the page has subscribed to the publisher whose
display name is FEED and its <video> shows a moving picture, and prints one JSON line: the
page's state, the publishers it saw, and what the picture check measured (size, frames, mean
luma, largest change between frames). With --publish the page also publishes Chromium's fake
camera and microphone as 'chromium'; with --hold-until it then keeps the page (and so that
publication) open until PATH exists (bounded by --timeout). With --e2ee-passphrase P the page
decrypts what it receives and encrypts what it publishes in LiveKit's frame format
(browser_echo.py's worker), and the JSON line gains "e2ee": its counts. With --substreams
0,2,1 the page then asks Janus for each simulcast layer in turn (`configure`, as janus.js's
demo does) and the JSON line gains "substreams": the picture measured on each. Exits 1 with a message on failure or timeout. Run it
inside a loopback-only network namespace.
"""
import argparse
import functools
import http.server
import json
import os
import shutil
import sys
import tempfile
import threading
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Browser"))
import browser_check as bc  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = {"janus.js": "/usr/share/javascript/janus-gateway/janus.js",
           "adapter.js": "/usr/share/javascript/webrtc-adapter/adapter.js",
           "room.html": os.path.join(HERE, "room.html")}


def serve(directory):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=directory))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


PICTURE_JS = bc.PICTURE_JS.replace("getElementById('play-video')", "getElementById('remote')")


def switch_layer(driver, n, timeout):
    """Asks Janus for simulcast layer n, waits until Janus says it forwards it and the page's
    picture moves at a size other than the last one seen before the switch, and returns that
    picture's figures with the layer's number."""
    before = driver.execute_async_script(PICTURE_JS)
    driver.execute_script(f"window.switchSubstream({n})")
    seen = {}

    def switched():
        if driver.execute_script("return window.room.substream") != n:
            return None
        r = driver.execute_async_script(PICTURE_JS)
        seen.update(r)
        moving = r.get("trackFrames", 0) >= 10 and r.get("maxFrameDiff", 0) > 0.5
        resized = (r.get("trackWidth"), r.get("trackHeight")) != (before.get("trackWidth"), before.get("trackHeight"))
        return r if moving and resized else None
    try:
        pic = bc.wait_for(f"Janus to forward substream {n}", timeout, switched, interval=0.2)
    except bc.Failure as e:
        raise bc.Failure(f"{e} (before: {before}; last: {seen}; page: {driver.execute_script('return window.room')})")
    pic["substream"] = n
    return pic


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("server")
    p.add_argument("room", type=int)
    p.add_argument("feed")
    p.add_argument("--timeout", type=float, default=30)
    p.add_argument("--publish", action="store_true", help="publish the fake camera and microphone as 'chromium'")
    p.add_argument("--hold-until", help="after the checks, keep the page open until this file exists")
    p.add_argument("--substreams", help="then ask Janus for these simulcast layers in turn (e.g. 0,1,2) and measure the picture of each")
    p.add_argument("--e2ee-passphrase", help="decrypt what arrives and encrypt what is published (LiveKit's format)")
    args = p.parse_args()
    site = tempfile.mkdtemp(prefix="janus-page-")
    for name, path in SOURCES.items():
        if not os.path.exists(path):
            print(f"janus_browser: {path} is missing (Scripts/install.sh installs it)", file=sys.stderr)
            return 1
        shutil.copy(path, os.path.join(site, name))
    if args.e2ee_passphrase:
        from browser_echo import E2EE_WORKER_JS
        with open(os.path.join(site, "e2ee-worker.js"), "w") as f:
            f.write(E2EE_WORKER_JS)
    http_server = serve(site)
    driver, profile = bc.start_browser([], [])
    try:
        url = f"http://127.0.0.1:{http_server.server_address[1]}/room.html?server={args.server}&room={args.room}&feed={args.feed}&publish={1 if args.publish else 0}"
        if args.e2ee_passphrase:
            url += "&e2ee=" + urllib.parse.quote(args.e2ee_passphrase)
        driver.get(url)

        def state():
            s = driver.execute_script("return window.room") or {}
            err = driver.execute_script("return document.getElementById('error').textContent")
            if err:
                raise bc.Failure(f"the page shows an error: {err}")
            return s if s.get("state") == "playing" else None
        room = bc.wait_for(f"the page to play '{args.feed}'", args.timeout, state)

        last = {}

        def picture():
            r = driver.execute_async_script(PICTURE_JS)
            last.update(r)
            ok = (r.get("readyState") == 4 and r.get("trackFrames", 0) >= 10
                  and r.get("meanLuma", 0) > 16 and r.get("maxFrameDiff", 0) > 0.5)
            return r if ok else None
        try:
            pic = bc.wait_for("a moving picture in the page's <video>", args.timeout, picture, interval=0.5)
        except bc.Failure as e:
            stats = driver.execute_script("return window.room")
            raise bc.Failure(f"{e} (last check: {last}; page: {stats})")
        if args.publish:
            bc.wait_for("Janus's answer to the page's publish", args.timeout,
                        lambda: driver.execute_script("return window.room.published"))
        if args.e2ee_passphrase and args.publish:
            # The page's own publication, encrypted: wait until frames of it went out.
            try:
                bc.wait_for("the page to encrypt what it publishes", args.timeout,
                            lambda: ((driver.execute_script("return window.room.e2ee") or {}).get("encrypted") or {}).get("video", 0) > 30)
            except bc.Failure as e:
                pc = driver.execute_script("return pub && pub.webrtcStuff.pc ? [pub.webrtcStuff.pc.connectionState, pub.webrtcStuff.pc.iceConnectionState, pub.webrtcStuff.pc.getSenders().map(s => s.track && s.track.readyState)] : null")
                raise bc.Failure(f"{e} (page: {driver.execute_script('return window.room')}; publishing pc: {pc})")
        layers = [switch_layer(driver, int(n), args.timeout) for n in args.substreams.split(",")] if args.substreams else None
        print(json.dumps({"state": room["state"], "publishers": room["publishers"], "subscribed": room["subscribed"],
                          "tracks": room["tracks"], "picture": pic, "substreams": layers,
                          "e2ee": driver.execute_script("return window.room.e2ee || null")}), flush=True)
        if args.hold_until:
            bc.wait_for(f"{args.hold_until} to exist", args.timeout, lambda: os.path.exists(args.hold_until), interval=0.1)
        return 0
    except bc.Failure as e:
        logs = [e2.get("message", "") for e2 in driver.get_log("browser")][-10:]
        print(f"janus_browser: {e}; console: {logs}", file=sys.stderr)
        return 1
    finally:
        driver.quit()
        http_server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)
        shutil.rmtree(site, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
