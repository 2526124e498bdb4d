#!/usr/bin/env python3
"""Drives headless Chromium against `sluice serve`'s web page (GET /) with selenium.

    browser_check.py play    URL STREAM  [--min-frames N] [--measure S] [--timeout T]
    browser_check.py publish URL NAME    [--min-frames N] [--measure S] [--timeout T]

play:    opens URL/, clicks Play on STREAM (WHEP), waits until the page's getStats figures
         show more than N decoded frames and a resolution, measures S more seconds ("measured":
         frames decoded per second and Chromium's freezes over them), clicks
         Stop and waits until the server's /streams.json shows no viewer. With --watch W it
         first records for W seconds what each decoded frame shows ("watched": {"pictures":
         [[name, ms, frames], ...], "maxGapMs": ...}).
publish: opens URL/, publishes the fake camera and microphone to NAME (WHIP), waits until the
         browser has sent N frames and the server's /whip.json shows N decoded frames for the
         session, measures S more seconds, clicks Stop and waits until the session has ended.
         With --relay the server relays NAME (its /streams.json counts the frames); with
         --simulcast the browser sends three layers; --hold-until FILE keeps publishing until
         FILE exists.

Prints one JSON line with the results; exits 1 with a message on stderr on failure or timeout.
Every wait is a bounded poll. Chromium and chromedriver are Debian's (/usr/bin); nothing is
downloaded (no Selenium Manager) and the browser is told not to phone home. Run it inside a
loopback-only network namespace.
"""
import argparse
import json
import urllib.parse
import os
import shutil
import sys
import tempfile
import time
import urllib.request

os.environ.setdefault("SE_AVOID_STATS", "true")  # no selenium usage statistics
os.environ.setdefault("SE_OFFLINE", "true")      # Selenium Manager must not download anything

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"

# What ICE over 127.0.0.1 needs, in a headless browser with fake media (see docs/serve-and-operate.md, "Browser").
NEEDED_FLAGS = [
    "--allow-loopback-in-peer-connection",  # without it Chromium gathers no candidate on lo
    "--headless=new",
    "--no-sandbox",                         # root in a container
    "--use-fake-device-for-media-stream",   # a synthetic camera and microphone
    "--use-fake-ui-for-media-stream",       # grant getUserMedia without a prompt
]
# Quiet: nothing to fetch, nothing to report, nothing to update.
QUIET_FLAGS = [
    "--disable-background-networking", "--no-first-run", "--disable-sync",
    "--disable-component-update", "--disable-default-apps", "--disable-extensions",
    "--disable-domain-reliability", "--disable-breakpad", "--no-default-browser-check",
    "--metrics-recording-only", "--disable-client-side-phishing-detection",
    "--disable-dev-shm-usage", "--autoplay-policy=no-user-gesture-required",
]


class Failure(Exception):
    pass


def log(msg):
    print(f"browser_check: {msg}", file=sys.stderr, flush=True)


TOKEN = None  # set from --token: the server's JSON lists need it too


def get_json(url):
    headers = {"Authorization": f"Bearer {TOKEN}"} if TOKEN else {}
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=5) as r:
        return json.load(r)


def wait_for(what, timeout, check, interval=0.2):
    """Polls check() until it returns something truthy; Failure after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        last = check()
        if last:
            return last
        if time.monotonic() >= deadline:
            raise Failure(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)


def start_browser(extra_flags, drop_flags):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tempfile.mkdtemp(prefix="sluice-chromium-")
    flags = [f for f in NEEDED_FLAGS + QUIET_FLAGS if f not in drop_flags] + extra_flags
    for f in flags + [f"--user-data-dir={profile}"]:
        options.add_argument(f)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=CHROMEDRIVER)
    driver = webdriver.Chrome(service=service, options=options)
    return driver, profile


def page_error(driver):
    return driver.find_element(By.ID, "error").text.strip()


def stats(driver, kind):
    return driver.execute_script("return window.sluice ? window.sluice.stats()[arguments[0]] : {}", kind) or {}


def check_page_error(driver):
    err = page_error(driver)
    if err:
        raise Failure(f"the page shows an error: {err}")


def open_page(driver, base, args):
    query = {}
    if getattr(args, "relay_only", False):
        query["relay"] = "1"
    if args.token and args.token_in_url:
        query["token"] = args.token
    driver.get(base + "/" + ("?" + urllib.parse.urlencode(query) if query else ""))
    wait_for("the page script", 10, lambda: driver.execute_script("return !!window.sluice"))
    if args.token and args.token_in_url:
        field = driver.execute_script("return document.getElementById('token').value")
        if field != args.token:
            raise Failure("the page did not take ?token= into its token field")
        if "token=" in driver.execute_script("return location.href"):
            raise Failure("?token= stayed in the page's address after the page read it")
    elif args.token:
        driver.find_element(By.ID, "token").send_keys(args.token)


# What a person would see: the <video> element playing, and the received track's own frames
# (MediaStreamTrackProcessor) carrying a picture that is neither black nor frozen. getStats'
# framesDecoded alone once hid a stream Chromium decoded but never showed.
PICTURE_JS = """
const done = arguments[arguments.length - 1];
const video = document.getElementById('play-video');
const track = video.srcObject && video.srcObject.getVideoTracks()[0];
const out = {readyState: video.readyState, videoWidth: video.videoWidth, videoHeight: video.videoHeight};
if (!track || typeof MediaStreamTrackProcessor === 'undefined') { out.error = 'no track'; done(out); return; }
const reader = new MediaStreamTrackProcessor({track: track.clone()}).readable.getReader();
const canvas = new OffscreenCanvas(64, 36), ctx = canvas.getContext('2d', {willReadFrequently: true});
const lumas = []; let frames = 0; let width = 0, height = 0; let last = null; let diff = 0;
const deadline = performance.now() + 1500;
(async () => {
  while (performance.now() < deadline) {
    const r = await Promise.race([reader.read(), new Promise(res => setTimeout(() => res({timeout: true}), 500))]);
    if (r.timeout || r.done) break;
    const f = r.value; frames++; width = f.displayWidth; height = f.displayHeight;
    ctx.drawImage(f, 0, 0, 64, 36); f.close();
    const px = ctx.getImageData(0, 0, 64, 36).data; let sum = 0;
    for (let i = 0; i < px.length; i += 4) sum += (px[i] + px[i+1] + px[i+2]) / 3;
    lumas.push(sum / (px.length / 4));
    if (last) { let d = 0; for (let i = 0; i < px.length; i++) d += Math.abs(px[i] - last[i]); diff = Math.max(diff, d / px.length); }
    last = px;
  }
  reader.cancel();
  Object.assign(out, {trackFrames: frames, trackWidth: width, trackHeight: height,
                      meanLuma: lumas.length ? lumas.reduce((a, b) => a + b) / lumas.length : 0, maxFrameDiff: diff});
  done(out);
})();
"""


WATCH_JS = """
const done = arguments[arguments.length - 1], millis = arguments[0];
const video = document.getElementById('play-video');
const track = video.srcObject && video.srcObject.getVideoTracks()[0];
if (!track || typeof MediaStreamTrackProcessor === 'undefined') { done({error: 'no track'}); return; }
const reader = new MediaStreamTrackProcessor({track: track.clone()}).readable.getReader();
const canvas = new OffscreenCanvas(64, 36), ctx = canvas.getContext('2d', {willReadFrequently: true});
const colour = (p, x) => {
  const i = (18 * 64 + x) * 4, [r, g, b] = [p[i], p[i + 1], p[i + 2]], hi = v => v > 180, lo = v => v < 70;
  for (const [name, want] of [['red', [1, 0, 0]], ['green', [0, 1, 0]], ['blue', [0, 0, 1]], ['white', [1, 1, 1]], ['black', [0, 0, 0]]])
    if ([r, g, b].every((v, k) => want[k] ? hi(v) : lo(v))) return name;
  return 'other';
};
const runs = []; let gap = 0, last = null;
const start = performance.now(), deadline = start + millis;
(async () => {
  while (performance.now() < deadline) {
    const r = await Promise.race([reader.read(), new Promise(res => setTimeout(() => res({timeout: true}), 5000))]);
    if (r.timeout || r.done) break;
    const now = performance.now(), f = r.value;
    ctx.drawImage(f, 0, 0, 64, 36); f.close();
    const p = ctx.getImageData(0, 0, 64, 36).data, names = [colour(p, 4), colour(p, 32), colour(p, 60)];
    const name = names.join() === 'white,green,blue' ? 'bars' : new Set(names).size === 1 ? names[0] : 'mixed';
    if (last !== null) gap = Math.max(gap, now - last);
    last = now;
    if (runs.length && runs[runs.length - 1][0] === name) runs[runs.length - 1][2]++;
    else runs.push([name, Math.round(now - start), 1]);
  }
  reader.cancel();
  done({pictures: runs, maxGapMs: Math.round(gap)});
})();
"""


def picture_check(driver, moving=True):
    """The picture's figures once the page's <video> plays frames that are not black (and,
    with `moving`, change), else None."""
    p = driver.execute_async_script(PICTURE_JS)
    ok = (p.get("readyState") == 4 and p.get("videoWidth", 0) > 0 and p.get("trackFrames", 0) >= 10
          and p.get("meanLuma", 0) > 16 and (not moving or p.get("maxFrameDiff", 0) > 0.5))
    return p if ok else None


def read_metric(base, selector):
    """The first sample matching `selector` in the server's Prometheus text, or None:
    `name`, or `name{k="v",...}` where every label given must match (the registry's order of
    a series' samples is not fixed)."""
    name, _, labels = selector.partition("{")
    wanted = [l for l in labels.rstrip("}").split(",") if l]
    with urllib.request.urlopen(base + "/metrics", timeout=5) as r:
        for line in r.read().decode().splitlines():
            if (line.startswith(name + "{") or line.startswith(name + " ")) and all(w in line for w in wanted):
                return float(line.rsplit(" ", 1)[1])
    return None


def run_play(driver, base, name, args):
    open_page(driver, base, args)
    button = wait_for(f"a Play button for stream '{name}'", 10, lambda: driver.find_elements(
        By.CSS_SELECTOR, f'button.play[data-stream="{name}"]'))
    started = time.monotonic()
    button[0].click()

    def decoded():
        check_page_error(driver)
        s = stats(driver, "play")
        return s if s.get("framesDecoded", 0) > args.min_frames and s.get("width") and s.get("height") else None
    try:
        s = wait_for(f"more than {args.min_frames} decoded frames with a resolution", args.timeout, decoded)
    except Failure as e:
        raise Failure(f"{e}; last stats: {json.dumps(stats(driver, 'play'))}")
    reached = time.monotonic() - started
    start_size = (s.get("width"), s.get("height"))
    grown_after = None
    if args.wait_width:
        # A served ladder: the viewer's own estimate moves it up to a rung this wide.
        try:
            wait_for(f"the decoded width to reach {args.wait_width}", args.timeout,
                     lambda: (check_page_error(driver) or True) and stats(driver, "play").get("width") == args.wait_width)
        except Failure as e:
            raise Failure(f"{e}; last stats: {json.dumps(stats(driver, 'play'))}")
        grown_after = round(time.monotonic() - started - reached, 2)
    # A watched picture may be still (a colour): what it shows is checked from what is watched.
    picture = wait_for("the picture in the page's <video> (readyState 4, frames from the track"
                       + (")" if args.watch else ", moving pixels)"), args.timeout, lambda: picture_check(driver, not args.watch))
    viewers = get_json(base + "/streams.json")
    metric_start = read_metric(base, args.metric) if args.metric else None
    watched = None
    if args.watch:
        log("WATCHING")  # for a test that changes the source now, as the browser watches
        driver.set_script_timeout(args.watch + 15)
        watched = driver.execute_async_script(WATCH_JS, int(args.watch * 1000))
    window = None
    if args.measure > 0:
        before, t0 = stats(driver, "play"), time.monotonic()
        time.sleep(args.measure)  # a measuring window, not synchronisation
        check_page_error(driver)
        s = stats(driver, "play")
        # Over the window: frames decoded per second, and the freezes the browser counted.
        elapsed = time.monotonic() - t0
        window = {"seconds": round(elapsed, 2),
                  "fps": round((s.get("framesDecoded", 0) - before.get("framesDecoded", 0)) / elapsed, 2),
                  "freezes": s.get("freezeCount", 0) - before.get("freezeCount", 0),
                  "freezesMs": s.get("freezesMs", 0) - before.get("freezesMs", 0)}
    metric_end = read_metric(base, args.metric) if args.metric else None
    # Other viewers of the stream may go on playing: this one is gone when the count drops.
    watching = next((x["viewers"] for x in get_json(base + "/streams.json") if x["name"] == name), 1)
    driver.find_element(By.ID, "play-stop").click()
    wait_for("the server to drop the viewer after Stop", 10, lambda: all(
        x["viewers"] < watching for x in get_json(base + "/streams.json") if x["name"] == name))
    return {
        "mode": "play", "stream": name,
        "framesDecoded": s.get("framesDecoded"), "width": s.get("width"), "height": s.get("height"),
        "fps": s.get("fps"), "bitrate": s.get("bitrate"), "rtt": s.get("rtt"), "codec": s.get("codec"),
        "payloadType": s.get("payloadType"), "fmtp": s.get("fmtp"),
        "packetsLost": s.get("packetsLost"), "firstFrameMs": s.get("firstFrameMs"),
        "freezeCount": s.get("freezeCount"), "freezesMs": s.get("freezesMs"), "jitterBufferMs": s.get("jitterBufferMs"),
        "measured": window,
        "iceState": s.get("iceState"), "path": s.get("path"),
        "picture": picture, "watched": watched,
        "secondsToMinFrames": round(reached, 2),
        "viewersWhilePlaying": next((x["viewers"] for x in viewers if x["name"] == name), None),
        "metricStart": metric_start, "metricEnd": metric_end,
        "startWidth": start_size[0], "startHeight": start_size[1], "secondsToWaitWidth": grown_after,
    }


def relay_row(base, name):
    """The relayed stream `name` in the server's /streams.json, or None."""
    rows = [x for x in get_json(base + "/streams.json") if x.get("relayed") and x.get("name") == name]
    return rows[0] if rows else None


def run_publish(driver, base, name, args):
    open_page(driver, base, args)
    field = driver.find_element(By.ID, "publish-name")
    field.clear()
    field.send_keys(name)
    if args.simulcast:
        driver.execute_script("document.getElementById('publish-simulcast').checked = true")
    started = time.monotonic()
    driver.find_element(By.ID, "publish-start").click()

    def server_frames():
        if args.relay:
            row = relay_row(base, name)
            return row["relayed_video_frames"] if row and row.get("live") else 0
        live = [x for x in get_json(base + "/whip.json")["sessions"] if x["stream"] == name]
        return live[0]["video_frames"] if live else 0

    def sent():
        check_page_error(driver)
        s = stats(driver, "publish")
        return s if s.get("framesSent", 0) >= args.min_frames and server_frames() >= args.min_frames else None
    try:
        s = wait_for(f"{args.min_frames} frames sent by the browser and decoded by the server", args.timeout, sent)
    except Failure as e:
        raise Failure(f"{e}; last browser stats: {json.dumps(stats(driver, 'publish'))}; "
                      f"server: {json.dumps(get_json(base + '/whip.json'))}")
    reached = time.monotonic() - started
    if args.relay:
        return finish_relayed_publish(driver, base, name, args, s, reached)
    if args.measure > 0:
        time.sleep(args.measure)  # a measuring window, not synchronisation
        check_page_error(driver)
        s = stats(driver, "publish")
    driver.find_element(By.ID, "publish-stop").click()
    ended = wait_for("the server to end the session after Stop", 15, lambda: (
        get_json(base + "/whip.json")["ended"].get(name) if not any(
            x["stream"] == name for x in get_json(base + "/whip.json")["sessions"]) else None))
    return {
        "mode": "publish", "receiver": name,
        "framesSent": s.get("framesSent"), "width": s.get("width"), "height": s.get("height"),
        "fps": s.get("fps"), "bitrate": s.get("bitrate"), "rtt": s.get("rtt"), "codec": s.get("codec"),
        "iceState": s.get("iceState"),
        "secondsToMinFrames": round(reached, 2),
        "serverVideoFrames": ended.get("video_frames"), "serverAudioBuffers": ended.get("audio_buffers"),
        "serverSessionsEnded": ended.get("sessions"),
    }


def finish_relayed_publish(driver, base, name, args, s, reached):
    """A publisher to a relay: prints PUBLISHING with the relay's row on stderr, keeps
    publishing until --hold-until's file exists (the test's viewers are done), then stops
    and waits until the relay has ended."""
    row = relay_row(base, name)
    log("PUBLISHING " + json.dumps(row, sort_keys=True))
    if args.hold_until:
        wait_for(f"{args.hold_until} to exist", args.timeout * 4, lambda: os.path.exists(args.hold_until) or None)
    check_page_error(driver)
    s = stats(driver, "publish")
    driver.find_element(By.ID, "publish-stop").click()
    wait_for("the relay to end after Stop", 15, lambda: relay_row(base, name) is None or None)
    return {
        "mode": "publish", "relayed": name, "layers": (row or {}).get("layers"),
        "relayedVideoFrames": (row or {}).get("relayed_video_frames"),
        "framesSent": s.get("framesSent"), "width": s.get("width"), "height": s.get("height"),
        "fps": s.get("fps"), "codec": s.get("codec"), "secondsToMinFrames": round(reached, 2),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mode", choices=["play", "publish"])
    p.add_argument("url", help="the server, e.g. http://127.0.0.1:8443")
    p.add_argument("name", help="the stream to play, or the receiver to publish to")
    p.add_argument("--min-frames", type=int, default=30)
    p.add_argument("--measure", type=float, default=2, help="seconds to keep measuring after --min-frames")
    p.add_argument("--timeout", type=float, default=30, help="seconds to wait for --min-frames")
    p.add_argument("--token", help="fill in the page's bearer token field")
    p.add_argument("--token-in-url", action="store_true",
                   help="hand the page --token as ?token= in its address instead of typing it into the field")
    p.add_argument("--relay-only", action="store_true",
                   help="open the page with ?relay=1: media only through the server's TURN servers")
    p.add_argument("--flag", action="append", default=[], help="an extra Chromium flag")
    p.add_argument("--drop-flag", action="append", default=[], help="leave out one of the default flags")
    p.add_argument("--metric", help="play: read this series from the server's /metrics when the frames are in and "
                   "again after --measure (e.g. sluice_stream_video_target_bitrate_bps)")
    p.add_argument("--wait-width", type=int, help="play: after --min-frames, wait (up to --timeout) until the decoded "
                   "width is this (a ladder viewer moving up)")
    p.add_argument("--watch", type=float, help="play: once the picture is in, print WATCHING on stderr and record what "
                   "the picture shows for this many seconds (a colour or bars, when each began, the longest wait between frames)")
    p.add_argument("--relay", action="store_true", help="publish: to `sluice serve --relay` (the stream appears in "
                   "/streams.json, not /whip.json); prints PUBLISHING with its row on stderr once its frames flow")
    p.add_argument("--simulcast", action="store_true", help="publish: three layers (720p, 360p, 180p as rids h, m, l)")
    p.add_argument("--hold-until", help="publish --relay: keep publishing until this file exists")
    args = p.parse_args()
    global TOKEN
    TOKEN = args.token
    base = args.url.rstrip("/")

    t0 = time.monotonic()
    driver, profile = start_browser(args.flag, args.drop_flag)
    try:
        result = (run_play if args.mode == "play" else run_publish)(driver, base, args.name, args)
        result["browser"] = driver.capabilities.get("browserVersion")
        result["seconds"] = round(time.monotonic() - t0, 2)
        print(json.dumps(result, sort_keys=True), flush=True)
        return 0
    except Failure as e:
        log(f"FAILED: {e}")
        try:
            for entry in driver.get_log("browser"):
                log(f"console: {entry.get('level')} {entry.get('message')}")
        except Exception:  # noqa: BLE001 - the log is a diagnostic extra
            pass
        return 1
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
