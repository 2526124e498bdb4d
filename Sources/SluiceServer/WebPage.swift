/// The page `sluice serve` shows at `GET /`: plain HTML and one script, no build step and
/// nothing loaded from elsewhere. It lists the WHEP streams and WHIP receivers, plays a stream
/// (WHEP), publishes the camera and microphone (WHIP), and shows live `getStats()` figures.
///
/// The figures are in the DOM as `#player [data-stat=NAME]` and `#publisher [data-stat=NAME]`,
/// and `window.sluice.stats()` returns them as `{play: {...}, publish: {...}}`; the browser
/// tests (`Tests/Browser/`) read them from there.
///
/// A string, not a SwiftPM resource: `Bundle.module` traps when the resource bundle is missing.
enum WebPage {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Sluice</title>
        <style>
          body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; max-width: 70em; color: #222; }
          h1 { font-size: 1.4em; margin: 0 0 .5em; }
          h2 { font-size: 1.1em; margin: 1.2em 0 .4em; }
          section { border: 1px solid #ccc; border-radius: 6px; padding: .6em 1em 1em; margin-bottom: 1em; }
          table { border-collapse: collapse; }
          td, th { padding: .15em .8em .15em 0; text-align: left; }
          video { width: 480px; max-width: 100%; background: #000; display: block; margin: .5em 0; }
          .stats td:nth-child(2) { font-variant-numeric: tabular-nums; min-width: 6em; }
          #error { color: #a00; white-space: pre-wrap; font-weight: 600; }
          #error:empty { display: none; }
          .state { color: #666; }
        </style>
        </head>
        <body>
        <h1>Sluice</h1>
        <p><label>Bearer token (optional): <input id="token" type="password" autocomplete="off" size="24"></label>
          <label title="Send media only through the server's TURN servers (--turn), as a viewer whose network allows nothing else would.">
            <input id="relay-only" type="checkbox"> relay only (TURN)</label></p>
        <p id="error" role="alert"></p>

        <section id="streams">
          <h2>Streams (WHEP)</h2>
          <table><thead><tr><th>name</th><th>viewers</th><th></th></tr></thead><tbody id="stream-list"></tbody></table>
          <p id="stream-empty" class="state"></p>
        </section>

        <section id="player">
          <h2>Player <span class="state" id="play-state">idle: press Play beside a stream above</span></h2>
          <video id="play-video" autoplay muted playsinline></video>
          <button id="play-stop" disabled>Stop</button>
          <table class="stats">
            <tr><td>resolution</td><td><span data-stat="width">-</span> × <span data-stat="height">-</span></td></tr>
            <tr><td>codec</td><td data-stat="codec">-</td></tr>
            <tr><td>fps</td><td data-stat="fps">-</td></tr>
            <tr><td>bitrate (kbps)</td><td data-stat="bitrate">-</td></tr>
            <tr><td>RTT (ms)</td><td data-stat="rtt">-</td></tr>
            <tr><td>ICE path</td><td data-stat="path">-</td></tr>
            <tr><td>frames decoded</td><td data-stat="framesDecoded">-</td></tr>
            <tr><td>packets lost</td><td data-stat="packetsLost">-</td></tr>
            <tr><td>first frame after the POST (ms)</td><td data-stat="firstFrameMs">-</td></tr>
          </table>
        </section>

        <section id="receivers">
          <h2>Publish camera and microphone (WHIP)</h2>
          <table><thead><tr><th>receiver</th><th>live sessions</th><th>ended sessions</th><th>video frames received</th></tr></thead>
            <tbody id="receiver-list"></tbody></table>
          <p><label>Name: <input id="publish-name" list="receiver-names" size="20"></label>
            <datalist id="receiver-names"></datalist>
            <button id="publish-start">Publish</button>
            <button id="publish-stop" disabled>Stop</button>
            <label><input type="checkbox" id="publish-simulcast"> simulcast (720p, 360p, 180p; for a relay)</label>
            <span class="state" id="publish-state">idle</span></p>
        </section>

        <section id="publisher">
          <h2>Publisher</h2>
          <video id="publish-video" autoplay muted playsinline></video>
          <table class="stats">
            <tr><td>resolution</td><td><span data-stat="width">-</span> × <span data-stat="height">-</span></td></tr>
            <tr><td>codec</td><td data-stat="codec">-</td></tr>
            <tr><td>fps</td><td data-stat="fps">-</td></tr>
            <tr><td>bitrate (kbps)</td><td data-stat="bitrate">-</td></tr>
            <tr><td>RTT (ms)</td><td data-stat="rtt">-</td></tr>
            <tr><td>frames sent</td><td data-stat="framesSent">-</td></tr>
          </table>
        </section>

        <script>
        "use strict";
        // Everything the page does: list what the server offers, and run at most one WHEP player
        // and one WHIP publisher, each an RTCPeerConnection whose stats are read once a second.
        (() => {
          const $ = (id) => document.getElementById(id);
          const stats = { play: {}, publish: {} };       // latest figures, also shown in the DOM
          const sessions = { play: null, publish: null }; // {pc, location, timer, ...} while running

          function showError(message) { $("error").textContent = message || ""; }

          // Headers for every request to the server (WHIP, WHEP and the lists): the bearer token
          // when one is filled in. With `sluice serve --token`, everything but this page needs it.
          function headers(extra) {
            const h = Object.assign({}, extra);
            const token = $("token").value.trim();
            if (token) h["Authorization"] = "Bearer " + token;
            return h;
          }

          // --- Lists, refreshed every two seconds -------------------------------------------------
          async function getJSON(path) {
            const r = await fetch(path, { cache: "no-store", headers: headers() });
            if (!r.ok) throw new Error(`GET ${path}: ${r.status} ${await r.text()}`);
            return r.json();
          }

          // The last error the lists showed: cleared once they load again (say, after the token is
          // filled in), while an error from Play or Publish stays.
          let listError = null;

          function cell(row, text) { const td = row.insertCell(); td.textContent = text; return td; }

          async function refreshLists() {
            try {
              const streams = await getJSON("/streams.json");
              const body = $("stream-list");
              body.replaceChildren();
              for (const s of streams) {
                const row = body.insertRow();
                row.dataset.stream = s.name;
                cell(row, s.name);
                cell(row, String(s.viewers));
                const b = document.createElement("button");
                b.textContent = "Play";
                b.className = "play";
                b.dataset.stream = s.name;
                b.onclick = () => play(s.name, s.whep);
                const actions = row.insertCell();
                actions.append(b);
                if (!s.relayed) {
                  // The pipeline's picture, fetched with the token (a plain link could not send it).
                  const g = document.createElement("a");
                  g.textContent = " graph";
                  g.href = `/pipelines/${encodeURIComponent(s.name)}/graph.svg`;
                  g.className = "graph";
                  g.onclick = async (e) => {
                    e.preventDefault();
                    const r = await fetch(g.href, { headers: headers() });
                    if (!r.ok) { showError(`GET ${g.href}: ${r.status} ${await r.text()}`); return; }
                    window.open(URL.createObjectURL(await r.blob()), "_blank");
                  };
                  actions.append(g);
                }
              }
              $("stream-empty").textContent = streams.length ? "" : "No streams (start the server with --pipeline FILE).";

              const [receivers, whip] = await Promise.all([getJSON("/receivers.json"), getJSON("/whip.json")]);
              const list = $("receiver-list"), names = $("receiver-names");
              list.replaceChildren(); names.replaceChildren();
              for (const r of receivers) {
                const live = whip.sessions.filter((s) => s.stream === r.name);
                const ended = whip.ended[r.name] || { sessions: 0, video_frames: 0 };
                const frames = ended.video_frames + live.reduce((n, s) => n + s.video_frames, 0);
                const row = list.insertRow();
                row.dataset.receiver = r.name;
                cell(row, r.name); cell(row, String(live.length)); cell(row, String(ended.sessions));
                cell(row, String(frames)).dataset.videoFrames = r.name;
                const o = document.createElement("option"); o.value = r.name; names.append(o);
              }
              if (!$("publish-name").value && receivers.length) $("publish-name").value = receivers[0].name;
              if (listError !== null && $("error").textContent === listError) showError("");
              listError = null;
            } catch (e) {
              listError = String(e.message || e);
              showError(listError);
            }
          }

          // --- ICE servers: the server's --stun and --turn, and the relay-only switch -------------
          // `?relay=1` in the page's address ticks the switch.
          async function rtcConfiguration() {
            const relay = $("relay-only").checked;
            const { iceServers } = await getJSON("/ice-servers.json");
            if (relay && !iceServers.some((s) => /^turns?:/.test(s.urls))) {
              throw new Error("Relay only needs a TURN server, and this server announces none (sluice serve --turn).");
            }
            return { iceServers, iceTransportPolicy: relay ? "relay" : "all" };
          }
          if (new URLSearchParams(location.search).get("relay") === "1") $("relay-only").checked = true;
          if (new URLSearchParams(location.search).get("simulcast") === "1") $("publish-simulcast").checked = true;
          // `?token=T` fills the token field (a link that carries a short-lived JWT), and is
          // then taken out of the address bar so it is not bookmarked or shared with the page.
          {
            const query = new URLSearchParams(location.search);
            if (query.get("token")) {
              $("token").value = query.get("token");
              query.delete("token");
              const rest = query.toString();
              history.replaceState(null, "", location.pathname + (rest ? "?" + rest : "") + location.hash);
            }
          }

          // --- Offer/answer over WHIP or WHEP -----------------------------------------------------
          // Sends a complete offer (every candidate inside, so no trickle PATCH is needed) and
          // applies the answer. Returns the session URL from Location.
          async function negotiate(pc, url, onPost) {
            await pc.setLocalDescription(await pc.createOffer());
            if (pc.iceGatheringState !== "complete") {
              await new Promise((resolve) => {
                const done = () => { if (pc.iceGatheringState === "complete") resolve(); };
                pc.addEventListener("icegatheringstatechange", done);
                setTimeout(resolve, 5000); // never hang: send what was gathered by then
              });
            }
            if (onPost) onPost(performance.now());
            const r = await fetch(url, {
              method: "POST",
              headers: headers({ "Content-Type": "application/sdp" }),
              body: pc.localDescription.sdp,
            });
            const text = await r.text();
            if (r.status !== 201) throw new Error(`POST ${url}: ${r.status} ${r.statusText}\n${text}`);
            await pc.setRemoteDescription({ type: "answer", sdp: text });
            return new URL(r.headers.get("Location"), location.href).href;
          }

          async function stop(kind) {
            const s = sessions[kind];
            if (!s) return;
            sessions[kind] = null;
            clearInterval(s.timer);
            if (s.stream) s.stream.getTracks().forEach((t) => t.stop());
            s.pc.close();
            $(kind + "-state").textContent = kind === "play" ? "stopped: press Play beside a stream to watch again" : "stopped";
            $(kind === "play" ? "play-stop" : "publish-stop").disabled = true;
            if (s.location) {
              try {
                const r = await fetch(s.location, { method: "DELETE", headers: headers() });
                if (!r.ok) showError(`DELETE ${s.location}: ${r.status} ${await r.text()}`);
              } catch (e) { showError(String(e.message || e)); }
            }
            refreshLists();
          }

          // --- Statistics, once a second ----------------------------------------------------------
          // Bitrate is the difference in bytes since the last reading; RTT is the selected
          // candidate pair's currentRoundTripTime.
          async function readStats(kind) {
            const s = sessions[kind];
            if (!s) return;
            const report = await s.pc.getStats();
            if (sessions[kind] !== s) return; // stopped meanwhile
            const out = {}; let bytes = 0, pair = null, transportPair = null;
            report.forEach((r) => {
              if (r.type === "transport" && r.selectedCandidatePairId) transportPair = r.selectedCandidatePairId;
              if (r.type === "candidate-pair" && r.nominated && r.state === "succeeded") pair = pair || r;
              if (kind === "play" && r.type === "inbound-rtp") {
                bytes += r.bytesReceived || 0;
                if (r.kind === "video") {
                  out.framesDecoded = r.framesDecoded || 0;
                  out.width = r.frameWidth || 0; out.height = r.frameHeight || 0;
                  out.fps = r.framesPerSecond || 0;
                  out.packetsLost = r.packetsLost || 0;
                  // WebRTC's freezes (a frame over max(3 × the mean interval, mean + 150 ms)
                  // late) and the jitter buffer's mean hold, as the browser counts them.
                  out.freezeCount = r.freezeCount || 0;
                  out.freezesMs = Math.round((r.totalFreezesDuration || 0) * 1000);
                  out.jitterBufferMs = r.jitterBufferEmittedCount ? Math.round(r.jitterBufferDelay / r.jitterBufferEmittedCount * 10000) / 10 : null;
                  const codec = r.codecId && report.get(r.codecId);
                  if (codec) {
                    out.codec = codec.mimeType.replace(/^video\//, "");
                    out.payloadType = codec.payloadType; out.fmtp = codec.sdpFmtpLine || "";
                  }
                }
              }
              if (kind === "publish" && r.type === "outbound-rtp") {
                bytes += r.bytesSent || 0;
                if (r.kind === "video") {
                  out.framesSent = r.framesSent || 0;
                  const codec = r.codecId && report.get(r.codecId);
                  if (codec) out.codec = codec.mimeType.replace(/^video\//, "");
                  out.width = r.frameWidth || 0; out.height = r.frameHeight || 0;
                  out.fps = r.framesPerSecond || 0;
                }
              }
            });
            if (transportPair && report.get(transportPair)) pair = report.get(transportPair);
            const end = (id) => { const c = id && report.get(id); return c ? `${c.protocol} ${c.candidateType}` : "?"; };
            out.path = pair ? `${end(pair.localCandidateId)} -> ${end(pair.remoteCandidateId)}` : null;
            out.rtt = pair && pair.currentRoundTripTime !== undefined ? Math.round(pair.currentRoundTripTime * 1000 * 10) / 10 : null;
            const now = performance.now();
            out.bitrate = s.lastBytes === undefined ? 0 : Math.round((bytes - s.lastBytes) * 8 / (now - s.lastTime)); // bits/ms = kbit/s
            s.lastBytes = bytes; s.lastTime = now;
            out.firstFrameMs = s.firstFrameMs;
            out.iceState = s.pc.iceConnectionState;
            out.seconds = Math.round((now - s.started) / 100) / 10;
            stats[kind] = out;
            for (const el of $(kind === "play" ? "player" : "publisher").querySelectorAll("[data-stat]")) {
              const v = out[el.dataset.stat];
              el.textContent = v === undefined || v === null ? "-" : String(v);
            }
            $(kind + "-state").textContent = `${s.name}: ICE ${out.iceState}`;
          }

          function begin(kind, name, pc, extra) {
            const s = Object.assign({ pc, name, started: performance.now(), location: null }, extra);
            s.timer = setInterval(() => readStats(kind).catch((e) => showError(String(e.message || e))), 1000);
            sessions[kind] = s;
            stats[kind] = {};
            $(kind + "-state").textContent = `${name}: connecting`;
            return s;
          }

          // The first frame after the WHEP POST, to the millisecond: the moment the player has
          // a decoded frame to show (requestVideoFrameCallback), or the first of getStats polls
          // every 5 ms that counts a decoded frame, whichever comes first.
          function watchFirstFrame(s, video) {
            const seen = (t) => {
              if (s.firstFrameMs === undefined && s.posted !== undefined) s.firstFrameMs = Math.round(t - s.posted);
            };
            if (video.requestVideoFrameCallback) video.requestVideoFrameCallback(() => seen(performance.now()));
            const poll = setInterval(async () => {
              if (sessions.play !== s || s.firstFrameMs !== undefined) { clearInterval(poll); return; }
              const report = await s.pc.getStats();
              report.forEach((r) => {
                if (r.type === "inbound-rtp" && r.kind === "video" && r.framesDecoded > 0) seen(performance.now());
              });
            }, 5);
          }

          // --- WHEP: play a stream ----------------------------------------------------------------
          async function play(name, url) {
            showError("");
            await stop("play");
            let config;
            try { config = await rtcConfiguration(); } catch (e) { showError(String(e.message || e)); return; }
            const pc = new RTCPeerConnection(config);
            const s = begin("play", name, pc);
            const media = new MediaStream();
            const video = $("play-video");
            video.srcObject = media;
            pc.ontrack = (e) => { media.addTrack(e.track); video.play().catch(() => {}); };
            pc.addTransceiver("video", { direction: "recvonly" });
            pc.addTransceiver("audio", { direction: "recvonly" });
            $("play-stop").disabled = false;
            watchFirstFrame(s, video);
            try {
              s.location = await negotiate(pc, url || "/whep/" + encodeURIComponent(name), (t) => { s.posted = t; });
            } catch (e) {
              showError(String(e.message || e));
              await stop("play");
            }
          }

          // --- WHIP: publish the camera and microphone --------------------------------------------
          async function publish(name) {
            showError("");
            await stop("publish");
            if (!name) { showError("Enter the name of a receiver to publish to."); return; }
            let config;
            try { config = await rtcConfiguration(); } catch (e) { showError(String(e.message || e)); return; }
            // Simulcast (`?simulcast=1` ticks it): three layers, smallest first as browsers
            // list them, which a relay keeps and forwards one of to each viewer.
            const simulcast = $("publish-simulcast").checked;
            let stream;
            try {
              const video = simulcast ? { width: 1280, height: 720 } : true;
              stream = await navigator.mediaDevices.getUserMedia({ video, audio: true });
            } catch (e) {
              showError("Camera/microphone: " + (e.message || e));
              return;
            }
            $("publish-video").srcObject = stream;
            const pc = new RTCPeerConnection(config);
            const s = begin("publish", name, pc, { stream });
            for (const track of stream.getTracks()) {
              const init = { direction: "sendonly", streams: [stream] };
              if (simulcast && track.kind === "video") {
                init.sendEncodings = [
                  { rid: "l", scaleResolutionDownBy: 4, maxBitrate: 150000 },
                  { rid: "m", scaleResolutionDownBy: 2, maxBitrate: 500000 },
                  { rid: "h", maxBitrate: 1500000 }
                ];
              }
              pc.addTransceiver(track, init);
            }
            $("publish-stop").disabled = false;
            try {
              s.location = await negotiate(pc, "/whip/" + encodeURIComponent(name));
            } catch (e) {
              showError(String(e.message || e));
              await stop("publish");
            }
          }

          $("token").addEventListener("change", () => refreshLists());
          $("play-stop").onclick = () => stop("play");
          $("publish-start").onclick = () => publish($("publish-name").value.trim());
          $("publish-stop").onclick = () => stop("publish");
          refreshLists();
          setInterval(refreshLists, 2000);

          // For scripts and tests.
          window.sluice = {
            stats: () => JSON.parse(JSON.stringify(stats)),
            play, publish,
            stopPlay: () => stop("play"),
            stopPublish: () => stop("publish"),
            refresh: refreshLists,
          };
        })();
        </script>
        </body>
        </html>
        """#
}
