import GStreamer
import Synchronization
import XCTest
@testable import SluiceRun

/// The simulcast sender's layer switch without WebRTC: three layers of a live test picture,
/// each queue → gate → vp8enc → fakesink, driven by made-up estimator readings.
final class SimulcastLayerSwitchTests: XCTestCase {
    /// Frames and keyframes that reached one layer's sink, and whether the first frame after
    /// a gap was a keyframe.
    private final class Arrivals: Sendable {
        let frames = Atomic<Int>(0)
        let firstAfterGapWasKey = Mutex<[Bool]>([])
        let lastNs = Atomic<UInt64>(0)

        func install(on pad: Pad) {
            pad.addProbe { [self] (info: borrowing Pad.ProbeInfo) in
                let now = StageTimer.now(), key = info.buffer?.isDeltaUnit == false
                let last = lastNs.exchange(now, ordering: .relaxed)
                if last > 0, now - last > 300_000_000 { firstAfterGapWasKey.withLock { $0.append(key) } }
                frames.add(1, ordering: .relaxed)
                return .ok
            }
        }
    }

    private func layer(_ rid: String, kbps: Int, from tee: Element, in pipeline: Pipeline) throws -> (SimulcastLayerOutput, Arrivals) {
        let queue = try Element.make("queue")
        let encoder = try Element.make("vp8enc")
        try encoder.set("deadline", Int64(1))
        try encoder.set("keyframe-max-dist", Int32(100_000))
        let sink = try Element.make("fakesink")
        try sink.set("sync", false)
        // A layer held from the start has no buffer to preroll on (webrtcbin's sinks in a run
        // need none either).
        try sink.set("async", false)
        try pipeline.add([queue, encoder, sink])
        try Element.link([queue, encoder, sink])
        guard let teePad = tee.requestPad("src_%u"), let input = queue.staticPad("sink"), let entrance = sink.staticPad("sink"),
            let gated = queue.staticPad("src")
        else { throw GstError("no pads") }
        try teePad.link(input)
        let output = SimulcastLayerOutput(
            layer: SimulcastLayer(rid: rid, scale: 1, bitrateKbps: kbps), encoder: encoder, ssrc: 1, entrance: entrance,
            keyframeRequests: nil, width: 160, height: 120)
        output.sent.count(at: entrance)
        let sent = output.sent
        output.gate.install(on: gated)
        output.gate.measure { sent.bytes.load(ordering: .relaxed) }
        let arrivals = Arrivals()
        arrivals.install(on: entrance)
        return (output, arrivals)
    }

    /// Down: the estimate falls below what every layer sends, and only the smallest layer
    /// still sends; up: the estimate carries all of them again, the others start again from
    /// a keyframe, and the estimator is told to expect their sum.
    /// A live ball picture split into layers h, m and l (1000, 300 and 100 kbit/s).
    private func threeLayers() throws -> (Pipeline, [(SimulcastLayerOutput, Arrivals)]) {
        Gst.initialize()
        let pipeline = Pipeline(name: "simulcast-layer-switch")
        let src = try Element.make("videotestsrc")
        try src.set("is-live", true)
        try src.set("pattern", fromString: "ball")
        let caps = try Element.make("capsfilter")
        try caps.set("caps", fromString: "video/x-raw,width=160,height=120,framerate=30/1")
        let tee = try Element.make("tee")
        try pipeline.add([src, caps, tee])
        try Element.link([src, caps, tee])
        return (pipeline, try [("h", 1000), ("m", 300), ("l", 100)].map { try layer($0.0, kbps: $0.1, from: tee, in: pipeline) })
    }

    /// A peer that takes h and l of three (`a=simulcast:recv h;l`): m, held until the peer's
    /// description is known, never sends, even when every layer is chosen; h and l go once
    /// the peer took them. A peer that takes one layer leaves the estimate nothing to switch.
    func testALayerThePeerDoesNotTakeIsNeverSent() async throws {
        let (pipeline, built) = try threeLayers()
        for (output, _) in built.dropFirst() { output.gate.peer(.unknown) }
        let layers = SimulcastLayerSwitch(layers: built.map(\.0))
        XCTAssertTrue(pipeline.setState(.playing) != .failure)
        defer { pipeline.setState(.null) }
        func frames() -> [Int] { built.map { $0.1.frames.load(ordering: .relaxed) } }
        let deadline = ContinuousClock.now + .seconds(10)
        while frames()[0] < 15 {
            guard ContinuousClock.now < deadline else { return XCTFail("h never sent: \(frames())") }
            try await Task.sleep(for: .milliseconds(20))
        }
        XCTAssertEqual(Array(frames()[1...]), [0, 0], "nothing but the best layer before the peer's description")
        built[1].0.gate.peer(.refuses)
        built[2].0.gate.peer(.takes)
        while frames()[2] < 15 {
            guard ContinuousClock.now < deadline else { return XCTFail("l never sent once taken: \(frames())") }
            try await Task.sleep(for: .milliseconds(20))
        }
        XCTAssertNil(
            layers.update(with: .init(target: 10_000_000, received: 1e7, state: .increase, nowNs: StageTimer.now() + 3_000_000_000)))
        XCTAssertEqual(frames()[1], 0, "m is never sent: \(frames())")
        XCTAssertTrue(built[1].0.gate.isRefused)
        var rates: [Int]?
        while rates == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            rates = layers.choiceRates(nowNs: StageTimer.now())
        }
        XCTAssertEqual(rates?[1], rates?[2], "m adds nothing to what is sent: \(String(describing: rates))")
        built[2].0.gate.peer(.refuses)
        XCTAssertNil(layers.update(with: .init(target: 1000, received: 1000, state: .hold, nowNs: StageTimer.now() + 4_000_000_000)))
        XCTAssertEqual(layers.layersOn, 3, "one layer taken: the estimate switches nothing")
    }

    func testTheTopLayersStopWhenTheEstimateFallsAndRestartFromAKeyframe() async throws {
        let (pipeline, built) = try threeLayers()
        let layers = SimulcastLayerSwitch(layers: built.map(\.0))
        XCTAssertEqual(layers.limits, BitrateLimits(min: 50_000, start: 1_400_000, max: 1_750_000), "from the configured rates")
        XCTAssertTrue(pipeline.setState(.playing) != .failure)
        defer { pipeline.setState(.null) }
        func frames() -> [Int] { built.map { $0.1.frames.load(ordering: .relaxed) } }
        func waitFor(_ what: String, _ ok: () -> Bool) async throws {
            let deadline = ContinuousClock.now + .seconds(10)
            while !ok() {
                guard ContinuousClock.now < deadline else { return XCTFail("\(what): \(frames())") }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        // What each choice sends is measured (a second of each layer's bytes), not configured.
        XCTAssertNil(layers.choiceRates(nowNs: StageTimer.now()), "nothing measured yet")
        var rates: [Int] = []
        try await waitFor("every layer measured") {
            rates = layers.choiceRates(nowNs: StageTimer.now()) ?? []
            return !rates.isEmpty
        }
        XCTAssertTrue(rates[0] > rates[1] && rates[1] > rates[2] && rates[2] > 0, "every layer adds to what is sent: \(rates)")
        func reading(_ bps: Int, after seconds: Double = 0) -> CongestionControl.Reading {
            .init(target: bps, received: Double(bps), state: .increase, nowNs: StageTimer.now() + UInt64(seconds * 1e9))
        }
        XCTAssertNil(layers.update(with: reading(rates[0] * 2)), "all layers fit")
        XCTAssertEqual(layers.layersOn, 3)
        XCTAssertNil(layers.update(with: reading(rates[2])), "a move down needs no word to the estimator")
        XCTAssertEqual(layers.layersOn, 1, "an estimate of the smallest layer's rate carries it alone: \(rates)")
        try await Task.sleep(for: .milliseconds(200)) // what was inside the encoders when the gates closed
        let stopped = frames()
        try await waitFor("the smallest layer goes on") { frames()[2] > stopped[2] + 15 }
        XCTAssertEqual(Array(frames()[0..<2]), Array(stopped[0..<2]), "h and m stopped")
        let up = layers.update(with: reading(rates[0] * 4, after: 2))
        guard case .expect(let expected)? = up else { return XCTFail("the estimate carries every layer again: \(String(describing: up))") }
        XCTAssertGreaterThan(expected, rates[2], "the estimator expects every layer's rate, as last measured")
        XCTAssertEqual(layers.layersOn, 3)
        try await waitFor("h and m send again") { frames()[0] > stopped[0] + 10 && frames()[1] > stopped[1] + 10 }
        for (rid, arrivals) in zip(["h", "m"], built.prefix(2).map(\.1)) {
            XCTAssertEqual(arrivals.firstAfterGapWasKey.withLock { $0 }, [true], "\(rid) restarts from a keyframe")
        }
        XCTAssertEqual(built.map { $0.0.gate.counts?.off }, [1, 1, 0])
        XCTAssertEqual(built.map { $0.0.gate.counts?.on }, [1, 1, 0])
    }
}
