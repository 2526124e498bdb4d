#!/usr/bin/env python3
"""Firefox ESR (Debian `firefox-esr`, headless, driven by marionette-driver) as a WebRTC peer.

    firefox_peer.py play     WHEP_URL [--seconds N] [--token T] [--codec vp8|vp9|h264]
    firefox_peer.py publish  WHIP_URL [--seconds N] [--token T] [--codec vp8|vp9|h264]
    firefox_peer.py selftest          [--seconds N] [--codec vp8|vp9|h264]

play:     recvonly video + audio, non-trickle offer (after gathering completes), POST
          application/sdp, the 201 answer applied; the received tracks play in a <video>.
          Waits until frames are decoded and rendered, then measures N seconds: getStats
          inbound-rtp (video framesDecoded, frameWidth/Height; audio packetsReceived), the
          <video>'s readyState and videoWidth/Height, and a pixel check (the <video> drawn
          to a canvas twice 1 s apart: mean luma, whether the picture changed). DELETEs the
          session.
publish:  Firefox's fake camera and microphone, sendonly, non-trickle offer, POST, answer;
          sends N seconds; reports outbound-rtp framesEncoded/packetsSent and the ICE state.
          DELETEs the session.
selftest: Firefox to Firefox, two RTCPeerConnections in one page (no server); reports the
          same figures as play. Shows that ICE over 127.0.0.1 works in this environment.
--codec:  setCodecPreferences puts that video codec first (the others stay, behind it).
          Debian's Firefox has VP8, VP9 and AV1; H264 needs Mozilla's OpenH264 plugin, which
          Firefox downloads at run time, so here --codec h264 fails with a clear message.

Prints one JSON line ("ok": true); exits 1 with a message on stderr on any failure or timeout
(with "ok": false and what was seen on stdout where there is something to show, plus the tail
of Firefox's console and MOZ_LOG on stderr). Every wait is bounded. Firefox runs in its own
process group with a fresh temporary profile and is killed on exit, always.

Run it inside a loopback-only network namespace:
    unshare -n sh -c 'ip link set lo up; exec .venv/bin/python Tests/Interop/firefox/firefox_peer.py ...'
What makes Firefox gather candidates there: see NEEDED_PREFS and README.md beside this file.
"""
import argparse
import atexit
import http.server
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from marionette_driver.marionette import Marionette

FIREFOX = "/usr/bin/firefox-esr"

# What ICE over 127.0.0.1 needs (see README.md). Without a *persistent* camera or microphone
# permission (an active fake capture does not count), Firefox uses only its "default
# address": the source address of a UDP socket connected to a public address. In a
# loopback-only namespace there is no route, so that connect fails ("failed to find default
# addresses"), gathering aborts and iceGatheringState stays "new". permissions.default.* = 1
# (allow) grants it to every page; it also turns off mDNS (.local) host obfuscation.
NEEDED_PREFS = {
    "media.peerconnection.ice.loopback": True,     # keep 127.0.0.1 / ::1 when listing addresses
    "permissions.default.camera": 1,               # persistent permission → all addresses
    "permissions.default.microphone": 1,
    "media.navigator.streams.fake": True,          # synthetic camera and microphone
    "media.navigator.permission.disabled": True,   # getUserMedia without a prompt
    "media.peerconnection.ice.tcp": False,         # UDP only (passive ICE-TCP fails here anyway)
    "media.autoplay.default": 0,                   # the <video> plays without a gesture
    "media.autoplay.blocking_policy": 0,
    "devtools.console.stdout.content": True,       # page console → Firefox's stdout (our log)
}
# Quiet: nothing to fetch, update or report (Marionette adds its own recommended prefs).
QUIET_PREFS = {
    "app.update.auto": False,
    "app.update.disabledForTesting": True,
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.startup.page": 0,
    "browser.aboutwelcome.enabled": False,
    "browser.newtabpage.enabled": False,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "browser.safebrowsing.downloads.enabled": False,
    "browser.safebrowsing.blockedURIs.enabled": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "datareporting.healthreport.uploadEnabled": False,
    "toolkit.telemetry.enabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "extensions.update.enabled": False,
    "extensions.getAddons.cache.enabled": False,
    "media.gmp-manager.updateEnabled": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "network.dns.disablePrefetch": True,
    "network.prefetch-next": False,
    "network.proxy.type": 0,
}
MOZ_LOG = "signaling:3,jsep:3,mtransport:3,nicer:3"

PAGE = r"""<!doctype html>
<html><head><meta charset="utf-8"><title>firefox_peer</title></head>
<body><video id="v" autoplay muted playsinline width="640" height="360"></video>
<script>
"use strict";
const FP = window.FP = {pc: null, sender: null, log: [], stream: null};
const video = document.getElementById("v");
const sleep = ms => new Promise(r => setTimeout(r, ms));
function note(m) {
  FP.log.push((performance.now() / 1000).toFixed(2) + " " + m);
  console.log("firefox_peer page: " + m);
}
function watch(pc, name) {
  pc.onicegatheringstatechange = () => note(name + " gathering " + pc.iceGatheringState);
  pc.oniceconnectionstatechange = () => note(name + " ice " + pc.iceConnectionState);
  pc.onconnectionstatechange = () => note(name + " connection " + pc.connectionState);
}
function prefer(pc, codec, caps) {
  if (!codec) return;
  const all = caps.codecs;
  const want = all.filter(c => c.mimeType.toLowerCase() === "video/" + codec);
  if (!want.length)
    throw new Error("this Firefox has no " + codec + " (it has " +
                    [...new Set(all.map(c => c.mimeType))].join(", ") + ")");
  const ordered = want.concat(all.filter(c => !want.includes(c)));
  for (const t of pc.getTransceivers())
    if ((t.receiver.track && t.receiver.track.kind) === "video") t.setCodecPreferences(ordered);
}
async function gathered(pc, ms) {
  const end = performance.now() + ms;
  while (pc.iceGatheringState !== "complete" && performance.now() < end) await sleep(20);
  return pc.iceGatheringState;
}
function receiveInto(pc) {
  const ms = new MediaStream();
  pc.ontrack = e => {
    note("track " + e.track.kind);
    ms.addTrack(e.track);
    if (video.srcObject !== ms) video.srcObject = ms;
    video.play().catch(err => note("play() " + err));
  };
}
async function camera() {
  FP.stream = await navigator.mediaDevices.getUserMedia(
    {video: {width: 640, height: 480, frameRate: 30}, audio: true});
  return FP.stream;
}
// play / publish: makes the non-trickle offer; Python POSTs it.
FP.offer = async (mode, codec, gatherMs) => {
  const pc = FP.pc = new RTCPeerConnection();
  watch(pc, "pc");
  if (mode === "play") {
    pc.addTransceiver("video", {direction: "recvonly"});
    pc.addTransceiver("audio", {direction: "recvonly"});
    receiveInto(pc);
    prefer(pc, codec, RTCRtpReceiver.getCapabilities("video"));
  } else {
    const s = await camera();
    for (const t of s.getTracks()) pc.addTransceiver(t, {direction: "sendonly", streams: [s]});
    prefer(pc, codec, RTCRtpSender.getCapabilities("video"));
  }
  await pc.setLocalDescription();
  const state = await gathered(pc, gatherMs);
  return {sdp: pc.localDescription.sdp, gathering: state};
};
FP.answer = async sdp => { await FP.pc.setRemoteDescription({type: "answer", sdp}); return true; };
// selftest: a sender and a receiver in this page; FP.pc is the receiver, as in play.
FP.selftest = async (codec, gatherMs) => {
  const a = FP.sender = new RTCPeerConnection(), b = FP.pc = new RTCPeerConnection();
  watch(a, "sender"); watch(b, "receiver");
  const s = await camera();
  for (const t of s.getTracks()) a.addTransceiver(t, {direction: "sendonly", streams: [s]});
  prefer(a, codec, RTCRtpSender.getCapabilities("video"));
  receiveInto(b);
  await a.setLocalDescription();
  if (await gathered(a, gatherMs) !== "complete") return {gathering: a.iceGatheringState};
  await b.setRemoteDescription(a.localDescription);
  await b.setLocalDescription();
  if (await gathered(b, gatherMs) !== "complete") return {gathering: b.iceGatheringState};
  await a.setRemoteDescription(b.localDescription);
  return {gathering: "complete", sdp: a.localDescription.sdp, answer: b.localDescription.sdp};
};
async function statsOf(pc) {
  const out = {ice: pc.iceConnectionState, connection: pc.connectionState,
               gathering: pc.iceGatheringState};
  const report = await pc.getStats();
  const codecs = {};
  report.forEach(r => { if (r.type === "codec") codecs[r.id] = r.mimeType; });
  const pick = (r, keys) => {
    const o = {};
    for (const k of keys) if (r[k] !== undefined) o[k] = r[k];
    if (r.codecId && codecs[r.codecId]) o.codec = codecs[r.codecId];
    return o;
  };
  report.forEach(r => {
    const kind = r.kind || r.mediaType;
    if (r.type === "inbound-rtp" && kind === "video")
      out.inbound_video = pick(r, ["ssrc", "framesDecoded", "framesReceived", "framesDropped",
        "keyFramesDecoded", "frameWidth", "frameHeight", "framesPerSecond", "packetsReceived",
        "packetsLost", "bytesReceived", "nackCount", "pliCount", "firCount"]);
    if (r.type === "inbound-rtp" && kind === "audio")
      out.inbound_audio = pick(r, ["ssrc", "packetsReceived", "packetsLost", "bytesReceived",
        "jitter"]);
    if (r.type === "outbound-rtp" && kind === "video")
      out.outbound_video = pick(r, ["ssrc", "framesEncoded", "keyFramesEncoded", "packetsSent",
        "bytesSent", "frameWidth", "frameHeight", "framesPerSecond", "nackCount", "pliCount"]);
    if (r.type === "outbound-rtp" && kind === "audio")
      out.outbound_audio = pick(r, ["ssrc", "packetsSent", "bytesSent"]);
    if (r.type === "candidate-pair" && (r.selected || r.nominated) && r.state === "succeeded") {
      const l = report.get(r.localCandidateId), rm = report.get(r.remoteCandidateId);
      out.pair = (l ? l.address + ":" + l.port + "/" + l.protocol : "?") + " <-> " +
                 (rm ? rm.address + ":" + rm.port : "?");
    }
  });
  return out;
}
FP.stats = async () => {
  const out = await statsOf(FP.pc);
  out.video = {readyState: video.readyState, videoWidth: video.videoWidth,
               videoHeight: video.videoHeight, currentTime: +video.currentTime.toFixed(2)};
  if (video.mozPaintedFrames !== undefined) out.video.mozPaintedFrames = video.mozPaintedFrames;
  if (FP.sender) out.sender = await statsOf(FP.sender);
  return out;
};
// The <video> drawn to a canvas twice, ~1 s apart: mean luma of each, and the mean absolute
// difference of the RGB values (Firefox's own fake camera changes only its colour, not luma).
FP.pixels = async () => {
  const w = Math.min(video.videoWidth || 0, 320);
  if (!w) return {error: "the <video> has no size"};
  const h = Math.max(1, Math.round(w * video.videoHeight / video.videoWidth));
  const c = document.createElement("canvas");
  c.width = w; c.height = h;
  const g = c.getContext("2d", {willReadFrequently: true});
  const snap = () => { g.drawImage(video, 0, 0, w, h); return g.getImageData(0, 0, w, h).data; };
  const luma = d => {
    let s = 0;
    for (let i = 0; i < d.length; i += 4) s += 0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2];
    return s / (d.length / 4);
  };
  const a = snap();
  await sleep(1000);
  const b = snap();
  let diff = 0;
  for (let i = 0; i < a.length; i += 4)
    diff += Math.abs(a[i] - b[i]) + Math.abs(a[i + 1] - b[i + 1]) + Math.abs(a[i + 2] - b[i + 2]);
  diff /= (a.length / 4) * 3;
  return {size: w + "x" + h, luma_first: +luma(a).toFixed(1), luma_second: +luma(b).toFixed(1),
          mean_abs_rgb_diff: +diff.toFixed(2), changed: diff > 0.5};
};
note("page ready");
</script></body></html>
"""


GATHER_HINT = ("; without a persistent camera/microphone permission (permissions.default.camera=1) "
               "Firefox gathers only its default-route address, which a loopback-only namespace "
               "lacks, and media.peerconnection.ice.loopback=true keeps 127.0.0.1 (README.md)")


class Failure(Exception):
    def __init__(self, msg, seen=None):
        super().__init__(msg)
        self.seen = seen


def log(msg):
    print(f"firefox_peer: {msg}", file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PageServer:
    """The test page on http://127.0.0.1:<free port>/ (a secure context, so getUserMedia works)."""

    def __init__(self):
        page = PAGE.encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                if self.path.split("?")[0] != "/":
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def die_with_parent():
    """In the child before exec: SIGKILL when this script dies, even by SIGKILL (Linux prctl)."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        pass


class Firefox:
    """Headless Firefox ESR with a fresh profile, in its own process group; kill() always."""

    def __init__(self, moz_log, startup_timeout, log_dir=None, extra_prefs=None):
        self.dir = tempfile.mkdtemp(prefix="firefox_peer.")
        self.logs = log_dir or self.dir
        os.makedirs(self.logs, exist_ok=True)
        self.profile = os.path.join(self.dir, "profile")
        os.mkdir(self.profile)
        self.port = free_port()
        prefs = dict(QUIET_PREFS, **NEEDED_PREFS)
        prefs.update(extra_prefs or {})
        prefs["marionette.port"] = self.port
        with open(os.path.join(self.profile, "user.js"), "w") as f:
            for k, v in prefs.items():
                f.write(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n")
        self.console = os.path.join(self.logs, "console.log")
        env = dict(os.environ, MOZ_HEADLESS="1", MOZ_CRASHREPORTER_DISABLE="1")
        for k in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
            env.pop(k, None)
        if moz_log:
            env["MOZ_LOG"] = moz_log if "sync" in moz_log.split(",") else "sync," + moz_log
            env["MOZ_LOG_FILE"] = os.path.join(self.logs, "moz")
        self.out = open(self.console, "wb")
        self.proc = subprocess.Popen(
            [FIREFOX, "--headless", "--marionette", "--no-remote", "--profile", self.profile],
            stdin=subprocess.DEVNULL, stdout=self.out, stderr=subprocess.STDOUT, env=env,
            start_new_session=True, preexec_fn=die_with_parent)
        self.startup_timeout = startup_timeout
        self.m = None

    def connect(self):
        self.m = Marionette(host="127.0.0.1", port=self.port, startup_timeout=self.startup_timeout)
        self.m.start_session()

    def call(self, expr, args=(), timeout=30):
        """Awaits `expr` (JavaScript, in the page's own scope: FP is there); returns its value."""
        script = ("const done = arguments[arguments.length - 1];"
                  "const args = Array.from(arguments).slice(0, -1);"
                  f"Promise.resolve().then(() => {expr})"
                  ".then(v => done({ok: v === undefined ? null : v}),"
                  " e => done({err: String(e && e.message || e)}));")
        r = self.m.execute_async_script(script, script_args=list(args), sandbox=None,
                                        new_sandbox=False, script_timeout=int(timeout * 1000))
        if r is None or "err" in r:
            raise Failure(f"page: {expr}: {r and r['err']}")
        return r["ok"]

    def page_log(self):
        if self.m is None:
            return []
        try:
            return self.m.execute_script("return window.FP ? window.FP.log : []", sandbox=None)
        except Exception:
            return []

    def tails(self, lines=25):
        """The tail of Firefox's console and of its MOZ_LOG files (what is worth reading)."""
        out = []
        self.out.flush()
        paths = [self.console] + sorted(
            os.path.join(self.logs, n) for n in os.listdir(self.logs) if n.startswith("moz"))
        for p in paths:
            try:
                with open(p, errors="replace") as f:
                    text = [ln.rstrip() for ln in f if ln.strip()]
            except OSError:
                continue
            if os.path.basename(p).startswith("moz"):
                errors = [ln for ln in text if "]: E/" in ln]
                if errors:
                    out.append(f"--- {os.path.basename(p)}: errors (last {min(15, len(errors))})")
                    out += [ln[:300] for ln in errors[-15:]]
                text = text[-10:]
            else:
                text = text[-lines:]
            if text:
                out.append(f"--- {os.path.basename(p)} (last {len(text)} lines)")
                out += [ln[:300] for ln in text]
        return "\n".join(out)

    def kill(self):
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        self.out.close()


def http_request(method, url, body=None, token=None, timeout=15):
    headers = {}
    if body is not None:
        headers["Content-Type"] = "application/sdp"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url, data=body.encode() if body is not None else None,
                                 headers=headers, method=method)
    ctx = ssl.create_default_context()
    ctx.check_hostname = False          # test servers on 127.0.0.1 use throwaway certificates
    ctx.verify_mode = ssl.CERT_NONE
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}),
                                         urllib.request.HTTPSHandler(context=ctx))
    try:
        with opener.open(req, timeout=timeout) as r:
            return r.status, r.headers, r.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read().decode(errors="replace")
    except (urllib.error.URLError, OSError) as e:
        raise Failure(f"{method} {url}: {e}")


def exchange(ff, mode, url, args):
    """Non-trickle offer → POST → 201 answer applied. Returns (session URL, answer SDP)."""
    offer = ff.call("FP.offer(args[0], args[1], args[2])",
                    [mode, args.codec, int(args.timeout * 1000)], timeout=args.timeout + 10)
    if offer["gathering"] != "complete":
        raise Failure(f"ICE gathering did not complete within {args.timeout:g} s "
                      f"(iceGatheringState {offer['gathering']}){GATHER_HINT}")
    if "a=candidate" not in offer["sdp"]:
        raise Failure("the offer has no candidate")
    status, headers, answer = http_request("POST", url, offer["sdp"], args.token, args.timeout)
    if args.sdp_dir:
        os.makedirs(args.sdp_dir, exist_ok=True)
        for name, text in (("offer.sdp", offer["sdp"]), ("answer.sdp", answer)):
            with open(os.path.join(args.sdp_dir, name), "w") as f:
                f.write(text)
    if status != 201:
        raise Failure(f"POST {url} answered {status}: {answer.strip()[:300]}")
    location = headers.get("Location")
    session = urllib.parse.urljoin(url, location) if location else None
    ff.call("FP.answer(args[0])", [answer], timeout=args.timeout)
    return session, answer


def delete_session(session, args):
    """DELETE the WHEP/WHIP session; returns the status (or the error, as text): never raises."""
    if not session:
        return None
    try:
        return http_request("DELETE", session, token=args.token, timeout=args.timeout)[0]
    except Failure as e:
        log(str(e))
        return str(e)


def wait_for(what, timeout, check, interval=0.25):
    deadline = time.monotonic() + timeout
    while True:
        ok, last = check()
        if ok:
            return last
        if time.monotonic() >= deadline:
            raise Failure(f"timed out after {timeout:g} s waiting for {what}", last)
        time.sleep(interval)


def ice_failed(s):
    return s.get("ice") == "failed" or s.get("connection") == "failed"


def receive_and_measure(ff, args, started):
    """Waits for decoded and rendered frames, then measures args.seconds. Returns a dict."""
    def rendering():
        s = ff.call("FP.stats()")
        v, inv = s["video"], s.get("inbound_video", {})
        if ice_failed(s):
            raise Failure(f"ICE failed (ice {s['ice']}, connection {s['connection']})", s)
        return (inv.get("framesDecoded", 0) > 0 and v["readyState"] >= 2 and v["videoWidth"] > 0), s

    first = wait_for("decoded frames shown in the <video> (framesDecoded > 0, readyState >= 2, "
                     "videoWidth > 0)", args.timeout, rendering)
    first_ms = round((time.monotonic() - started) * 1000)
    t0 = time.monotonic()
    s0 = ff.call("FP.stats()")
    time.sleep(max(0.0, args.seconds - 1.0) / 2)
    pixels = ff.call("FP.pixels()", timeout=10)
    time.sleep(max(0.0, args.seconds - (time.monotonic() - t0)))
    s1 = ff.call("FP.stats()")
    span = time.monotonic() - t0
    iv0, iv1 = s0.get("inbound_video", {}), s1.get("inbound_video", {})
    ia0, ia1 = s0.get("inbound_audio", {}), s1.get("inbound_audio", {})
    decoded = iv1.get("framesDecoded", 0) - iv0.get("framesDecoded", 0)
    return {
        "first_frame_ms": first_ms,
        "seconds": round(span, 2),
        "video_codec": iv1.get("codec"),
        "frames_decoded": iv1.get("framesDecoded", 0),
        "frames_decoded_in_window": decoded,
        "decode_fps": round(decoded / span, 1),
        "frame_size": f"{iv1.get('frameWidth', 0)}x{iv1.get('frameHeight', 0)}",
        "audio_packets_received": ia1.get("packetsReceived", 0),
        "audio_packets_in_window": ia1.get("packetsReceived", 0) - ia0.get("packetsReceived", 0),
        "audio_codec": ia1.get("codec"),
        "video_element": s1["video"],
        "pixels": pixels,
        "moving_picture": bool(pixels.get("changed")) and pixels.get("luma_second", 0) > 16,
        "ice": s1["ice"], "connection": s1["connection"], "pair": s1.get("pair"),
        "inbound_video": iv1, "inbound_audio": ia1,
        "first_stats": first,
    }


def play(ff, args):
    started = time.monotonic()
    session, answer = exchange(ff, "play", args.url, args)
    try:
        out = receive_and_measure(ff, args, started)
    except Failure as e:
        e.seen = {"stats": e.seen, "answer_ssrc_lines":
                  [ln for ln in answer.splitlines() if ln.startswith("a=ssrc")]}
        raise
    finally:
        deleted = delete_session(session, args)
    out.pop("first_stats", None)
    out["delete_status"] = deleted
    out["answer_ssrc_lines"] = [ln for ln in answer.splitlines() if ln.startswith("a=ssrc")]
    return out


def publish(ff, args):
    session, _ = exchange(ff, "publish", args.url, args)
    try:
        def sending():
            s = ff.call("FP.stats()")
            if ice_failed(s):
                raise Failure(f"ICE failed (ice {s['ice']}, connection {s['connection']})", s)
            return (s["ice"] in ("connected", "completed")
                    and s.get("outbound_video", {}).get("framesEncoded", 0) > 0), s

        wait_for("ICE connected and frames encoded", args.timeout, sending)
        t0 = time.monotonic()
        s0 = ff.call("FP.stats()")
        time.sleep(args.seconds)
        s1 = ff.call("FP.stats()")
        span = time.monotonic() - t0
    finally:
        deleted = delete_session(session, args)
    ov0, ov1 = s0.get("outbound_video", {}), s1.get("outbound_video", {})
    oa1 = s1.get("outbound_audio", {})
    encoded = ov1.get("framesEncoded", 0) - ov0.get("framesEncoded", 0)
    return {
        "seconds": round(span, 2),
        "video_codec": ov1.get("codec"),
        "frames_encoded": ov1.get("framesEncoded", 0),
        "frames_encoded_in_window": encoded,
        "encode_fps": round(encoded / span, 1),
        "frame_size": f"{ov1.get('frameWidth', 0)}x{ov1.get('frameHeight', 0)}",
        "video_packets_sent": ov1.get("packetsSent", 0),
        "audio_packets_sent": oa1.get("packetsSent", 0),
        "audio_codec": oa1.get("codec"),
        "ice": s1["ice"], "connection": s1["connection"], "pair": s1.get("pair"),
        "outbound_video": ov1, "outbound_audio": oa1,
        "delete_status": deleted,
    }


def selftest(ff, args):
    started = time.monotonic()
    r = ff.call("FP.selftest(args[0], args[1])", [args.codec, int(args.timeout * 1000)],
                timeout=2 * args.timeout + 10)
    if r["gathering"] != "complete":
        raise Failure(f"ICE gathering did not complete within {args.timeout:g} s "
                      f"(iceGatheringState {r['gathering']}){GATHER_HINT}")
    out = receive_and_measure(ff, args, started)
    out.pop("first_stats", None)
    s = ff.call("FP.stats()")
    out["sender"] = {k: s["sender"].get(k) for k in ("ice", "connection", "outbound_video")}
    out["candidates"] = [ln for ln in r["sdp"].splitlines() if ln.startswith("a=candidate")][:4]
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("mode", choices=["play", "publish", "selftest"])
    p.add_argument("url", nargs="?", help="WHEP (play) or WHIP (publish) endpoint")
    p.add_argument("--seconds", type=float, default=5, help="measuring time (default 5)")
    p.add_argument("--token", help="bearer token for the WHEP/WHIP requests")
    p.add_argument("--codec", choices=["vp8", "vp9", "h264"], help="preferred video codec")
    p.add_argument("--timeout", type=float, default=20, help="bound of each wait (default 20 s)")
    p.add_argument("--startup-timeout", type=float, default=60, help="Firefox start (default 60 s)")
    p.add_argument("--sdp-dir", help="write offer.sdp and answer.sdp (as POSTed and answered) here")
    p.add_argument("--log-dir", help="keep Firefox's console.log and MOZ_LOG files here")
    p.add_argument("--moz-log", default=MOZ_LOG, help=f"MOZ_LOG modules ('' = off; default {MOZ_LOG})")
    p.add_argument("--pref", action="append", default=[], metavar="NAME=VALUE",
                   help="override a pref (VALUE as JSON: true, 0, \"text\"; else a string)")
    args = p.parse_args()
    if args.mode != "selftest" and not args.url:
        p.error(f"{args.mode} needs a URL")
    extra_prefs = {}
    for item in args.pref:
        name, sep, value = item.partition("=")
        if not sep:
            p.error(f"--pref {item}: expected NAME=VALUE")
        try:
            extra_prefs[name] = json.loads(value)
        except ValueError:
            extra_prefs[name] = value

    # SIGTERM/SIGINT → SystemExit, so the finally below (and atexit) kill Firefox.
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda n, f: sys.exit(128 + n))
    ff = server = None
    code = 0
    try:
        server = PageServer()
        ff = Firefox(args.moz_log, args.startup_timeout, args.log_dir, extra_prefs)
        atexit.register(ff.kill)
        ff.connect()
        ff.m.navigate(server.url)
        ff.call("window.FP ? true : Promise.reject('page did not load')", timeout=args.timeout)
        run = {"play": play, "publish": publish, "selftest": selftest}[args.mode]
        out = run(ff, args)
        out = dict({"ok": True, "mode": args.mode, "url": args.url, "codec_requested": args.codec},
                   **out)
        print(json.dumps(out), flush=True)
    except Failure as e:
        code = 1
        if e.seen is not None:
            print(json.dumps({"ok": False, "mode": args.mode, "url": args.url, "error": str(e),
                              "seen": e.seen}), flush=True)
        log(str(e))
    except Exception as e:  # marionette errors, Firefox that did not start, ...
        code = 1
        log(f"{type(e).__name__}: {e}")
    finally:
        report = []
        if code and ff is not None:
            try:
                page = ff.page_log()
                if page:
                    report.append("page log:\n" + "\n".join(page[-30:]))
                t = ff.tails()
                if t:
                    report.append("Firefox output:\n" + t)
            except Exception as e:
                report.append(f"(no Firefox output: {e})")
        if ff is not None:
            ff.kill()
            shutil.rmtree(ff.dir, ignore_errors=True)
        if server is not None:
            server.close()
        try:
            for r in report:
                log(r)
        except OSError:  # stderr closed (a pipe whose reader left): nothing more to say
            pass
    sys.exit(code)


if __name__ == "__main__":
    main()
