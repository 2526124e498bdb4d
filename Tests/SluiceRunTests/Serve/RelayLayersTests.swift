import GStreamer
import SluiceSignalling
import Synchronization
import XCTest
@testable import SluiceRun

/// A relayed simulcast publisher's layers without WebRTC: a live test picture encoded at
/// 320x240 and 160x120 (keyframes only when asked), each into its tee through a gate that
/// drops the layer's first keyframe, as a lost packet or a keyframe sent before the
/// publisher's DTLS was up would.
final class RelayLayersTests: XCTestCase {
    /// Keyframes each layer's encoder made.
    private final class Keyframes: Sendable {
        let made = Mutex<[Int]>([0, 0])
        subscript(layer: Int) -> Int { made.withLock { $0[layer] } }
    }

    private static let offer = [
        "v=0", "o=- 1 1 IN IP4 127.0.0.1", "s=-", "t=0 0", "m=video 9 UDP/TLS/RTP/SAVPF 96", "a=mid:0", "a=rtpmap:96 H264/90000",
        "a=rid:h send", "a=rid:l send", "a=simulcast:send h;l"
    ].joined(separator: "\r\n")

    private func layers(_ layers: RelayLayers, keyframes: Keyframes) throws -> Pipeline {
        Gst.initialize()
        let pipeline = Pipeline(name: "relay-layers")
        for (i, width) in [320, 160].enumerated() {
            let src = try Element.make("videotestsrc")
            try src.set("is-live", true)
            let size = try Element.make("capsfilter")
            try size.set("caps", fromString: "video/x-raw,width=\(width),height=\(width * 3 / 4),framerate=30/1")
            let enc = try Element.make("x264enc")
            try enc.set("tune", fromString: "zerolatency")
            try enc.set("speed-preset", fromString: "ultrafast")
            try enc.set("key-int-max", UInt32(100_000)) // keyframes only when asked
            let parse = try Element.make("h264parse")
            let gate = try Element.make("identity")
            let tee = try Element.make("tee")
            try tee.set("allow-not-linked", true)
            try pipeline.add([src, size, enc, parse, gate, tee])
            try Element.link([src, size, enc, parse, gate, tee])
            let dropped = Atomic<Bool>(false)
            let arriving = try XCTUnwrap(gate.staticPad("src"))
            arriving.addProbe { (info: borrowing Pad.ProbeInfo) in
                guard !(info.buffer?.isDeltaUnit ?? true) else { return .ok }
                keyframes.made.withLock { $0[i] += 1 }
                return dropped.exchange(true, ordering: .relaxed) ? .ok : .drop
            }
            layers.watch(pad: arriving, ssrc: UInt32(i + 1), tee: tee, codec: .h264)
        }
        return pipeline
    }

    private func waitFor(_ what: String, seconds: Double = 5, _ done: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !done() {
            guard ContinuousClock.now < deadline else { return XCTFail("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Each layer whose first keyframe was lost is asked for another (upstream, as the relay's
    /// depayloader passes it to webrtcbin as a PLI), shows its size, and is then asked no more.
    func testALayerWhoseFirstKeyframeWasLostIsAskedForOneUntilItShowsItsSize() async throws {
        let offer = try XCTUnwrap(try SimulcastOffer.parse(Self.offer))
        let relayed = RelayLayers(offer: offer), keyframes = Keyframes()
        let pipeline = try layers(relayed, keyframes: keyframes)
        defer { pipeline.setState(.null) }
        XCTAssertNotEqual(pipeline.setState(.playing), .failure)
        try await waitFor("both layers' sizes") { relayed.ranked()?.count == 2 }
        let ranked = try XCTUnwrap(relayed.ranked())
        XCTAssertEqual(ranked.map(\.rendition.width), [320, 160], "largest first, each with the size its keyframe showed")
        XCTAssertEqual(ranked.map(\.rendition.height), [240, 120])
        XCTAssertGreaterThanOrEqual(keyframes[0], 2, "the first was dropped, the next asked for")
        XCTAssertGreaterThanOrEqual(keyframes[1], 2)
        let made = (keyframes[0], keyframes[1])
        try await Task.sleep(for: .nanoseconds(3 * RelayLayers.askEveryNs))
        XCTAssertEqual(keyframes[0], made.0, "a layer with its size is asked no more")
        XCTAssertEqual(keyframes[1], made.1)
    }

    /// A simulcast publisher's stream has nothing to feed a viewer (is not live) until its
    /// layers are known, though its sound is there: a viewer fed before would get the sound
    /// alone. A publisher without simulcast is fed as its media come.
    func testNothingIsServedBeforeTheLayersAreKnown() throws {
        Gst.initialize()
        let sound = try Element.make("tee"), pad = try XCTUnwrap(sound.staticPad("sink"))
        let simulcast = RelayOutputs(), plain = RelayOutputs()
        let offer = try XCTUnwrap(try SimulcastOffer.parse(Self.offer))
        simulcast.layers.withLock { $0 = RelayLayers(offer: offer) }
        for outputs in [simulcast, plain] { outputs.add(ViewerSet.Output(media: .audio, codec: .opus, tee: sound), from: pad, ssrc: 1) }
        XCTAssertEqual(simulcast.current().map(\.media), [], "no layer known yet: nothing served")
        XCTAssertEqual(plain.current().map(\.media), [.audio], "without simulcast the sound is served as it comes")
    }

    /// A layer whose packets showed no stream id takes the one announced id no other layer
    /// has, once every announced layer is there; while that is not certain, its SSRC names it.
    func testTheOneLayerWithoutAStreamIDTakesTheOneAnnouncedIDLeft() {
        let announced = ["h", "m", "l"]
        XCTAssertEqual(RelayLayers.names(rids: [1: "h", 2: "m", 3: nil], announced: announced), [1: "h", 2: "m", 3: "l"])
        XCTAssertEqual(
            RelayLayers.names(rids: [1: "h", 3: nil], announced: announced), [1: "h", 3: "ssrc-3"],
            "m or l: a layer is still missing")
        XCTAssertEqual(
            RelayLayers.names(rids: [1: "h", 2: nil, 3: nil], announced: announced), [1: "h", 2: "ssrc-2", 3: "ssrc-3"],
            "two without an id: either could be either")
        XCTAssertEqual(
            RelayLayers.names(rids: [1: "h", 2: "x", 3: nil], announced: announced), [1: "h", 2: "x", 3: "ssrc-3"],
            "an id nobody announced leaves two announced ones unclaimed")
    }
}
