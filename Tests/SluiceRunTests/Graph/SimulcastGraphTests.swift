import GStreamer
import SluiceRunTestSupport
import XCTest
@testable import SluiceRun

/// A simulcast send branch as built into a webrtcbin: each layer encodes at its own size, and
/// the offer webrtcbin makes from the funnel's caps names the layers (`a=rid`, `a=simulcast`)
/// under the MID the packets carry.
final class SimulcastGraphTests: XCTestCase {
    func testEachLayerEncodesAtItsSizeAndTheOfferNamesThem() async throws {
        var spec = try XCTUnwrap(specLoadValid("transport: { kind: none }\nsend:\n  video:\n    capture: { kind: test, width: 320, height: 240 }\n"))
        spec.send?.video?.encode.simulcast = [
            SimulcastLayer(rid: "h", scale: 1, bitrateKbps: 600), SimulcastLayer(rid: "m", scale: 2, bitrateKbps: 200),
            SimulcastLayer(rid: "l", scale: 4, bitrateKbps: 60)
        ]
        let branch = try XCTUnwrap(spec.send?.video)
        let pipeline = Pipeline()
        let builder = GraphBuilder(spec: spec, pipeline: pipeline, counters: RunCounters())
        let webrtcbin = try Element.make("webrtcbin")
        try pipeline.add([webrtcbin])
        try builder.buildSend(branch, into: webrtcbin)
        XCTAssertNotEqual(pipeline.setState(.playing), .failure)
        defer { pipeline.setState(.null) }
        // Frames reach each payloader (webrtcbin holds them back until it is negotiated).
        let deadline = ContinuousClock.now + .seconds(10)
        while builder.simulcastReport.contains(where: { $0.frames < 1 }) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let layers = builder.simulcastReport
        XCTAssertEqual(layers.map(\.rid), ["h", "m", "l"])
        XCTAssertEqual(layers.map(\.width), [320, 160, 80])
        XCTAssertEqual(layers.map(\.height), [240, 120, 60])
        XCTAssertTrue(layers.allSatisfy { $0.frames >= 1 && $0.keyframes >= 1 }, "every layer encoded a keyframe: \(layers)")
        // GStreamer's DTLS key first (seconds under valgrind): the offer waits 10 s at most.
        DTLSWarmUp.begin()
        let keyDeadline = ContinuousClock.now + .seconds(300)
        while DTLSWarmUp.finishedAt == nil && ContinuousClock.now < keyDeadline { try await Task.sleep(for: .milliseconds(50)) }
        let peer = WebRTCPeer(webrtcbin, label: "simulcast")
        let offer = try await peer.createOffer().sdp
        for line in ["a=rid:h send", "a=rid:m send", "a=rid:l send", "a=simulcast:send h;m;l", "a=mid:video"] {
            XCTAssertTrue(offer.contains(line + "\r\n"), "the offer says '\(line)':\n\(offer)")
        }
        XCTAssertTrue(offer.contains("urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"), "and maps the RID extension:\n\(offer)")
        let ssrcs = Set(builder.state.withLock { $0.simulcastLayers }.map(\.ssrc))
        XCTAssertEqual(ssrcs.count, 3, "each layer has an SSRC of its own")
    }
}
