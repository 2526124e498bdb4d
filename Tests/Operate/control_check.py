#!/usr/bin/env python3
"""Drives Sluice's control API end to end and prints one JSON line of what it saw.

  control_check.py serve URL --admin A --viewer V --aiortc PEER.py
      against `sluice serve --admin-token A --viewer-token V --pipelines-dir D`: tokens,
      creating a pipeline from posted YAML (and refusals), a bitrate change measured in the
      encoder's output, keyframe requests, a filter swap and parameters, disabling the video
      track while an aiortc viewer plays (its last frame's luma), the event stream, and a
      graceful stop.
  control_check.py run URL
      against `sluice run Pipelines/control-loopback.yaml --control ...`: muting the audio
      track as the receiving side measures it, a data channel message, and stop.

Assertions live in the Swift tests; this only measures and reports.
"""
import argparse
import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request


def call(method, url, body=None, token=None, ctype=None, timeout=15):
    """(status, parsed JSON or text, content type)."""
    data = None
    headers = {}
    if body is not None:
        if isinstance(body, (dict, list)):
            data, ctype = json.dumps(body).encode(), ctype or "application/json"
        else:
            data = body.encode() if isinstance(body, str) else body
        headers["Content-Type"] = ctype or "application/yaml"
    if token:
        headers["Authorization"] = "Bearer " + token
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            raw, status, ct = r.read(), r.status, r.headers.get("Content-Type", "")
    except urllib.error.HTTPError as e:
        raw, status, ct = e.read(), e.code, e.headers.get("Content-Type", "")
    try:
        return status, json.loads(raw), ct
    except ValueError:
        return status, raw.decode(errors="replace"), ct


class Events(threading.Thread):
    """Reads the SSE stream of a pipeline into a list until it ends."""

    def __init__(self, url, token=None):
        super().__init__(daemon=True)
        self.url, self.token = url, token
        self.events, self.ended, self.status = [], False, None
        self.lock = threading.Lock()

    def run(self):
        req = urllib.request.Request(self.url, headers={"Authorization": "Bearer " + self.token} if self.token else {})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                self.status = r.status
                event = {}
                for raw in r:
                    line = raw.decode().rstrip("\n")
                    if line.startswith("data:"):
                        event = json.loads(line[5:].strip())
                    elif line == "" and event:
                        with self.lock:
                            self.events.append(event)
                        event = {}
        except Exception as e:  # noqa: BLE001 - reported, not hidden
            print(f"events: {e}", file=sys.stderr)
        self.ended = True

    def of(self, kind):
        with self.lock:
            return [e for e in self.events if e["type"] == kind]

    def wait(self, predicate, timeout):
        deadline = time.time() + timeout
        while time.time() < deadline:
            with self.lock:
                for e in self.events:
                    if predicate(e):
                        return e
            time.sleep(0.05)
        return None


PIPELINE = """version: 1
name: {name}
transport: {{ kind: server, ice: {{ addresses: [127.0.0.1] }} }}
send:
  video:
    capture: {{ kind: test, pattern: snow, width: 640, height: 360, fps: 30 }}
    encode: {{ codec: h264, bitrate: 1500 }}
  audio:
    capture: {{ kind: test }}
    encode: {{ codec: opus }}
"""


def serve(args):
    api, out = args.url + "/api/v1", {}
    A, V = args.admin, args.viewer
    # Tokens and scopes.
    out["no_token"] = call("GET", api + "/pipelines")[0]
    out["wrong_token"] = call("GET", api + "/pipelines", token="nope")[0]
    s, body, ct = call("GET", api + "/pipelines", token=V)
    out["viewer_read"], out["initial"] = s, body
    s, body, ct = call("POST", api + "/pipelines", PIPELINE.format(name="cam"), token=V)
    out["viewer_create"], out["viewer_create_type"] = s, ct
    # Bad input.
    s, body, ct = call("POST", api + "/pipelines", "name: broken\nsend:\n  video:\n    capture: {kind: tset}\n", token=A)
    out["bad_yaml"] = {"status": s, "type": ct, "errors": body.get("errors") if isinstance(body, dict) else None}
    s, body, ct = call("POST", api + "/pipelines", '{"path": 7}', token=A, ctype="application/json")
    out["bad_json"] = {"status": s, "type": ct}
    out["unknown_pipeline"] = call("GET", api + "/pipelines/nosuch", token=A)[0]
    out["path_escape"] = call("POST", api + "/pipelines", {"path": "../etc/passwd"}, token=A)[0]
    out["path_missing"] = call("POST", api + "/pipelines", {"path": "nosuch.yaml"}, token=A)[0]
    # Create, and the same name again.
    t = time.time()
    s, body, ct = call("POST", api + "/pipelines", PIPELINE.format(name="cam"), token=A)
    out["create"] = {"status": s, "state": body.get("state"), "seconds": round(time.time() - t, 2),
                     "branches": [b["side"] + "." + b["media"] for b in body.get("branches", [])]}
    out["duplicate"] = call("POST", api + "/pipelines", PIPELINE.format(name="cam"), token=A)[0]
    s, body, ct = call("POST", api + "/pipelines?name=fromfile", {"path": "serve-testsrc.yaml"}, token=A)
    out["from_path"] = {"status": s, "name": body.get("name"), "source": body.get("source")}
    events = Events(api + "/pipelines/cam/events?after=0", token=V)
    events.start()
    viewer_seconds, viewer_start = 18, time.time()
    viewer = subprocess.Popen([sys.executable, args.aiortc, "whep-play", args.url + "/whep/cam", "--seconds", str(viewer_seconds)],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    # Bitrate: wait for the encoder to settle near 1.5 Mbit/s, then ask for 300 kbit/s.
    settled = events.wait(lambda e: e["type"] == "stats" and e["fields"].get("encoded_video_kbps", 0) > 1000, 10)
    out["kbps_before"] = settled and round(settled["fields"]["encoded_video_kbps"])
    t0 = time.time()
    s, body, ct = call("PATCH", api + "/pipelines/cam/send/video/encoder", {"bitrate_kbps": 300}, token=A)
    out["set_bitrate"] = {"status": s, "bitrate_kbps": body.get("bitrate_kbps")}
    # The first one-second stats window that starts after the change.
    after = events.wait(lambda e: e["type"] == "stats" and e["time"] - 1.0 >= t0, 4)
    out["kbps_after"] = after and round(after["fields"]["encoded_video_kbps"])
    out["kbps_after_delay_s"] = after and round(after["time"] - t0, 2)
    changed = events.wait(lambda e: e["type"] == "bitrate", 2)
    out["bitrate_event"] = changed and changed["fields"]
    out["bad_bitrate"] = call("PATCH", api + "/pipelines/cam/send/video/encoder", {"bitrate_kbps": 0}, token=A)[0]
    # The key before it named its unit (bit/s then).
    s, body, ct = call("PATCH", api + "/pipelines/cam/send/video/encoder", {"bitrate": 300000}, token=A)
    out["old_key"] = {"status": s, "detail": body.get("detail")}

    # Keyframes.
    out["keyframes"] = []
    for _ in range(3):
        s, body, ct = call("POST", api + "/pipelines/cam/send/video/keyframe", token=A)
        out["keyframes"].append({"status": s, "frames": body.get("frames_until_keyframe")})
        time.sleep(0.37)

    # Filters: swap in pixelate, set its block size, refuse nonsense.
    s, body, ct = call("PUT", api + "/pipelines/cam/branches/send/video/filters", {"filters": [{"filter": "pixelate", "block": 8}]}, token=A)
    out["swap"] = {"status": s, "filters": [f["name"] for f in body.get("filters", [])] if isinstance(body, dict) else body}
    t_swap = time.time()
    s, body, ct = call("PATCH", api + "/pipelines/cam/branches/send/video/filters/0", {"parameters": {"block": 16}}, token=A)
    out["set_parameter"] = {"status": s, "parameters": body.get("parameters")}
    out["unknown_parameter"] = call("PATCH", api + "/pipelines/cam/branches/send/video/filters/0", {"parameters": {"nope": 1}}, token=A)[0]
    out["out_of_range"] = call("PATCH", api + "/pipelines/cam/branches/send/video/filters/0", {"parameters": {"block": -5}}, token=A)[0]
    out["missing_filter"] = call("PATCH", api + "/pipelines/cam/branches/send/video/filters/3", {"parameters": {"block": 4}}, token=A)[0]
    s, body, ct = call("PUT", api + "/pipelines/cam/branches/send/video/filters", "- filter: nosuch\n", token=A)
    out["bad_swap"] = {"status": s, "errors": body.get("errors") if isinstance(body, dict) else None}
    flowing = events.wait(lambda e: e["type"] == "stats" and e["time"] - 1.0 >= t_swap, 4)
    out["fps_after_swap"] = flowing and round(flowing["fields"]["encoded_fps"], 1)
    out["no_channel"] = call("POST", api + "/pipelines/cam/datachannels/x/messages", {"text": "hi"}, token=A)[0]

    # Disable the video track: the viewer's picture turns black.
    s, body, ct = call("PATCH", api + "/pipelines/cam/send/video/track", {"enabled": False}, token=A)
    out["disable_video"] = {"status": s, "enabled": body.get("enabled"),
                            "viewer_seconds_left": round(viewer_seconds - (time.time() - viewer_start), 1)}
    try:
        line = viewer.communicate(timeout=30)[0].strip().splitlines()[-1]
        out["viewer"] = json.loads(line)
    except Exception as e:  # noqa: BLE001
        viewer.kill()
        out["viewer"] = {"error": str(e)}
    s, body, ct = call("GET", api + "/pipelines/cam", token=V)
    out["detail"] = {"status": s, "stats": body.get("stats"), "events": len(body.get("recent_events", []))}

    # Stop gracefully: the answer comes once the pipeline has left the list, and the event
    # stream ends.
    s, body, ct = call("DELETE", api + "/pipelines/cam", token=A)
    out["stop"] = {"status": s, "state": body.get("state")}
    out["gone"] = all(p["name"] != "cam" for p in call("GET", api + "/pipelines", token=V)[1]["pipelines"])
    events.join(10)
    out["events_ended"] = events.ended
    out["event_types"] = sorted({e["type"] for e in events.events})
    out["last_state"] = [e["fields"].get("state") for e in events.of("state")][-1:]
    out["after_stop"] = call("PATCH", api + "/pipelines/cam/send/video/encoder", {"bitrate_kbps": 300}, token=A)[0]
    print(json.dumps(out))


def run(args):
    api, out = args.url + "/api/v1", {}
    name = call("GET", api + "/pipelines")[1]["pipelines"][0]["name"]
    events = Events(api + f"/pipelines/{name}/events")
    events.start()
    level = lambda e: e["type"] == "stats" and "receive_audio_level_db" in e["fields"]  # noqa: E731
    playing = events.wait(lambda e: level(e) and e["fields"]["receive_audio_level_db"] > -40, 15)
    out["level_before"] = playing and round(playing["fields"]["receive_audio_level_db"], 1)
    t0 = time.time()
    out["mute"] = call("PATCH", api + f"/pipelines/{name}/send/audio/track", {"enabled": False})[0]
    # The first whole 1 s stats window after the mute that is silent (a loaded machine may
    # apply the mute a few hundred ms late); the test bounds how late (level_muted_delay_s).
    after = lambda e: level(e) and e["time"] - 1.0 >= t0  # noqa: E731
    muted = (events.wait(lambda e: after(e) and e["fields"]["receive_audio_level_db"] < -80, 4)
             or events.wait(after, 0.1))
    out["level_muted"] = muted and round(muted["fields"]["receive_audio_level_db"], 1)
    out["level_muted_delay_s"] = muted and round(muted["time"] - t0, 2)
    t1 = time.time()
    out["unmute"] = call("PATCH", api + f"/pipelines/{name}/send/audio/track", {"enabled": True, "volume": 0.5})[0]
    back = events.wait(lambda e: level(e) and e["time"] - 1.0 >= t1, 4)
    out["level_half"] = back and round(back["fields"]["receive_audio_level_db"], 1)
    # An audio filter swapped in while running, then its setting changed in place: heard.
    t2 = time.time()
    out["audio_swap"] = call("PUT", api + f"/pipelines/{name}/branches/send/audio/filters", "- filter: gain\n  db: -12\n")[0]
    quieter = events.wait(lambda e: level(e) and e["time"] - 1.0 >= t2, 4)
    out["level_gain"] = quieter and round(quieter["fields"]["receive_audio_level_db"], 1)
    t3 = time.time()
    out["audio_gain0"] = call("PATCH", api + f"/pipelines/{name}/branches/send/audio/filters/0", {"parameters": {"db": 0}})[0]
    louder = events.wait(lambda e: level(e) and e["time"] - 1.0 >= t3, 4)
    out["level_gain0"] = louder and round(louder["fields"]["receive_audio_level_db"], 1)
    out["bad_volume"] = call("PATCH", api + f"/pipelines/{name}/send/audio/track", {"volume": 11})[0]
    out["message"] = call("POST", api + f"/pipelines/{name}/datachannels/chat/messages", {"text": "hello from the API"})[0]
    out["unknown_channel"] = call("POST", api + f"/pipelines/{name}/datachannels/nope/messages", {"text": "x"})[0]
    out["create"] = call("POST", api + "/pipelines", "name: x\n")[0]
    time.sleep(0.5)  # the message crosses the loopback before the stop
    s, body, ct = call("DELETE", api + f"/pipelines/{name}")
    out["stop"] = {"status": s, "state": body.get("state")}
    events.join(15)
    out["events_ended"] = events.ended
    print(json.dumps(out))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["serve", "run"])
    p.add_argument("url")
    p.add_argument("--admin")
    p.add_argument("--viewer")
    p.add_argument("--aiortc")
    args = p.parse_args()
    serve(args) if args.mode == "serve" else run(args)


if __name__ == "__main__":
    main()
