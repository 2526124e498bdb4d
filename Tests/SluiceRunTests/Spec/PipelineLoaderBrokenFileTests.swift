import Foundation
import SluiceRun
import SluiceRunTestSupport
import XCTest

/// One broken pipeline file and the single diagnostic it must produce.
private struct BrokenCase {
    var name: String
    var yaml: String
    var overrides: [String] = []
    var environment: [String: String] = [:]
    var catalog: SpecFakeCatalog?
    /// `LINE:COL` in test.yaml, or a whole location such as `--set a=b:1:3`.
    var at: String
    var message: String
    var category: Diagnostic.Category = .invalidFile
}

/// A valid send section to build broken files around.
private let validSend = """
    send:
      video:
        capture: {kind: test}
    """

private let brokenCases: [BrokenCase] = [
    // MARK: YAML itself
    BrokenCase(
        name: "syntax error: unclosed flow mapping",
        yaml: """
            send:
              video:
                capture: {kind: test
            """, at: "3:25", message: "YAML syntax error: did not find expected ',' or '}'"),
    BrokenCase(
        name: "syntax error: bad indentation",
        yaml: """
            send:
              video:
                capture:
                  kind: test
                 encode: {}
            """, at: "5:6", message: "YAML syntax error"),
    BrokenCase(name: "tab indentation", yaml: "send:\n\tvideo: {}\n", at: "2:1", message: "indent with spaces, not tabs"),
    BrokenCase(
        name: "duplicate key",
        yaml: """
            send:
              video:
                capture:
                  kind: test
                  kind: camera
            """, at: "5:7", message: "duplicate key 'kind'"),
    BrokenCase(
        name: "two documents", yaml: validSend + "\n---\nname: x\n", at: "4:1",
        message: "remove the extra '---'"),
    BrokenCase(
        name: "undefined alias",
        yaml: """
            send:
              video:
                capture: *cap
            """, at: "3:14", message: "define the anchor"),
    BrokenCase(
        name: "root is a list", yaml: "- send\n- receive\n", at: "1:1",
        message: "expected a mapping of sections (send, receive, transport, ...) at the top level, got a list"),
    BrokenCase(name: "root is a scalar", yaml: "  hello\n", at: "1:1", message: "got a scalar"),
    BrokenCase(name: "empty file", yaml: "", at: "1:1", message: "the file is empty"),
    BrokenCase(name: "only comments", yaml: "# nothing here\n", at: "1:1", message: "the file is empty"),

    // MARK: Unknown keys
    BrokenCase(
        name: "unknown top-level key", yaml: validSend + "\nrecieve: {}\n", at: "4:1",
        message: "unknown key 'recieve' at the top level; did you mean 'receive'?"),
    BrokenCase(
        name: "unknown key in encode", yaml: validSend + "\n    encode: {bitrat: 100}\n", at: "4:14",
        message: "unknown key 'bitrat' in encode; did you mean 'bitrate'?"),
    BrokenCase(
        name: "unknown key in ice",
        yaml: """
            transport:
              ice:
                adresses: [127.0.0.1]
            """ + "\n" + validSend, at: "3:5", message: "unknown key 'adresses' in ice; did you mean 'addresses'?"),
    BrokenCase(
        name: "unknown key without suggestion lists valid keys",
        yaml: """
            transport:
              colour: blue
            """ + "\n" + validSend, at: "2:3", message: "valid keys are kind, ice, latency, bundle"),
    BrokenCase(
        name: "audio key on video capture",
        yaml: """
            send:
              video:
                capture: {kind: test, wave: sine}
            """, at: "3:27", message: "unknown key 'wave' in capture; 'wave' is an audio key and this is the video branch"),
    BrokenCase(
        name: "unknown playout",
        yaml: validSend + "\nreceive:\n  playout: lipsync\n", at: "5:12",
        message: "unknown playout 'lipsync'; expected one of arrival, lip-sync; did you mean 'lip-sync'?"),
    BrokenCase(
        name: "playout in a send section", yaml: validSend + "\n  playout: lip-sync\n", at: "4:3",
        message: "unknown key 'playout' in send"),
    BrokenCase(
        name: "unknown key in send branch", yaml: validSend + "\n    filter: []\n", at: "4:5",
        message: "unknown key 'filter' in send.video; did you mean 'filters'?"),

    // MARK: Types and values
    BrokenCase(
        name: "capture is a scalar",
        yaml: """
            send:
              video:
                capture: test
            """, at: "3:14", message: "expected a mapping for 'capture', got a scalar"),
    BrokenCase(
        name: "unknown codec", yaml: validSend + "\n    encode: {codec: vp7}\n", at: "4:21",
        message: "unknown codec 'vp7'; expected one of vp8, vp9, h264, opus; did you mean 'vp8'?"),
    BrokenCase(
        name: "unknown transport kind", yaml: "transport: {kind: loopbak}\n" + validSend, at: "1:19",
        message:
            "unknown transport kind 'loopbak'; expected one of loopback, none, server, whep, whip, apprtc, lan, xmpp, janus, cast, camera; did you mean 'loopback'?"
    ),
    BrokenCase(
        name: "lan without peer", yaml: "transport: {kind: lan}\nreceive:\n  video: {sink: stats}\n", at: "1:1",
        message: "transport kind 'lan' needs a 'peer'"),
    BrokenCase(
        name: "peer on another kind", yaml: "transport: {kind: whep, endpoint: 'http://127.0.0.1:1/whep/x', peer: cam}\nreceive:\n  video: {sink: stats}\n",
        at: "1:64", message: "'peer' only applies to transport kinds lan and xmpp"),
    BrokenCase(
        name: "xmpp without jid", yaml: "transport: {kind: xmpp, password: x}\n" + validSend, at: "1:1",
        message: "transport kind 'xmpp' needs a 'jid'"),
    BrokenCase(
        name: "xmpp bad jid", yaml: "transport: {kind: xmpp, jid: 'not a jid', password: x}\n" + validSend, at: "1:30",
        message: "'not a jid' is not an XMPP address"),
    BrokenCase(
        name: "xmpp without password", yaml: "transport: {kind: xmpp, jid: a@b}\n" + validSend, at: "1:1",
        message: "transport kind 'xmpp' needs a 'password'; take it from the environment: password: ${XMPP_PASSWORD}"),
    BrokenCase(
        name: "xmpp bad server", yaml: "transport: {kind: xmpp, jid: a@b, password: x, server: 'h:99999'}\n" + validSend, at: "1:56",
        message: "'server' is HOST or HOST:PORT"),
    BrokenCase(
        name: "xmpp peer not a jid", yaml: "transport: {kind: xmpp, jid: a@b, password: x, peer: bob}\n" + validSend, at: "1:54",
        message: "'peer' must be an XMPP address"),
    BrokenCase(
        name: "xmpp calls itself", yaml: "transport: {kind: xmpp, jid: a@b/r, password: x, peer: a@b}\n" + validSend, at: "1:56",
        message: "'peer' a@b is this account itself"),
    BrokenCase(
        name: "xmpp allow with peer", yaml: "transport: {kind: xmpp, jid: a@b, password: x, peer: c@d, allow: [e@f]}\n" + validSend, at: "1:59",
        message: "'allow' is for a peer that waits for calls"),
    BrokenCase(
        name: "xmpp allow full jid", yaml: "transport: {kind: xmpp, jid: a@b, password: x, allow: [e@f/phone]}\n" + validSend, at: "1:56",
        message: "'allow' lists bare XMPP addresses"),
    BrokenCase(
        name: "xmpp bad tls", yaml: "transport: {kind: xmpp, jid: a@b, password: x, tls: maybe}\n" + validSend, at: "1:53",
        message: "'tls' is required (refuse servers without STARTTLS) or offered"),
    BrokenCase(
        name: "xmpp unreadable ca", yaml: "transport: {kind: xmpp, jid: a@b, password: x, ca: /nonexistent/ca.pem}\n" + validSend, at: "1:52",
        message: "'ca' names /nonexistent/ca.pem, which cannot be read"),
    BrokenCase(
        name: "janus without server", yaml: "transport: {kind: janus, room: 1234}\n" + validSend, at: "1:1",
        message: "transport kind 'janus' needs a 'server': the URL of Janus's WebSocket transport"),
    BrokenCase(
        name: "janus http server", yaml: "transport: {kind: janus, server: 'http://127.0.0.1:8088/janus', room: 1}\n" + validSend, at: "1:34",
        message: "'server' is the ws:// or wss:// URL of Janus's WebSocket transport"),
    BrokenCase(
        name: "janus without room", yaml: "transport: {kind: janus, server: 'ws://127.0.0.1:8188'}\n" + validSend, at: "1:1",
        message: "transport kind 'janus' needs a 'room'"),
    BrokenCase(
        name: "janus bad room", yaml: "transport: {kind: janus, server: 'ws://127.0.0.1:8188', room: 'a b'}\n" + validSend, at: "1:63",
        message: "a Janus room is a number"),
    BrokenCase(
        name: "janus empty subscribe", yaml: "transport: {kind: janus, server: 'ws://h:1', room: 1, subscribe: []}\nreceive:\n  video: {sink: stats}\n",
        at: "1:66", message: "'subscribe' lists the display names of the publishers to receive, or is 'all'"),
    BrokenCase(
        name: "janus display on another kind", yaml: "transport: {kind: loopback, display: cam}\n" + validSend, at: "1:29",
        message: "'display' only applies to transport kind janus"),
    BrokenCase(
        name: "janus data channels", yaml: "transport: {kind: janus, server: 'ws://h:1', room: 1, data_channels: [chat]}\n" + validSend, at: "1:55",
        message: "transport kind 'janus' has no peer to open data channels with"),
    BrokenCase(
        name: "mosaic on audio", yaml: "transport: {kind: janus, server: 'ws://h:1', room: 1}\nreceive:\n  audio: {mosaic: true}\n",
        at: "3:11", message: "a mosaic is a picture: 'mosaic' belongs in receive.video"),
    BrokenCase(
        name: "mosaic outside a room", yaml: "receive:\n  video: {mosaic: true}\n" + validSend, at: "2:11",
        message: "'mosaic' composes the publishers of a room into one picture: it needs transport kind janus"),
    BrokenCase(
        name: "room filters without mosaic",
        yaml: "transport: {kind: janus, server: 'ws://h:1', room: 1}\nreceive:\n  video: {filters: [{element: videoflip}]}\n",
        at: "3:22", message: "in a room each publisher's stream is a branch of its own, without filters; add `mosaic: true`"),
    BrokenCase(
        name: "mix on video", yaml: "transport: {kind: janus, server: 'ws://h:1', room: 1}\nreceive:\n  video: {mix: true}\n",
        at: "3:11", message: "'mix' mixes the publishers' sound into one: it belongs in receive.audio"),
    BrokenCase(
        name: "mix outside a room", yaml: "receive:\n  audio: {mix: true}\nsend:\n  audio: {capture: {kind: test}}\n", at: "2:11",
        message: "'mix' mixes the publishers of a room into one sound: it needs transport kind janus"),
    BrokenCase(
        name: "room audio filters without mix",
        yaml: "transport: {kind: janus, server: 'ws://h:1', room: 1}\nreceive:\n  audio: {filters: [{element: volume}]}\n",
        at: "3:22", message: "add `mix: true` to receive.audio to filter the room's sound as one"),
    BrokenCase(
        name: "room recording without {publisher}",
        yaml: "transport: {kind: janus, server: 'ws://h:1', room: 1}\nreceive:\n  video: {sink: {kind: file, path: room.mkv}}\n",
        at: "3:11", message: "in a room each publisher's video is recorded to a file of its own: put {publisher} in the path"),
    BrokenCase(
        name: "mosaic recording with {publisher}",
        yaml: "transport: {kind: janus, server: 'ws://h:1', room: 1}\nreceive:\n  video: {mosaic: true, sink: {kind: file, path: 'r-{publisher}.mkv'}}\n",
        at: "3:25", message: "the room's mosaic is one recording: remove {publisher} from the path"),
    BrokenCase(
        name: "room video and audio to one file each",
        yaml:
            "transport: {kind: janus, server: 'ws://h:1', room: 1}\nreceive:\n  video: {sink: {kind: file, path: 'r-{publisher}.mkv'}}\n  audio: {sink: {kind: file, path: 'r-{publisher}.mkv'}}\n",
        at: "4:11", message: "each publisher's video and audio are recorded separately: give them different paths"),
    BrokenCase(
        name: "cast without a name", yaml: "transport: {kind: cast, allow: ['https:']}\nreceive:\n  video: {sink: stats}\n", at: "1:1",
        message: "transport kind 'cast' needs a 'name'"),
    BrokenCase(
        name: "cast without allow", yaml: "transport: {kind: cast, name: TV}\nreceive:\n  video: {sink: stats}\n", at: "1:1",
        message: "transport kind 'cast' needs 'allow'"),
    BrokenCase(
        name: "cast allow not a URL", yaml: "transport: {kind: cast, name: TV, allow: ['ftp://x/']}\nreceive:\n  video: {sink: stats}\n", at: "1:43",
        message: "an 'allow' entry is a scheme (file:, http:, https:) or a URL prefix"),
    BrokenCase(
        name: "cast bad size", yaml: "transport: {kind: cast, name: TV, allow: ['https:'], size: 10x10}\nreceive:\n  video: {sink: stats}\n", at: "1:60",
        message: "'size' is WIDTHxHEIGHT (64x64 to 3840x2160)"),
    BrokenCase(
        name: "cast with send", yaml: "transport: {kind: cast, name: TV, allow: ['https:']}\n" + validSend + "\nreceive:\n  video: {sink: stats}\n", at: "2:1",
        message: "transport kind 'cast' plays what Cast senders load: remove send"),
    BrokenCase(
        name: "size on another kind", yaml: "transport: {kind: loopback, size: 640x480}\n" + validSend, at: "1:29",
        message: "'size' only applies to transport kind cast"),
    BrokenCase(
        name: "jid on another kind", yaml: "transport: {kind: loopback, jid: a@b}\n" + validSend, at: "1:29",
        message: "'jid' only applies to transport kind xmpp"),
    BrokenCase(
        name: "lan peer too long", yaml: "transport: {kind: lan, peer: \(String(repeating: "x", count: 70))}\nreceive:\n  video: {sink: stats}\n",
        at: "1:30", message: "at most 63 bytes"),
    BrokenCase(
        name: "lan with send", yaml: "transport: {kind: lan, peer: cam}\n" + validSend + "\nreceive:\n  video: {sink: stats}\n", at: "2:1",
        message: "transport kind 'lan' plays a stream: remove send"),
    BrokenCase(
        name: "unknown capture kind",
        yaml: """
            send:
              video:
                capture: {kind: tset}
            """, at: "3:21",
        message: "unknown capture kind 'tset'; expected one of test, camera, file, swift, rtsp, srt, rtmp, uri, recording; did you mean 'test'?"),
    BrokenCase(
        name: "unknown test pattern",
        yaml: """
            send:
              video:
                capture: {kind: test, pattern: smtpe}
            """, at: "3:36", message: "unknown test pattern 'smtpe'"),
    BrokenCase(
        name: "unknown bundle policy", yaml: "transport: {bundle: max-bundel}\n" + validSend, at: "1:21",
        message: "unknown bundle policy 'max-bundel'; expected one of none, balanced, max-compat, max-bundle; did you mean 'max-bundle'?"),
    BrokenCase(
        name: "unknown ICE policy", yaml: "transport: {ice: {policy: relayy}}\n" + validSend, at: "1:27",
        message: "unknown ICE policy 'relayy'"),
    BrokenCase(
        name: "codec of the wrong medium", yaml: validSend + "\n    encode: {codec: opus}\n", at: "4:21",
        message: "codec 'opus' is an audio codec but this is the video branch; use vp8, vp9 or h264"),
    BrokenCase(
        name: "odd width",
        yaml: """
            send:
              video:
                capture: {kind: test, width: 641}
            """, at: "3:34", message: "width must be even for 4:2:0 video"),
    BrokenCase(
        name: "fps out of range",
        yaml: """
            send:
              video:
                capture: {kind: test, fps: 500}
            """, at: "3:32", message: "'fps' must be between 1 and 240, got 500"),
    BrokenCase(
        name: "huge integer",
        yaml: """
            send:
              video:
                capture: {kind: test, width: 99999999999999999999}
            """, at: "3:34", message: "'width' must be between 16 and 7680, got 99999999999999999999"),
    BrokenCase(
        name: "float for an integer",
        yaml: """
            send:
              video:
                capture:
                  kind: test
                  height: 12.5
            """, at: "5:15", message: "expected an integer for 'height', got '12.5'"),
    BrokenCase(
        name: "not a boolean",
        yaml: """
            send:
              video:
                capture: {kind: test, live: maybe}
            """, at: "3:33", message: "expected true or false for 'live', got 'maybe'"),
    BrokenCase(
        name: "bad bitrate unit", yaml: validSend + "\n    encode: {bitrate: 2X}\n", at: "4:23",
        message: "invalid bitrate '2X'"),
    BrokenCase(
        name: "bitrate out of range", yaml: validSend + "\n    encode: {bitrate: 200M}\n", at: "4:23",
        message: "'bitrate' must be between 1 and 100000 kbit/s"),
    // Adaptive bitrate limits: each absurd setting at its own value.
    BrokenCase(
        name: "adaptive max below min", yaml: validSend + "\n    encode: {bitrate: {min: 2000, max: 300}}\n", at: "4:40",
        message: "'max' (300 kbit/s) is below 'min' (2000 kbit/s)"),
    BrokenCase(
        name: "adaptive start outside", yaml: validSend + "\n    encode: {bitrate: {min: 300, start: 5M, max: 2500}}\n", at: "4:41",
        message: "'start' (5000 kbit/s) must lie between 'min' (300) and 'max' (2500)"),
    BrokenCase(
        name: "adaptive without max", yaml: validSend + "\n    encode: {bitrate: {min: 300}}\n", at: "4:23",
        message: "an adaptive bitrate needs 'min' and 'max'"),
    BrokenCase(
        name: "adaptive absurd min", yaml: validSend + "\n    encode: {bitrate: {min: 1, max: 300}}\n", at: "4:29",
        message: "'min' must be between 30 and 100000 kbit/s, got 1"),
    BrokenCase(
        name: "adaptive unknown key", yaml: validSend + "\n    encode: {bitrate: {low: 1, max: 300}}\n", at: "4:24",
        message: "unknown key 'low' in bitrate"),
    BrokenCase(
        name: "adaptive scale threshold below min", yaml: validSend + "\n    encode: {bitrate: {min: 300, max: 2500, scale_below: 200}}\n",
        at: "4:58", message: "'scale_below' (200 kbit/s) must lie above 'min' (300)"),
    BrokenCase(
        name: "adaptive fps before scale",
        yaml: validSend
            + "\n    encode: {bitrate: {min: 300, max: 2500, scale_below: 800, fps_below: 1000}}\n",
        at: "4:74", message: "'fps_below' (1000) is above 'scale_below' (800)"),
    BrokenCase(
        name: "adaptive audio",
        yaml: """
            send:
              audio:
                capture: {kind: test}
                encode: {bitrate: {min: 30, max: 64}}
            """, at: "4:23", message: "only video adapts its bitrate to the network"),
    BrokenCase(
        name: "frequency above Nyquist",
        yaml: """
            send:
              audio:
                capture: {kind: test, rate: 8000, frequency: 5000}
            """, at: "3:50", message: "below half the sample rate (4000 Hz)"),
    BrokenCase(
        name: "latency out of range", yaml: "transport: {latency: 20s}\n" + validSend, at: "1:22",
        message: "'latency' must be between 0 and 10000 ms, got 20000"),
    BrokenCase(
        name: "connect timeout zero", yaml: "transport: {ice: {connect_timeout: 0ms}}\n" + validSend, at: "1:36",
        message: "'connect_timeout' must be more than 0 and at most 600 seconds"),
    BrokenCase(
        name: "port range not a range", yaml: "transport: {ice: {port_range: 40000}}\n" + validSend, at: "1:31",
        message: "'40000' is not a port range; write MIN-MAX, such as 40000-40099"),
    BrokenCase(
        name: "port range reversed", yaml: "transport: {ice: {port_range: 40010-40000}}\n" + validSend, at: "1:31",
        message: "port range 40010-40000 needs MIN below MAX"),
    BrokenCase(
        name: "port range privileged", yaml: "transport: {ice: {port_range: 80-90}}\n" + validSend, at: "1:31",
        message: "port range 80-90 must lie within 1024-65535"),
    BrokenCase(
        name: "ice tcp not a boolean", yaml: "transport: {ice: {tcp: sometimes}}\n" + validSend, at: "1:24",
        message: "'tcp'"),
    BrokenCase(
        name: "unsupported version", yaml: "version: 2\n" + validSend, at: "1:10",
        message: "unsupported version 2; this Sluice reads version 1"),

    // MARK: Transport rules
    BrokenCase(
        name: "relay without turn",
        yaml: """
            transport:
              ice:
                policy: relay
            """ + "\n" + validSend, at: "3:13", message: "policy 'relay' needs at least one turn server"),
    BrokenCase(
        name: "bad IP address",
        yaml: """
            transport:
              ice:
                addresses: [127.0.0.1, 1.2.3]
            """ + "\n" + validSend, at: "3:28", message: "'1.2.3' is not an IP address"),
    BrokenCase(
        name: "bad STUN URL", yaml: "transport: {ice: {stun: 'stnu://127.0.0.1'}}\n" + validSend, at: "1:25",
        message: "invalid STUN server 'stnu://127.0.0.1'"),
    BrokenCase(
        name: "STUN port out of range", yaml: "transport: {ice: {stun: 'stun:host:99999'}}\n" + validSend,
        at: "1:25", message: "port '99999' is not a number from 1 to 65535"),
    BrokenCase(
        name: "TURN without credentials", yaml: "transport: {ice: {turn: [turn://127.0.0.1:3478]}}\n" + validSend,
        at: "1:26", message: "it must contain user:pass@"),

    // MARK: Capture and sink rules
    BrokenCase(
        name: "missing capture",
        yaml: """
            send:
              video:
                encode: {codec: vp8}
            """, at: "2:3", message: "send.video needs a 'capture' section"),
    BrokenCase(
        name: "camera on audio",
        yaml: """
            send:
              audio:
                capture: {kind: camera}
            """, at: "3:21", message: "camera capture is video-only"),
    BrokenCase(
        name: "file capture with path and uri",
        yaml: """
            send:
              video:
                capture: {kind: file, path: a.webm, uri: 'file:///a.webm'}
            """, at: "3:41", message: "file capture has both 'path' and 'uri'"),
    BrokenCase(
        name: "capture with kind and gst",
        yaml: """
            send:
              video:
                capture: {kind: test, gst: videotestsrc}
            """, at: "3:27", message: "capture has both 'kind' and 'gst'"),
    BrokenCase(
        name: "file sink with bad extension",
        yaml: validSend + """

            receive:
              video:
                sink: {kind: file, path: out.avi}
            """, at: "6:30", message: "use a .webm, .mkv or .mp4 extension"),
    BrokenCase(
        name: "container cannot hold codec",
        yaml: validSend + """

            receive:
              video:
                sink: {kind: file, path: out.mp4, encode: {codec: vp8}}
            """, at: "6:55", message: "mp4 cannot hold vp8; use vp9 or h264"),
    BrokenCase(
        name: "file sink shorthand without path",
        yaml: validSend + """

            receive:
              video:
                sink: file
            """, at: "6:11", message: "a file sink needs a path"),
    BrokenCase(
        name: "unknown sink kind",
        yaml: validSend + """

            receive:
              video:
                sink: screen
            """, at: "6:11", message: "unknown sink kind 'screen'; expected one of stats, null, display, file"),
    BrokenCase(
        name: "decode mapping without element",
        yaml: validSend + """

            receive:
              video:
                decode: {properties: {a: 1}}
            """, at: "6:5", message: "decode needs 'element'"),
    BrokenCase(
        name: "keyframe interval on audio",
        yaml: """
            send:
              audio:
                capture: {kind: test}
                encode: {keyframe_interval: 10}
            """, at: "4:14", message: "'keyframe_interval' is a video key"),
    BrokenCase(
        name: "gop cache without a server", yaml: validSend + "\n    encode: {gop_cache: true}\n",
        at: "4:25", message: "'gop_cache' starts each WHEP viewer that joins from the stream's latest keyframe: set transport kind 'server'"),
    BrokenCase(
        name: "gop cache on passthrough",
        yaml: """
            send:
              video:
                capture: {kind: rtsp, url: "rtsp://cam/x"}
                encode: {codec: h264, passthrough: true, gop_cache: true}
            """, at: "4:46", message: "a passthrough stream always starts its viewers from the source's latest keyframe; remove 'gop_cache'"),
    BrokenCase(
        name: "gop cache on audio",
        yaml: """
            send:
              audio:
                capture: {kind: test}
                encode: {gop_cache: true}
            """, at: "4:14", message: "'gop_cache' is a video key"),
    BrokenCase(
        name: "encode gst with element", yaml: validSend + "\n    encode: {element: x264enc, gst: x264enc}\n",
        at: "4:32", message: "encode 'gst' replaces the encoder element"),

    // MARK: Filters
    BrokenCase(
        name: "filter item with element and gst",
        yaml: validSend + """

                filters:
                  - element: videoflip
                    gst: videoflip
            """, at: "5:9", message: "a filter item has both 'element' and 'gst'"),
    BrokenCase(
        name: "scalar filter item",
        yaml: validSend + """

                filters:
                  - videoflip
            """, at: "5:9", message: "a filter is a mapping such as `- element: videoflip`, `- gst: "),
    BrokenCase(
        name: "filter item with neither key",
        yaml: validSend + """

                filters:
                  - properties: {method: clockwise}
            """, at: "5:9", message: "a filter item needs 'element', 'gst' or 'filter'"),
    BrokenCase(
        name: "swift filter and element in one item",
        yaml: validSend + """

                filters:
                  - filter: blur
                    element: videoflip
            """, at: "5:9", message: "a filter item has both"),
    BrokenCase(
        name: "filters not a list", yaml: validSend + "\n    filters: {element: videoflip}\n", at: "4:14",
        message: "expected a list for 'filters', got a mapping"),

    // MARK: Combinations
    BrokenCase(
        name: "no branches at all", yaml: "transport: {kind: loopback}\n", at: "1:1",
        message: "the file has no send or receive section"),
    BrokenCase(name: "empty send", yaml: "name: x\nsend: {}\n", at: "2:1", message: "send has no video or audio branch"),
    BrokenCase(
        name: "receive without matching send",
        yaml: validSend + """

            receive:
              audio: {sink: stats}
            """, at: "5:3", message: "receive.audio has nothing to receive: send has no audio branch"),
    BrokenCase(
        name: "receive codecs of the wrong medium",
        yaml: validSend + """

            receive:
              video: {codecs: [vp8, opus]}
            """, at: "5:25", message: "codec 'opus' is an audio codec but this is the video branch"),
    BrokenCase(
        name: "receive codecs exclude the sent codec",
        yaml: validSend + """

            receive:
              video: {codecs: [h264]}
            """, at: "5:19", message: "receive.video accepts h264 but send.video sends vp8"),

    // MARK: Environment
    BrokenCase(
        name: "missing environment variable",
        yaml: """
            send:
              video:
                capture: {kind: test, width: "${W}"}
            """, at: "3:34", message: "environment variable 'W' is not set; set it or write ${W:-default}"),
    BrokenCase(
        name: "malformed substitution",
        yaml: """
            send:
              video:
                capture: {kind: test, pattern: "${PATTERN"}
            """, at: "3:36", message: "unterminated '${'"),
    BrokenCase(
        name: "invalid variable name",
        yaml: """
            send:
              video:
                capture: {kind: test, pattern: "${1X}"}
            """, at: "3:36", message: "invalid environment variable name '1X'"),

    // MARK: --set
    BrokenCase(
        name: "--set without =", yaml: validSend, overrides: ["send.video.encode.codec"],
        at: "--set send.video.encode.codec:1:1", message: "missing '=' in --set"),
    BrokenCase(
        name: "--set with empty path", yaml: validSend, overrides: ["=vp9"],
        at: "--set =vp9:1:1", message: "empty path in --set"),
    BrokenCase(
        name: "--set with empty key", yaml: validSend, overrides: ["send..video=1"],
        at: "--set send..video=1:1:6", message: "empty key in path 'send..video'"),
    BrokenCase(
        name: "--set through a scalar", yaml: validSend, overrides: ["send.video.capture.kind.x=1"],
        at: "--set send.video.capture.kind.x=1:1:20",
        message: "goes through 'kind', which is a scalar, not a mapping"),
    BrokenCase(
        name: "--set through a list", yaml: validSend + "\n    filters: [{element: videoflip}]\n",
        overrides: ["send.video.filters.element=x"],
        at: "--set send.video.filters.element=x:1:12", message: "goes through 'filters', which is a list"),
    BrokenCase(
        name: "--set unknown key", yaml: validSend, overrides: ["send.video.encode.codc=vp9"],
        at: "--set send.video.encode.codc=vp9:1:19",
        message: "unknown key 'codc' in encode; did you mean 'codec'?"),
    BrokenCase(
        name: "--set bad value", yaml: validSend, overrides: ["send.video.encode.codec=vp99"],
        at: "--set send.video.encode.codec=vp99:1:25", message: "unknown codec 'vp99'"),

    // MARK: Elements (fake catalog)
    BrokenCase(
        name: "unknown element with did-you-mean", yaml: validSend + "\n    filters: [{element: videoflipp}]\n",
        catalog: SpecFakeCatalog(), at: "4:25", message: "unknown element 'videoflipp'; did you mean 'videoflip'?"),
    BrokenCase(
        name: "known element not installed", yaml: validSend + "\n    filters: [{element: videoflip}]\n",
        catalog: SpecFakeCatalog(missing: ["videoflip"]), at: "4:25",
        message: "element 'videoflip' is not installed: it is in GStreamer plugin 'videofilter'; install it with: apt-get install gstreamer1.0-plugins-good",
        category: .missingElement),
    BrokenCase(
        name: "unknown property", yaml: validSend + "\n    filters: [{element: videoflip, properties: {methd: clockwise}}]\n",
        catalog: SpecFakeCatalog(), at: "4:49", message: "element 'videoflip' has no property 'methd'; did you mean 'method'?"),
    BrokenCase(
        name: "bad property value", yaml: validSend + "\n    filters: [{element: videoflip, properties: {method: sideways}}]\n",
        catalog: SpecFakeCatalog(), at: "4:57", message: "invalid value 'sideways' for videoflip property 'method': expected one of none"),
    BrokenCase(
        name: "bad encoder property on the default encoder",
        yaml: validSend
            + "\n    encode: {codec: h264, properties: {tune: slow}}\n",
        catalog: SpecFakeCatalog(), at: "4:46", message: "invalid value 'slow' for x264enc property 'tune'"),
    BrokenCase(
        name: "bad gst fragment", yaml: validSend + "\n    filters: [{gst: 'videoflip ! nosuchfilter'}]\n",
        catalog: SpecFakeCatalog(), at: "4:21", message: "invalid gst fragment 'videoflip ! nosuchfilter': no element \"nosuchfilter\""),
    BrokenCase(
        name: "missing default encoder", yaml: validSend + "\n    encode: {codec: vp9}\n",
        catalog: SpecFakeCatalog(missing: ["vp9enc"]), at: "4:5",
        message: "element 'vp9enc' is not installed", category: .missingElement),
    // MARK: Signalled transports and data channels
    BrokenCase(
        name: "apprtc without a room",
        yaml: """
            transport: {kind: apprtc, endpoint: "http://127.0.0.1:8443"}
            """ + "\n" + validSend, at: "1:1", message: "transport kind 'apprtc' needs a 'room' to join"),
    BrokenCase(
        name: "apprtc without an endpoint",
        yaml: """
            transport: {kind: apprtc, room: demo}
            """ + "\n" + validSend, at: "1:1", message: "transport kind 'apprtc' needs an 'endpoint' (e.g. http://127.0.0.1:8443"),
    BrokenCase(
        name: "apprtc room with a slash",
        yaml: """
            transport: {kind: apprtc, endpoint: "http://127.0.0.1:8443", room: "a/b"}
            """ + "\n" + validSend, at: "1:68", message: "room names are 1 to 128 letters, digits, '-' or '_', got 'a/b'"),
    BrokenCase(
        name: "room on loopback",
        yaml: """
            transport: {kind: loopback, room: demo}
            """ + "\n" + validSend, at: "1:29", message: "'room' only applies to transport kinds apprtc and janus"),
    BrokenCase(
        name: "token on apprtc",
        yaml: """
            transport: {kind: apprtc, endpoint: "http://h:1", room: r, token: t}
            """ + "\n" + validSend, at: "1:60", message: "'token' only applies to transport kinds whep, whip, janus and camera"),
    BrokenCase(
        name: "camera endpoint is not a device",
        yaml: """
            transport: {kind: camera, endpoint: "http://127.0.0.1:8443/whep/x"}
            receive:
              video: {sink: stats}
            """, at: "1:37", message: "a camera endpoint is a device URL ending in /devices/NAME"),
    BrokenCase(
        name: "camera with a send section",
        yaml: """
            transport: {kind: camera, endpoint: "http://127.0.0.1:8443/enterprises/p/devices/cam"}
            receive:
              video: {sink: stats}
            """ + "\n" + validSend, at: "4:1", message: "transport kind 'camera' plays a camera: remove send"),
    BrokenCase(
        name: "data channels without a peer",
        yaml: """
            transport:
              kind: none
              data_channels: [chat]
            """ + "\n" + validSend, at: "3:3", message: "transport kind 'none' has no peer to open data channels with"),
    BrokenCase(
        name: "duplicate data channel label",
        yaml: """
            transport:
              data_channels: [chat, {label: chat}]
            """ + "\n" + validSend, at: "2:33", message: "two data channels are labelled 'chat'; labels must be unique"),
    BrokenCase(
        name: "two stdin data channels",
        yaml: """
            transport:
              data_channels:
                - {label: a, stdin: true}
                - {label: b, stdin: true}
            """ + "\n" + validSend, at: "4:25", message: "only one data channel can take standard input; 'a' at line 3 already does"),
    BrokenCase(
        name: "unknown data channel key",
        yaml: """
            transport:
              data_channels:
                - {label: a, reliable: true}
            """ + "\n" + validSend, at: "3:18", message: "unknown key 'reliable' in a data channel"),
    BrokenCase(
        name: "data channel without label",
        yaml: """
            transport:
              data_channels:
                - {ordered: false}
            """ + "\n" + validSend, at: "3:7", message: "a data channel needs a 'label'"),
    BrokenCase(
        name: "max_retransmits out of range",
        yaml: """
            transport:
              data_channels:
                - {label: a, max_retransmits: -1}
            """ + "\n" + validSend, at: "3:35", message: "'max_retransmits' must be between 0 and 65535, got -1"),
    BrokenCase(
        name: "dtls certificate that cannot be read",
        yaml: """
            transport:
              dtls: { certificate: /nonexistent/sluice-cert.pem }
            """ + "\n" + validSend, at: "2:24", message: "dtls: cannot read /nonexistent/sluice-cert.pem"),
    BrokenCase(
        name: "dtls without a certificate",
        yaml: """
            transport:
              dtls: { key: k.pem }
            """ + "\n" + validSend, at: "2:3", message: "'dtls' needs a 'certificate'"),
    BrokenCase(
        name: "decode none with filters",
        yaml: validSend + """

            receive:
              video:
                decode: none
                filters: [{ element: videoflip }]
            """, at: "7:5", message: "filters work on decoded frames: with `decode: none` remove the filters, or decode"),
    BrokenCase(
        name: "decode none into a file",
        yaml: validSend + """

            receive:
              video:
                decode: none
                sink: { kind: file, path: x.webm }
            """, at: "7:11", message: "with `decode: none` nothing is decoded to show or encode: use sink stats, null or record, or decode"),
    BrokenCase(
        name: "unknown decode word",
        yaml: validSend + """

            receive:
              video:
                decode: nope
            """, at: "6:13", message: "unknown decode 'nope'; write `decode: auto`, `decode: none` or")
]

final class PipelineLoaderBrokenFileTests: XCTestCase {
    func testBrokenFiles() {
        XCTAssertGreaterThanOrEqual(brokenCases.count, 35)
        for testCase in brokenCases {
            let result = specLoad(
                testCase.yaml, overrides: testCase.overrides,
                environment: testCase.environment, catalog: testCase.catalog)
            guard case .failure(let error) = result else {
                XCTFail("\(testCase.name): loaded without error")
                continue
            }
            guard error.diagnostics.count == 1, let diagnostic = error.diagnostics.first else {
                XCTFail("\(testCase.name): expected one diagnostic, got \(error.diagnostics.count):\n\(error)")
                continue
            }
            let location =
                diagnostic.location.map { location in
                    location.file == "test.yaml" ? "\(location.line):\(location.column)" : location.description
                } ?? "nil"
            XCTAssertEqual(location, testCase.at, "\(testCase.name): \(diagnostic)")
            XCTAssertTrue(
                diagnostic.message.contains(testCase.message),
                "\(testCase.name): message\n  \(diagnostic.message)\ndoes not contain\n  \(testCase.message)")
            XCTAssertEqual(diagnostic.category, testCase.category, "\(testCase.name)")
            XCTAssertEqual(error.onlyMissingElements, testCase.category == .missingElement, "\(testCase.name)")
            // Messages start lower-case (the YAML/env prefixes are the only capitals allowed).
            if let first = diagnostic.message.first, first.isUppercase {
                XCTAssertTrue(
                    diagnostic.message.hasPrefix("YAML") || diagnostic.message.hasPrefix("Swift"),
                    "\(testCase.name): \(diagnostic.message)")
            }
        }
    }
}
