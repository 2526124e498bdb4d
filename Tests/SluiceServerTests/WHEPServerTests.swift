import Foundation
import GStreamer
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Sluice
import SluiceSignalling
import Synchronization
import XCTest
@testable import SluiceServer

/// A viewer: a webrtcbin that receives VP8, counting the RTP buffers it gets.
final class TestViewer: Sendable {
    let pipeline = Pipeline()
    let webrtcbin: Element
    let peer: WebRTCPeer
    let received = PacketCounter()

    /// `transceivers`: (direction, RTP caps) in m-line order; default one recvonly VP8.
    init(transceivers: [(String, String)] = [("recvonly", EncoderPresets.rtpCaps(for: .vp8))]) throws {
        webrtcbin = try Element.make("webrtcbin")
        try webrtcbin.set("bundle-policy", fromString: "max-bundle")
        try pipeline.add(webrtcbin)
        try ICEAgent.addLocalAddresses(["127.0.0.1"], to: webrtcbin)
        ICEAgent.disableUPnP(on: webrtcbin)
        for (direction, caps) in transceivers { try webrtcbin.emit("add-transceiver", direction, try Caps(caps)) }
        peer = WebRTCPeer(webrtcbin, label: "test viewer")
        let pipeline = pipeline, received = received
        webrtcbin.connect("pad-added") { (args: borrowing SignalArguments) in
            guard let pad = args.object(1, as: Pad.self), pad.direction == .src, let sink = try? Element.make("fakesink") else { return }
            try? pipeline.add(sink)
            sink.syncStateWithParent()
            if let sp = sink.staticPad("sink") {
                try? pad.link(sp)
                sp.addProbe { (_: borrowing Pad.ProbeInfo) in
                    received.n.add(1, ordering: .relaxed); return .ok
                }
            }
        }
        pipeline.setState(.playing)
    }

    deinit { pipeline.setState(.null) }

    func waitForPackets(_ n: Int, timeout: Double = 10) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while ContinuousClock.now < deadline {
            if received.n.load(ordering: .relaxed) >= n { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}

/// A counter a probe closure can capture (the atomic itself cannot be copied into it).
final class PacketCounter: Sendable {
    let n = Atomic<Int>(0)
}

final class WHEPServerTests: XCTestCase {
    private func hub() throws -> StreamHub {
        let spec = try PipelineLoader(environment: [:]).load(
            yaml: """
                name: cam
                send:
                  video:
                    capture: { kind: test, pattern: ball, width: 320, height: 240, fps: 30 }
                    encode: { codec: vp8, bitrate: 400 }
                """, file: "cam.yaml")
        var limits = ViewerLimits()
        limits.statsInterval = 1 // read the viewers' statistics each second (default 5)
        return try StreamHub(
            spec: spec, recipe: WebRTCRecipe(latencyMs: spec.transport.latencyMs, addresses: ["127.0.0.1"]),
            viewerLimits: limits)
    }

    /// A server lets go of its streams when it goes: its metrics (which read every stream)
    /// must not keep the server, and so every stream's pipeline, alive. Such a cycle kept
    /// each test server's encoders running for the rest of the test process.
    func testAServerReleasesItsStreams() throws {
        weak var weakHub: StreamHub?
        do {
            let hub = try hub()
            weakHub = hub
            let server = SluiceHTTPServer(streams: [hub])
            XCTAssertTrue(server.metrics.render().contains("sluice_stream_viewers{stream=\"cam\"}"))
        }
        XCTAssertNil(weakHub, "the stream (and its playing pipeline) outlived its server")
    }

    func testViewersPlayAServedPipelineSharingOneEncoder() async throws {
        let hub = try hub()
        let server = SluiceHTTPServer(configuration: .init(host: "127.0.0.1", port: 0, stun: ["stun://127.0.0.1:3478"]), streams: [hub])
        try await server.application().test(.live) { client in
            let list = try await client.execute(uri: "/streams.json", method: .get)
            XCTAssertTrue(String(buffer: list.body).contains(#""name":"cam""#))

            var sessions: [String] = []
            var viewers: [TestViewer] = []
            for _ in 0..<2 {
                let viewer = try TestViewer()
                let offer = try await viewer.peer.offerWithCandidates()
                let r = try await client.execute(
                    uri: "/whep/cam", method: .post, headers: [.contentType: "application/sdp"],
                    body: ByteBuffer(string: offer))
                XCTAssertEqual(r.status, .created, String(buffer: r.body))
                XCTAssertEqual(r.headers[.contentType], "application/sdp")
                let location = try XCTUnwrap(r.headers[.location])
                XCTAssertTrue(location.hasPrefix("/whep/cam/"))
                XCTAssertEqual(r.headers[.eTag], "\"\(location.split(separator: "/").last ?? "")\"")
                XCTAssertTrue(r.headers[values: HTTPField.Name("Link")!].contains("<stun:127.0.0.1:3478>; rel=\"ice-server\""))
                try await viewer.peer.setRemoteDescription(try SessionDescription(kind: .answer, sdp: String(buffer: r.body)))
                sessions.append(location)
                viewers.append(viewer)
            }
            for v in viewers {
                let got = await v.waitForPackets(30)
                XCTAssertTrue(got, "each viewer receives media")
            }
            XCTAssertEqual(hub.viewerCount, 2)
            // One encoder for both viewers: encoded frames follow the clock, not the viewer count.
            let before = hub.encodedVideoFrames
            try await Task.sleep(for: .seconds(1))
            let perSecond = hub.encodedVideoFrames - before
            XCTAssertLessThan(perSecond, 45, "about 30 fps encoded once, not once per viewer (\(perSecond))")
            // Each viewer's webrtcbin is read once a second: what went to both shows, with a
            // round trip per viewer (bounded wait for the first readings and reports).
            let deadline = ContinuousClock.now + .seconds(8)
            while (hub.viewerTraffic.totals.packetsSent < 60 || hub.viewerTraffic.roundTrips.count < 2) && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            let live = hub.viewerTraffic
            XCTAssertGreaterThanOrEqual(live.totals.packetsSent, 60, "\(live)")
            XCTAssertEqual(live.roundTrips.count, 2, "\(live)")
            XCTAssertTrue(live.roundTrips.allSatisfy { $0 > 0 && $0 < 0.5 }, "\(live.roundTrips)")

            for s in sessions {
                let status = try await client.execute(uri: s, method: .delete).status
                XCTAssertEqual(status, .ok)
            }
            XCTAssertEqual(hub.viewerCount, 0)
            let left = hub.viewerTraffic
            XCTAssertGreaterThanOrEqual(left.totals.packetsSent, live.totals.packetsSent, "what went to viewers that left stays counted")
            XCTAssertTrue(left.roundTrips.isEmpty)
            let again = try await client.execute(uri: sessions[0], method: .delete).status
            XCTAssertEqual(again, .notFound)
        }
    }

    /// The page's `/ice-servers.json`: the `--stun` and `--turn` servers as `RTCIceServer`s,
    /// the TURN one with its credentials, so the page's relay-only switch has a relay to use.
    func testThePageGetsTheICEServersAsRTCIceServers() async throws {
        let server = SluiceHTTPServer(
            configuration: .init(port: 0, stun: ["stun://127.0.0.1:3478"], turn: ["turn://viewer:secret@127.0.0.1:3478"]))
        try await server.application().test(.router) { client in
            let r = try await client.execute(uri: "/ice-servers.json", method: .get)
            XCTAssertEqual(r.status, .ok)
            let json = try JSONSerialization.jsonObject(with: Data(String(buffer: r.body).utf8)) as? [String: [[String: String]]]
            XCTAssertEqual(
                json?["iceServers"],
                [["urls": "stun:127.0.0.1:3478"], ["urls": "turn:127.0.0.1:3478", "username": "viewer", "credential": "secret"]])
        }
    }

    func testBadRequestsGetWHIPStatuses() async throws {
        let server = SluiceHTTPServer(configuration: .init(host: "127.0.0.1", port: 0, token: "s3cret"), streams: [try hub()])
        try await server.application().test(.live) { client in
            let offer = "v=0\r\no=- 1 0 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=recvonly\r\na=rtpmap:96 VP8/90000\r\n"
            func post(_ uri: String, _ type: String, _ body: String, token: String? = "s3cret") async throws -> HTTPResponse.Status {
                var h: HTTPFields = [.contentType: type]
                if let token { h[.authorization] = "Bearer \(token)" }
                return try await client.execute(uri: uri, method: .post, headers: h, body: ByteBuffer(string: body)).status
            }
            do { let status = try await post("/whep/cam", "application/sdp", offer, token: nil); XCTAssertEqual(status, .unauthorized) }
            do { let status = try await post("/whep/cam", "application/sdp", offer, token: "wrong"); XCTAssertEqual(status, .forbidden) }
            do { let status = try await post("/whep/cam", "application/json", offer); XCTAssertEqual(status, .unsupportedMediaType) }
            do { let status = try await post("/whep/cam", "application/sdp", "not sdp"); XCTAssertEqual(status, .badRequest) }
            do { let status = try await post("/whep/nope", "application/sdp", offer); XCTAssertEqual(status, .notFound) }
            let noMedia = "v=0\r\no=- 1 0 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n"
            do { let status = try await post("/whep/cam", "application/sdp", noMedia); XCTAssertEqual(status, .unprocessableContent) }
            let del = try await client.execute(uri: "/whep/cam/unknown", method: .delete, headers: [.authorization: "Bearer s3cret"])
            XCTAssertEqual(del.status, .notFound)
        }
    }

    /// Hostile or useless offers get a 4xx and change nothing: no viewer is left behind,
    /// the shared encoder keeps going, and a good viewer afterwards plays.
    func testHostileOffersGet4xxAndChangeNothing() async throws {
        let hub = try hub()
        let server = SluiceHTTPServer(configuration: .init(host: "127.0.0.1", port: 0), streams: [hub])
        let head = "v=0\r\no=- 1 0 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r\n"
        let media =
            "m=video 9 UDP/TLS/RTP/SAVPF 96\r\nc=IN IP4 0.0.0.0\r\na=mid:0\r\na=recvonly\r\na=rtcp-mux\r\n"
            + "a=ice-ufrag:abcd\r\na=ice-pwd:abcdefghijklmnopqrstuvwx\r\na=setup:actpass\r\n"
            + "a=fingerprint:sha-256 " + Array(repeating: "AB", count: 32).joined(separator: ":") + "\r\n"
        let hostile: [(String, String)] = [
            ("unsupported codecs only", head + media + "a=rtpmap:96 AV1/90000\r\n"),
            ("1,000 media sections", head + String(repeating: media + "a=rtpmap:96 VP8/90000\r\n", count: 1000)),
            ("a sendonly offer (nothing to receive)", head + media.replacingOccurrences(of: "recvonly", with: "sendonly") + "a=rtpmap:96 VP8/90000\r\n"),
            ("VP9 profile 2 only", head + media + "a=rtpmap:96 VP9/90000\r\na=fmtp:96 profile-id=2\r\n"),
            ("a megabyte attribute", head + media + "a=rtpmap:96 VP8/90000\r\na=x-junk:" + String(repeating: "x", count: 1 << 20) + "\r\n")
        ]
        try await server.application().test(.live) { client in
            for (what, sdp) in hostile {
                let r = try await client.execute(
                    uri: "/whep/cam", method: .post, headers: [.contentType: "application/sdp"],
                    body: ByteBuffer(string: sdp))
                XCTAssertTrue((400..<500).contains(r.status.code), "\(what): \(r.status) \(String(buffer: r.body).prefix(300))")
                XCTAssertEqual(hub.viewerCount, 0, what)
            }
            // Candidates naming addresses that are not here: accepted (ICE decides), never
            // connects, and is removed by the reaper; meanwhile the stream goes on.
            let before = hub.encodedVideoFrames
            try await Task.sleep(for: .milliseconds(500))
            XCTAssertGreaterThan(hub.encodedVideoFrames, before, "the shared encoder keeps going")
            let viewer = try TestViewer()
            let offer = try await viewer.peer.offerWithCandidates()
            let r = try await client.execute(
                uri: "/whep/cam", method: .post, headers: [.contentType: "application/sdp"],
                body: ByteBuffer(string: offer))
            XCTAssertEqual(r.status, .created, String(buffer: r.body))
            try await viewer.peer.setRemoteDescription(try SessionDescription(kind: .answer, sdp: String(buffer: r.body)))
            let got = await viewer.waitForPackets(30)
            XCTAssertTrue(got, "a good viewer plays after the hostile ones")
        }
    }
}
