import Foundation
import GStreamer
import Synchronization
import XCTest
@testable import SluiceRun

/// A relay's recording without WebRTC: a live VP8 picture (keyframes only every 30 frames)
/// into a tee standing for the relay's, recorded through `RelayRecording` into Matroska, then
/// read back and decoded by GStreamer.
final class RelayRecordingTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-relay-recording-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// The picture: videotestsrc → vp8enc → tee, live, a keyframe every 30 frames.
    private func relayedVideo(in pipeline: Pipeline) throws -> Element {
        let source = try Element.make("videotestsrc")
        try source.set("is-live", true)
        let caps = try Element.make("capsfilter")
        try caps.set("caps", fromString: "video/x-raw,width=320,height=240,framerate=30/1")
        let encoder = try Element.make("vp8enc")
        try encoder.set("deadline", Int64(1))
        try encoder.set("keyframe-max-dist", Int32(30))
        let tee = try Element.make("tee")
        try tee.set("allow-not-linked", true)
        try pipeline.add([source, caps, encoder, tee])
        try Element.link([source, caps, encoder, tee])
        return tee
    }

    /// Joined while the picture flows (a delta frame comes first), the recording starts at a
    /// keyframe; `finish` completes the file, which decodes at the picture's size.
    func testARecordingJoinsAtAKeyframeAndIsFinishedByEndOfStream() async throws {
        let pipeline = Pipeline(name: "relay-recording-test")
        defer { pipeline.setState(.null) }
        let tee = try relayedVideo(in: pipeline)
        let settings = try RelayRecording.Settings(path: dir.appendingPathComponent("{name}-{n}.mkv").path, segmentSeconds: 60)
        let recording = try RelayRecording(settings, stream: "cam", in: pipeline)
        XCTAssertNotEqual(pipeline.setState(.playing), .failure)
        // Joins in the middle of a group of pictures: 40 frames in, 10 after a keyframe.
        let passed = RelayCounter(0)
        tee.staticPad("sink")?.addProbe { (_: borrowing Pad.ProbeInfo) in
            passed.add(); return .ok
        }
        try await waitUntil(seconds: 10) { passed.value >= 40 }
        let outputs = RelayOutputs()
        outputs.table.withLock { $0[.video] = ViewerSet.Output(media: .video, codec: .vp8, tee: tee) }
        recording.attachWhenReady(to: outputs, expecting: [.video], in: pipeline)
        try await waitUntil(seconds: 10) { passed.value >= 100 && !recording.segments.isEmpty }
        await recording.finish()
        pipeline.setState(.null)
        let segment = try XCTUnwrap(recording.segments.first)
        XCTAssertEqual(segment, dir.appendingPathComponent("cam-00000.mkv").path)
        let decoded = try decode(segment)
        XCTAssertEqual(decoded.width, 320)
        XCTAssertEqual(decoded.height, 240)
        XCTAssertGreaterThan(decoded.frames, 30, "the recorded frames decode")
        XCTAssertTrue(decoded.firstWasKeyframe, "the file starts at a keyframe")
    }

    /// A codec the container cannot hold is left out, not forced in: nothing is written.
    func testACodecTheContainerCannotHoldIsLeftOut() async throws {
        let pipeline = Pipeline(name: "relay-recording-mp4-test")
        defer { pipeline.setState(.null) }
        let tee = try relayedVideo(in: pipeline)
        let settings = try RelayRecording.Settings(path: dir.appendingPathComponent("{name}-{n}.mp4").path)
        let recording = try RelayRecording(settings, stream: "cam", in: pipeline)
        XCTAssertNotEqual(pipeline.setState(.playing), .failure)
        let outputs = RelayOutputs()
        outputs.table.withLock { $0[.video] = ViewerSet.Output(media: .video, codec: .vp8, tee: tee) }
        recording.attachWhenReady(to: outputs, expecting: [.video], in: pipeline)
        let passed = RelayCounter(0)
        tee.staticPad("sink")?.addProbe { (_: borrowing Pad.ProbeInfo) in
            passed.add(); return .ok
        }
        try await waitUntil(seconds: 10) { passed.value >= 60 }
        await recording.finish()
        XCTAssertEqual(recording.segments, [], "VP8 does not go into MP4: no file")
    }

    /// What GStreamer decodes of `path`: frames, size, whether the first was a keyframe.
    private func decode(_ path: String) throws -> (frames: Int, width: Int, height: Int, firstWasKeyframe: Bool) {
        let pipeline = Pipeline(name: "relay-recording-readback")
        defer { pipeline.setState(.null) }
        let bin = try Bin.parse("filesrc location=\"\(path)\" ! matroskademux ! vp8dec name=dec ! fakesink name=sink", ghostUnlinkedPads: false)
        try pipeline.add(bin)
        let frames = RelayCounter(0), seen = RelayCounter(0), firstKey = RelayCounter(0)
        bin.child(named: "dec")?.staticPad("sink")?.addProbe { (info: borrowing Pad.ProbeInfo) in
            if seen.value == 0, info.buffer?.isDeltaUnit == false { firstKey.add() }
            seen.add()
            return .ok
        }
        let size = Mutex<(width: Int, height: Int)>((0, 0))
        bin.child(named: "sink")?.staticPad("sink")?.addProbe { (info: borrowing Pad.ProbeInfo) in
            if let s = info.currentCaps?.structure(at: 0), let w = s.get("width", as: Int32.self), let h = s.get("height", as: Int32.self) {
                size.withLock { $0 = (Int(w), Int(h)) }
            }
            frames.add()
            return .ok
        }
        pipeline.setState(.playing)
        let end = pipeline.bus.pop(timeout: 20_000_000_000, of: [.eos, .error])
        XCTAssertEqual(end?.kind, .eos, "the recording plays to its end")
        let s = size.withLock { $0 }
        return (frames.value, s.width, s.height, firstKey.value == 1)
    }

    /// Waits (bounded) until `condition` holds; fails the test if it never does.
    private func waitUntil(seconds: Double, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while !condition() {
            guard ContinuousClock.now < deadline else { throw GstError("not reached within \(seconds) s") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
