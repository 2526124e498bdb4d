#!/usr/bin/env python3
"""Headless Chromium (or Firefox) as an echo peer in an AppRTC-compatible room (`sluice serve` has one).

    browser_echo.py BASE_URL --room R [--seconds N] [--timeout T] [--browser chromium|firefox]

Joins room R at BASE_URL (POST /join, WebSocket register) as the second peer and answers the
offer found there in the browser: every transceiver sends back what it receives
(`RTCRtpSender.replaceTrack(receiver.track)`), so the picture is decoded and encoded again by
the browser's own video pipeline, and the sound goes through its jitter buffer (Chromium's
NetEq; Firefox uses the same webrtc.org audio engine), decoder and Opus encoder; the received
sound is also played (an <audio> element), as a call would.
Candidates the offering peer trickles are added; the answer carries Chromium's own. Waits for
the offering peer's bye (at most N + T seconds), leaves, and prints one JSON line: the
browser's view of the call from getStats (inbound audio: packets, concealed samples, jitter
buffer delay; inbound video: frames decoded; outbound: packets sent per kind).

With --e2ee-passphrase P (Chromium), every received frame is decrypted and every frame sent
back is encrypted in LiveKit's end-to-end format (the page's own implementation: an
RTCRtpScriptTransform worker with WebCrypto, PBKDF2-SHA256 100 000 rounds with the salt
"LKFrameEncryptionKey", AES-GCM-128, clear headers VP8 10/3 bytes, H.264 up to 2 bytes into
the first slice with emulation prevention after it, and Opus 1, trailer IV ‖ 12 ‖ key index),
as Sluice's `e2ee` filter does it; the JSON line gains "e2ee": frames decrypted, failed and
encrypted per kind, and under "h264" and "vp9" the H.264 and VP9 frames decrypted and encrypted. A frame that does not decrypt is dropped. With
--e2ee-ratchet-after N the page ratchets its sending key one step (LiveKit's ratchet) after N
video frames, as a LiveKit sender does, and counts what it encrypted after.

Selenium drives Debian's Chromium (flags as in browser_check.py); marionette-driver drives
Debian's Firefox ESR (the prefs and process handling of Tests/Interop/firefox/firefox_peer.py).
The page is `sluice serve`'s own (a secure context at http://127.0.0.1). Every wait is bounded;
failures exit 1 with a message on stderr. Run inside a loopback-only network namespace.
"""
import argparse
import asyncio
import json
import os
import shutil
import sys

import aiohttp

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from browser_check import Failure, log, start_browser  # noqa: E402


class Chromium:
    """Headless Chromium through selenium: runs the page's scripts."""

    def __init__(self, url, timeout):
        self.driver, self.profile = start_browser([], [])
        self.driver.set_script_timeout(timeout)
        self.driver.get(url)

    def run_async(self, script, *values):
        return self.driver.execute_async_script(script, *values)

    def run(self, script):
        return self.driver.execute_script(script)

    def quit(self):
        self.driver.quit()
        shutil.rmtree(self.profile, ignore_errors=True)


class Firefox:
    """Headless Firefox ESR through marionette (firefox_peer.py's profile and process group)."""

    def __init__(self, url, timeout):
        sys.path.insert(0, os.path.join(HERE, "..", "Interop", "firefox"))
        import firefox_peer
        self.timeout = timeout
        self.ff = firefox_peer.Firefox(moz_log="", startup_timeout=60)
        try:
            self.ff.connect()
            self.ff.m.navigate(url)
        except Exception as e:
            self.quit()
            raise Failure(f"Firefox did not start or load {url}: {e}\n{self.ff.tails()}")

    def run_async(self, script, *values):
        return self.ff.m.execute_async_script(script, script_args=list(values), sandbox=None, new_sandbox=False,
                                              script_timeout=int(self.timeout * 1000))

    def run(self, script):
        return self.ff.m.execute_script(script, sandbox=None, new_sandbox=False)

    def quit(self):
        self.ff.kill()
        shutil.rmtree(self.ff.dir, ignore_errors=True)

# LiveKit's frame format with WebCrypto, in an RTCRtpScriptTransform worker (see the module's
# documentation): written here from LiveKit's description, not taken from Sluice's Swift.
E2EE_WORKER_JS = r"""
const counts = {decrypted: {}, failed: {}, encrypted: {}, encryptedAfterRatchet: {}, h264: {}, vp9: {}};
const bump = (what, kind) => { counts[what][kind] = (counts[what][kind] || 0) + 1; };
setInterval(() => self.postMessage(counts), 250);
const keys = {};
const pbkdf2 = {name: 'PBKDF2', salt: new TextEncoder().encode('LKFrameEncryptionKey'), iterations: 100000, hash: 'SHA-256'};
// The material after `steps` ratchet steps (LiveKit's ratchet: 256 bits derived from the
// material become the next material), and the AES-GCM key it gives.
async function material(passphrase, steps) {
  let m = await crypto.subtle.importKey('raw', new TextEncoder().encode(passphrase), {name: 'PBKDF2'}, false, ['deriveKey', 'deriveBits']);
  for (let i = 0; i < steps; i++) {
    const bits = await crypto.subtle.deriveBits(pbkdf2, m, 256);
    m = await crypto.subtle.importKey('raw', bits, {name: 'PBKDF2'}, false, ['deriveKey', 'deriveBits']);
  }
  return m;
}
function frameKey(passphrase, steps = 0) {
  const id = passphrase + '#' + steps;
  if (!keys[id]) keys[id] = material(passphrase, steps).then(m =>
    crypto.subtle.deriveKey(pbkdf2, m, {name: 'AES-GCM', length: 128}, false, ['encrypt', 'decrypt']));
  return keys[id];
}
// --e2ee-ratchet-after N: after N video frames sent, every frame sent uses the key one
// ratchet step on (a LiveKit sender that ratchets); the receiver must follow.
let sendSteps = 0, videoSent = 0;
const clearBytes = (kind, frame) => kind === 'audio' ? 1 : (frame.type === 'key' ? 10 : 3);
// VP9 keeps nothing in the clear (LiveKit's rule): its frames are told by their metadata's MIME type.
const isVP9 = (kind, frame) => kind === 'video' && (frame.getMetadata().mimeType || '').toLowerCase() === 'video/vp9';
// H.264 (an Annex B frame): clear up to 2 bytes into the first slice NAL unit (types 1 and
// 5), and emulation prevention on what follows, as LiveKit's FrameCryptor does; -1 otherwise.
function h264Clear(data) {
  if (!(data.length > 4 && data[0] === 0 && data[1] === 0 && (data[2] === 1 || (data[2] === 0 && data[3] === 1)))) return -1;
  for (let i = 0; i + 3 <= data.length; i++) {
    if (data[i] !== 0 || data[i + 1] !== 0 || data[i + 2] !== 1) continue;
    const header = i + 3;
    if (header >= data.length) return -1;
    const type = data[header] & 0x1f;
    if (type === 1 || type === 5) return header + 2;
    i = header - 1;
  }
  return -1;
}
function escapeRbsp(d) {
  const out = []; let zeros = 0;
  for (const b of d) { if (b <= 3 && zeros >= 2) { out.push(3); zeros = 0; } out.push(b); zeros = b === 0 ? zeros + 1 : 0; }
  return Uint8Array.from(out);
}
function unescapeRbsp(d) {
  const out = [];
  for (let i = 0; i < d.length; i++) {
    if (i + 2 < d.length && d[i] === 0 && d[i + 1] === 0 && d[i + 2] === 3) { out.push(0, 0); i += 2; } else out.push(d[i]);
  }
  return Uint8Array.from(out);
}
let counter = 0;
async function encrypt(frame, kind, key, keyIndex) {
  const vp9 = isVP9(kind, frame);
  const data = new Uint8Array(frame.data), slice = kind === 'video' && !vp9 ? h264Clear(data) : -1;
  const clear = vp9 ? 0 : Math.min(slice >= 0 ? slice : clearBytes(kind, frame), data.length);
  const iv = new Uint8Array(12), view = new DataView(iv.buffer);
  view.setUint32(0, frame.getMetadata().synchronizationSource || 0);
  view.setUint32(4, frame.timestamp >>> 0);
  view.setUint32(8, counter++ >>> 0);
  const header = data.subarray(0, clear);
  const sealed = new Uint8Array(await crypto.subtle.encrypt({name: 'AES-GCM', iv, additionalData: header}, key, data.subarray(clear)));
  let tail = new Uint8Array(sealed.length + 14);
  tail.set(sealed, 0); tail.set(iv, sealed.length);
  tail[tail.length - 2] = 12; tail[tail.length - 1] = keyIndex;
  if (slice >= 0) tail = escapeRbsp(tail);
  const out = new Uint8Array(clear + tail.length);
  out.set(header, 0); out.set(tail, clear);
  frame.data = out.buffer;
  if (slice >= 0) bump('h264', 'encrypted');
  if (vp9) bump('vp9', 'encrypted');
}
async function decrypt(frame, kind, key) {
  const vp9 = isVP9(kind, frame);
  const data = new Uint8Array(frame.data), slice = kind === 'video' && !vp9 ? h264Clear(data) : -1;
  const clear = vp9 ? 0 : slice >= 0 ? slice : clearBytes(kind, frame);
  const body = slice >= 0 ? unescapeRbsp(data.subarray(clear)) : data.subarray(clear);
  if (body.length < 16 + 14 || body[body.length - 2] !== 12) throw new Error('not an encrypted frame');
  const ivStart = body.length - 14;
  const plain = new Uint8Array(await crypto.subtle.decrypt(
    {name: 'AES-GCM', iv: body.subarray(ivStart, ivStart + 12), additionalData: data.subarray(0, clear)},
    key, body.subarray(0, ivStart)));
  const out = new Uint8Array(clear + plain.length);
  out.set(data.subarray(0, clear), 0); out.set(plain, clear);
  frame.data = out.buffer;
  if (slice >= 0) bump('h264', 'decrypted');
  if (vp9) bump('vp9', 'decrypted');
}
onrtctransform = event => {
  const {side, kind, passphrase, ratchetAfter} = event.transformer.options;
  counts.transforms = counts.transforms || {};
  counts.transforms[side + ' ' + kind] = (counts.transforms[side + ' ' + kind] || 0) + 1;
  event.transformer.readable.pipeThrough(new TransformStream({
    async transform(frame, controller) {
      if (side === 'send') {
        if (kind === 'video' && ++videoSent === ratchetAfter) { sendSteps = 1; counts.ratchetedAfter = {video: videoSent}; }
        await encrypt(frame, kind, await frameKey(passphrase, sendSteps), 0);
        bump('encrypted', kind);
        if (sendSteps > 0) bump('encryptedAfterRatchet', kind);
        controller.enqueue(frame);
      } else {
        const key = await frameKey(passphrase);
        try { await decrypt(frame, kind, key); } catch (e) { bump('failed', kind); return; }
        bump('decrypted', kind);
        controller.enqueue(frame);
      }
    }
  })).pipeTo(event.transformer.writable).catch(e => { counts.error = side + ' ' + kind + ': ' + e; });
};
"""

ANSWER_JS = """
const offer = arguments[0], workerSource = arguments[1], passphrase = arguments[2], ratchetAfter = arguments[3], done = arguments[arguments.length - 1];
(async () => {
  const pc = new RTCPeerConnection();
  window.echo = pc;
  const heard = new MediaStream();
  pc.ontrack = e => heard.addTrack(e.track);
  await pc.setRemoteDescription({type: 'offer', sdp: offer});
  if (passphrase) {
    if (typeof RTCRtpScriptTransform === 'undefined') throw new Error('this browser has no RTCRtpScriptTransform');
    const worker = new Worker(URL.createObjectURL(new Blob([workerSource], {type: 'text/javascript'})));
    window.e2ee = {};
    worker.onmessage = m => { window.e2ee = m.data; };
    for (const t of pc.getTransceivers()) {
      const kind = t.receiver.track.kind;
      t.receiver.transform = new RTCRtpScriptTransform(worker, {side: 'receive', kind, passphrase});
      t.sender.transform = new RTCRtpScriptTransform(worker, {side: 'send', kind, passphrase, ratchetAfter});
    }
  }
  for (const t of pc.getTransceivers()) {
    await t.sender.replaceTrack(t.receiver.track);
    t.direction = 'sendrecv';
  }
  const audio = document.createElement('audio');
  audio.autoplay = true;
  audio.srcObject = heard;
  document.body.appendChild(audio);
  await pc.setLocalDescription(await pc.createAnswer());
  await new Promise(r => {
    if (pc.iceGatheringState === 'complete') return r();
    pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === 'complete') r(); };
    setTimeout(r, 5000);
  });
  done(pc.localDescription.sdp);
})().catch(e => done('ERROR ' + e));
"""

CANDIDATE_JS = """
const done = arguments[arguments.length - 1];
window.echo.addIceCandidate({candidate: arguments[0], sdpMLineIndex: arguments[1]}).then(() => done(''), e => done('' + e));
"""

STATS_JS = """
const done = arguments[arguments.length - 1];
window.echo.getStats().then(report => {
  const out = {ice: window.echo.iceConnectionState, connection: window.echo.connectionState};
  report.forEach(s => {
    if (s.type === 'inbound-rtp') out['in_' + s.kind] = {
      packets: s.packetsReceived, lost: s.packetsLost, frames_decoded: s.framesDecoded,
      concealed_samples: s.concealedSamples, total_samples: s.totalSamplesReceived,
      jitter_buffer_delay_ms: s.jitterBufferEmittedCount ? 1000 * s.jitterBufferDelay / s.jitterBufferEmittedCount : null};
    if (s.type === 'outbound-rtp') out['out_' + s.kind] = {packets: s.packetsSent, frames_encoded: s.framesEncoded};
    if (s.type === 'transport') out.dtls = s.dtlsState;
  });
  if (window.e2ee) out.e2ee = window.e2ee;
  done(out);
}, e => done({error: '' + e}));
"""


async def echo(args, page):
    base = args.url.rstrip("/")
    loop = asyncio.get_running_loop()

    def browser(script, *values):
        return loop.run_in_executor(None, lambda: page.run_async(script, *values))

    bye = asyncio.Event()
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=args.timeout)) as http:
        async with http.post(f"{base}/join/{args.room}") as r:
            joined = json.loads(await r.text())
        if joined.get("result") != "SUCCESS":
            raise Failure(f"join answered {joined}")
        params = joined["params"]
        client = params["client_id"]
        if params["is_initiator"] == "true":
            raise Failure("joined first: this peer only answers; start the offering peer first")
        ws = await http.ws_connect(params["wss_url"])
        await ws.send_str(json.dumps({"cmd": "register", "roomid": args.room, "clientid": client}))
        pending = []

        async def handle(msg):
            if msg.get("type") == "offer":
                answer = await browser(ANSWER_JS, msg["sdp"], E2EE_WORKER_JS, args.e2ee_passphrase, args.e2ee_ratchet_after)
                if answer.startswith("ERROR"):
                    raise Failure(f"{args.browser} could not answer: {answer}\n{msg['sdp']}")
                await ws.send_str(json.dumps({"cmd": "send", "msg": json.dumps({"type": "answer", "sdp": answer})}))
                for c in pending:
                    await handle(c)
            elif msg.get("type") == "candidate" and msg.get("candidate"):
                if not page.run("return !!window.echo"):
                    pending.append(msg)
                    return
                why = await browser(CANDIDATE_JS, msg["candidate"], msg.get("label", 0))
                if why:
                    log(f"a candidate was not taken: {why}")
            elif msg.get("type") == "bye":
                bye.set()

        for queued in params.get("messages", []):
            await handle(json.loads(queued))

        async def listen():
            async for m in ws:
                body = json.loads(m.data)
                if body.get("msg"):
                    await handle(json.loads(body["msg"]))
        listener = asyncio.ensure_future(listen())
        try:
            await asyncio.wait_for(bye.wait(), args.seconds + args.timeout)
        except asyncio.TimeoutError:
            log("no bye came: leaving")
        stats = await browser(STATS_JS) if page.run("return !!window.echo") else {}
        listener.cancel()
        await http.post(f"{base}/leave/{args.room}/{client}")
        await ws.close()
    return stats


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("url")
    p.add_argument("--room", required=True)
    p.add_argument("--seconds", type=float, default=30)
    p.add_argument("--timeout", type=float, default=30)
    p.add_argument("--browser", choices=["chromium", "firefox"], default="chromium")
    p.add_argument("--e2ee-passphrase", help="decrypt what arrives and encrypt what goes back (LiveKit's format)")
    p.add_argument("--e2ee-ratchet-after", type=int, default=0,
                   help="after this many video frames sent, ratchet the sending key one step (LiveKit's ratchet)")
    args = p.parse_args()
    if args.e2ee_passphrase and args.browser != "chromium":
        p.error("--e2ee-passphrase needs --browser chromium (RTCRtpScriptTransform)")
    page = None
    try:
        page = (Firefox if args.browser == "firefox" else Chromium)(args.url.rstrip("/") + "/", args.timeout)
        stats = asyncio.run(echo(args, page))
        print(json.dumps(stats), flush=True)
        if not stats.get("in_audio") and not stats.get("in_video"):
            raise Failure(f"{args.browser} received nothing: {stats}")
    except Failure as e:
        log(str(e))
        sys.exit(1)
    finally:
        if page:
            page.quit()


if __name__ == "__main__":
    main()
