import Foundation
import GStreamer
import SluiceFilterKit
import SluiceTestSupport
import XCTest
@testable import SluiceRun

/// Encoded-frame filters (`encoded_filters:`): their place in files (FILE:LINE:COL errors,
/// codecs), and in real pipelines over WebRTC loopback, between encoder and payloader and
/// between depayloader and decoder.
final class EncodedFilterTests: XCTestCase {
    override func setUp() { _ = TestFilters.registered }

    private func spec(_ yaml: String) throws -> PipelineSpec {
        try PipelineLoader(environment: [:], catalog: GStreamerCatalog(), filters: FilterRegistry.shared)
            .load(yaml: yaml, file: "a.yaml")
    }

    private func diagnostic(_ yaml: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            _ = try spec(yaml)
            XCTFail("expected an error", file: file, line: line)
            return ""
        } catch {
            return "\(error)"
        }
    }

    private func events(_ summary: RunSummary, filter: String, event: String) -> Int {
        summary.filters.filter { $0.filter == filter }.map { $0.events[event] ?? 0 }.reduce(0, +)
    }

    // MARK: Files

    func testEncodedFiltersTakeTypedSettingsOnBothSides() throws {
        let s = try spec(
            """
            send:
              video:
                capture: { kind: test }
                encode: { codec: h264 }
                encoded_filters:
                  - filter: faults
                    drop_every: 5
              audio:
                capture: { kind: test }
            receive:
              audio:
                codecs: [opus]
                encoded_filters:
                  - filter: test-trailer
                    mode: strip
            """)
        guard case .swift(let name, let settings, _)? = s.send?.video?.encodedFilters.first?.kind else {
            return XCTFail("\(String(describing: s.send?.video?.encodedFilters))")
        }
        XCTAssertEqual(name, "faults")
        XCTAssertEqual(settings.first { $0.name == "drop_every" }?.value, .integer(5))
        XCTAssertEqual(s.send?.video?.filters, [], "the raw filter list is untouched")
        XCTAssertEqual(s.receive?.audio?.encodedFilters.count, 1)
    }

    func testEachListRefusesTheOtherStagesFiltersAtTheName() {
        let raw = diagnostic("send:\n  video:\n    capture: {kind: test}\n    encoded_filters:\n      - filter: pixelate\n")
        XCTAssertTrue(raw.hasPrefix("a.yaml:5:17: 'pixelate' works on raw frames: put it in this branch's `filters:` list"), raw)
        XCTAssertTrue(raw.contains("encoded-frame filters: e2ee, faults"), raw)
        let encoded = diagnostic("send:\n  video:\n    capture: {kind: test}\n    filters:\n      - filter: faults\n")
        XCTAssertTrue(encoded.hasPrefix("a.yaml:5:17: 'faults' works on encoded frames: put it in this branch's `encoded_filters:` list"), encoded)
        let setting = diagnostic("send:\n  video:\n    capture: {kind: test}\n    encoded_filters:\n      - filter: faults\n        drop_share: 2\n")
        XCTAssertTrue(setting.hasPrefix("a.yaml:6:21:"), setting)
    }

    func testAFilterOnACodecItCannotHandleIsRefusedWhereItIsNamed() {
        let send = diagnostic(
            "send:\n  video:\n    capture: {kind: test}\n    encode: {codec: vp9}\n    encoded_filters:\n      - filter: test-trailer\n")
        XCTAssertTrue(
            send.hasPrefix("a.yaml:6:9: 'test-trailer' handles vp8, h264, opus, not vp9 (send.video encodes vp9); encode with a codec it handles"),
            send)
        let sending = "send:\n  video:\n    capture: {kind: test}\n"
        let receive = diagnostic(sending + "receive:\n  video:\n    encoded_filters:\n      - filter: test-trailer\n")
        XCTAssertTrue(receive.hasPrefix("a.yaml:7:9: 'test-trailer' handles vp8, h264, opus, not vp9"), receive)
        XCTAssertTrue(receive.hasSuffix("list the codecs it handles in `codecs:`"), receive)
        XCTAssertNoThrow(try spec(sending + "receive:\n  video:\n    codecs: [vp8, h264]\n    encoded_filters:\n      - filter: test-trailer\n"))
    }

    // MARK: Pipelines

    /// A trailer added to each encoded frame before the payloader and stripped after the
    /// depayloader, on VP8 video and Opus sound: every frame arrives with it (the bytes
    /// crossed RTP unchanged), and the picture decoded after the strip is the one painted
    /// before encoding.
    func testBytesReplacedOnSendAndRestoredOnReceiveGiveBackThePicture() async throws {
        try requireLoopbackOnlyNetwork()
        let s = try spec(
            """
            transport: { ice: { addresses: [127.0.0.1] } }
            send:
              video:
                capture: { kind: test, pattern: snow, width: 320, height: 240, fps: 30 }
                filters:
                  - filter: test-paint
                    luma: 180
                encode: { codec: vp8, bitrate: 800 }
                encoded_filters:
                  - filter: test-trailer
                    mode: add
              audio:
                capture: { kind: test }
                encoded_filters:
                  - filter: test-trailer
                    mode: add
            receive:
              video:
                codecs: [vp8]
                encoded_filters:
                  - filter: test-trailer
                    mode: strip
                filters:
                  - filter: test-luma-probe
              audio:
                encoded_filters:
                  - filter: test-trailer
                    mode: strip
            """)
        let summary = try await PipelineRun(spec: s).run(options: RunOptions(duration: 3))
        let decoded = summary.receive.video?.frames ?? 0, sounds = summary.receive.audio?.buffers ?? 0
        XCTAssertGreaterThan(decoded, 45)
        XCTAssertGreaterThan(sounds, 60)
        XCTAssertGreaterThanOrEqual(events(summary, filter: "test-trailer", event: "verified"), decoded + sounds)
        XCTAssertEqual(events(summary, filter: "test-trailer", event: "missing"), 0)
        XCTAssertEqual(try XCTUnwrap(LumaProbe.lastMean), 180, accuracy: 4, "the decoded picture is the painted one")
    }

    /// `faults` dropping every second frame before the payloader: the receiver decodes only
    /// what was let through, about half of what the encoder made (VP8: its decoder shows a
    /// frame whose reference is missing; avdec_h264 drops some such frames).
    func testFaultsDroppedOnSendNeverReachTheReceiver() async throws {
        try requireLoopbackOnlyNetwork()
        let s = try spec(
            """
            transport: { ice: { addresses: [127.0.0.1] } }
            send:
              video:
                capture: { kind: test, width: 320, height: 240, fps: 30 }
                encode: { codec: vp8, bitrate: 600, keyframe_interval: 30 }
                encoded_filters:
                  - filter: faults
                    drop_every: 2
            """)
        let summary = try await PipelineRun(spec: s).run(options: RunOptions(duration: 3))
        let faults = try XCTUnwrap(summary.filters.first { $0.filter == "faults" })
        XCTAssertGreaterThan(faults.frames, 60)
        // Every second frame, keyframes spared: a little under half.
        XCTAssertEqual(Double(faults.dropped), Double(faults.frames) / 2, accuracy: Double(faults.frames) / 10, "\(faults)")
        let decoded = summary.receive.video?.frames ?? 0
        XCTAssertLessThanOrEqual(decoded, faults.frames - faults.dropped, "nothing dropped was decoded")
        // Frames encoded before DTLS completes are let through but never sent.
        XCTAssertGreaterThan(decoded, (faults.frames - faults.dropped) * 3 / 5, "what was let through was decoded: \(faults), \(decoded)")
    }

    /// `faults` on the receive side dropping every delta frame for 1.5 s: the picture
    /// freezes (only keyframes, one a second, get through), then flows again.
    func testFaultsOnReceiveFreezeThePictureForTheirWindow() async throws {
        try requireLoopbackOnlyNetwork()
        let s = try spec(
            """
            transport: { ice: { addresses: [127.0.0.1] } }
            send:
              video:
                capture: { kind: test, width: 320, height: 240, fps: 30 }
                encode: { codec: vp8, bitrate: 600, keyframe_interval: 30 }
            receive:
              video:
                encoded_filters:
                  - filter: faults
                    drop_deltas_at: 0.5
                    drop_deltas_for: 1.5
            """)
        let summary = try await PipelineRun(spec: s).run(options: RunOptions(duration: 4))
        let faults = try XCTUnwrap(summary.filters.first { $0.filter == "faults" })
        // 1.5 s of 30 fps less the one or two keyframes in it.
        XCTAssertEqual(Double(faults.dropped), 43, accuracy: 6, "\(faults)")
        let sent = summary.send.video?.frames ?? 0, decoded = summary.receive.video?.frames ?? 0
        XCTAssertLessThanOrEqual(decoded, sent - faults.dropped + 2)
        XCTAssertGreaterThan(decoded, sent - faults.dropped - 15, "the picture flows again after the window")
        // The receiver counts the window as freezes (WebRTC's definition): the pictures it got
        // in it were the keyframes, a second apart, so the freezes add up to about the window.
        let video = try XCTUnwrap(summary.receive.video)
        XCTAssertGreaterThanOrEqual(video.freezes ?? 0, 1, "\(video)")
        XCTAssertEqual(video.freeze_ms ?? 0, 1500, accuracy: 500, "\(video)")
        XCTAssertLessThanOrEqual(video.longest_freeze_ms ?? 0, 1200, "a keyframe a second breaks the window: \(video)")
        XCTAssertTrue(summary.text.contains("freezes ("), summary.text)
    }

    /// Frames `faults` drops on the receive side reach the decoder as missing data: it asks
    /// for a keyframe (a PLI), so with the sender's own keyframes 10 s apart the picture is
    /// back within a keyframe request of each drop, not at the next scheduled keyframe.
    func testFramesDroppedOnReceiveAskTheSenderForAKeyframe() async throws {
        try requireLoopbackOnlyNetwork()
        let s = try spec(
            """
            transport: { ice: { addresses: [127.0.0.1] } }
            send:
              video:
                capture: { kind: test, width: 320, height: 240, fps: 30 }
                encode: { codec: vp8, bitrate: 600, keyframe_interval: 300 }
            receive:
              video:
                encoded_filters:
                  - filter: faults
                    drop_deltas_at: 1
                    drop_deltas_for: 0.5
            """)
        let summary = try await PipelineRun(spec: s).run(options: RunOptions(duration: 4))
        let faults = try XCTUnwrap(summary.filters.first { $0.filter == "faults" })
        let video = try XCTUnwrap(summary.send.video), network = try XCTUnwrap(summary.network)
        print(
            "drops on receive: \(faults.dropped) dropped, \(network.keyframe_requests ?? -1) keyframe requests at the encoder, PLIs \(network.pli_count), decoded \(summary.receive.video?.frames ?? 0) of \(video.frames)"
        )
        XCTAssertGreaterThan(faults.dropped, 5, "\(faults)")
        XCTAssertGreaterThanOrEqual(network.pli_count, 1, "the receiver asked for a keyframe: \(network)")
        // The start gate's request, then the receiver's, 10 s before the encoder's own keyframe.
        XCTAssertGreaterThanOrEqual(network.keyframe_requests ?? 0, 2, "the request reached the encoder: \(network)")
        // Without the request the picture would stay broken from the window to the run's end.
        let decoded = summary.receive.video?.frames ?? 0
        XCTAssertGreaterThan(decoded, video.frames - faults.dropped - 30, "the picture came back within a second: \(decoded) of \(video.frames)")
    }

    /// A send branch's encoded filters swapped twice while frames flow (in process, for the
    /// leak tracer): a list of one `faults` that drops nothing, then none, then `faults`
    /// dropping every second frame; the picture keeps coming, and only the last one drops.
    func testASendersEncodedFiltersAreSwappedWhileFramesFlow() async throws {
        try requireLoopbackOnlyNetwork()
        let s = try spec(
            """
            transport: { ice: { addresses: [127.0.0.1] } }
            send:
              video:
                capture: { kind: test, width: 320, height: 240, fps: 30 }
                encode: { codec: vp8, bitrate: 600 }
                encoded_filters:
                  - filter: faults
            """)
        let run = PipelineRun(spec: s)
        let stop = StopFlag()
        let task = Task { try await run.run(options: RunOptions(), stop: stop) }
        defer { stop.set() }
        func decoded() -> Int { run.counters?.receiveVideoFrames.load(ordering: .relaxed) ?? 0 }
        func waitForFrames(beyond n: Int) async throws {
            let deadline = ContinuousClock.now + .seconds(10)
            while decoded() <= n {
                guard ContinuousClock.now < deadline else { return XCTFail("no more than \(n) frames decoded") }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        try await waitForFrames(beyond: 20)
        try await run.replaceEncodedFilters(.video, with: [])
        try await waitForFrames(beyond: decoded() + 20)
        let dropping = try spec(
            "send:\n  video:\n    capture: {kind: test}\n    encode: {codec: vp8}\n    encoded_filters:\n      - filter: faults\n        drop_every: 2\n")
        try await run.replaceEncodedFilters(.video, with: dropping.send?.video?.encodedFilters ?? [])
        try await waitForFrames(beyond: decoded() + 20)
        stop.set()
        let summary = try await task.value
        let faults = summary.filters.filter { $0.filter == "faults" }
        XCTAssertEqual(faults.count, 2, "the first list and the last: \(faults)")
        XCTAssertEqual(faults.first?.dropped, 0)
        XCTAssertGreaterThan(faults.last?.dropped ?? 0, 8, "the last list drops every second frame: \(faults)")
    }

    /// VP8 and VP9 started without encoded filters go out through GStreamer's payloaders,
    /// which parse every frame: adding `e2ee` while running is refused with the restart it
    /// takes (naming the payloader), and the picture keeps coming afterwards.
    func testAddingEncodedFiltersToAParsingPayloaderIsRefusedForVP8AndVP9() async throws {
        try requireLoopbackOnlyNetwork()
        for codec in ["vp8", "vp9"] {
            let s = try spec(
                """
                transport: { ice: { addresses: [127.0.0.1] } }
                send:
                  video:
                    capture: { kind: test, width: 320, height: 240, fps: 30 }
                    encode: { codec: \(codec), bitrate: 600 }
                """)
            let run = PipelineRun(spec: s)
            let stop = StopFlag()
            let task = Task { try await run.run(options: RunOptions(), stop: stop) }
            func decoded() -> Int { run.counters?.receiveVideoFrames.load(ordering: .relaxed) ?? 0 }
            func waitForFrames(beyond n: Int) async throws {
                let deadline = ContinuousClock.now + .seconds(10)
                while decoded() <= n {
                    guard ContinuousClock.now < deadline else { return XCTFail("\(codec): no more than \(n) frames decoded") }
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            try await waitForFrames(beyond: 10)
            let e2ee = try spec(
                "send:\n  video:\n    capture: {kind: test}\n    encode: {codec: \(codec)}\n    encoded_filters:\n      - filter: e2ee\n        passphrase: sesame\n"
            )
            var refusal = "none: adding e2ee to rtp\(codec)pay was let through"
            do { try await run.replaceEncodedFilters(.video, with: e2ee.send?.video?.encodedFilters ?? []) } catch { refusal = "\(error)" }
            XCTAssertTrue(refusal.contains("rtp\(codec)pay") && refusal.contains("restart"), "\(codec): \(refusal)")
            try await waitForFrames(beyond: decoded() + 10)
            stop.set()
            _ = try await task.value
        }
    }

    // MARK: End-to-end encryption

    private func encrypted(receiverPassphrase: String) throws -> PipelineSpec {
        try spec(
            """
            transport: { ice: { addresses: [127.0.0.1] } }
            send:
              audio:
                capture: { kind: test }
                encoded_filters:
                  - filter: e2ee
                    passphrase: sesame
            receive:
              audio:
                encoded_filters:
                  - filter: e2ee
                    passphrase: \(receiverPassphrase)
                filters:
                  - filter: level
            """)
    }

    /// Opus encrypted before the payloader and decrypted after the depayloader with the same
    /// passphrase: the tone arrives at its level.
    func testEncryptedSoundDecryptsToTheTone() async throws {
        try requireLoopbackOnlyNetwork()
        let summary = try await PipelineRun(spec: encrypted(receiverPassphrase: "sesame")).run(options: RunOptions(duration: 3))
        XCTAssertGreaterThan(summary.receive.audio?.buffers ?? 0, 60)
        XCTAssertEqual(events(summary, filter: "e2ee", event: "decrypt-failed"), 0)
        let level = try XCTUnwrap(summary.filters.first { $0.filter == "level" }?.last_event_fields?["level"]?["rms_db"], "\(summary.filters)")
        XCTAssertGreaterThan(level, -20, "the tone, not silence or noise")
    }

    /// The wrong passphrase: nothing reaches the decoder, the failures are reported, and the
    /// run ends normally.
    func testTheWrongPassphraseGivesNoSoundAndSaysWhy() async throws {
        try requireLoopbackOnlyNetwork()
        let summary = try await PipelineRun(spec: encrypted(receiverPassphrase: "open")).run(options: RunOptions(duration: 3))
        XCTAssertEqual(summary.receive.audio?.buffers ?? 0, 0)
        let receiver = try XCTUnwrap(summary.filters.first { $0.filter == "e2ee" && $0.dropped > 0 }, "\(summary.filters)")
        XCTAssertGreaterThan(receiver.dropped, 60)
        XCTAssertGreaterThan(events(summary, filter: "e2ee", event: "decrypt-failed"), 1)
    }

    /// VP9 encrypted whole (LiveKit keeps no VP9 byte in the clear) before Sluice's own
    /// payloader (flexible-mode descriptors, no frame parsing) and decrypted after
    /// rtpvp9depay: the painted picture comes back; with another passphrase none is decoded.
    func testEncryptedVP9DecryptsToThePictureAndOnlyWithTheKey() async throws {
        try await checkEncryptedPicture(codec: "vp9")
    }

    /// VP8 encrypted before Sluice's own payloader (rtpvp8pay cannot parse ciphertext) and
    /// decrypted after the depayloader: the painted picture comes back; with another
    /// passphrase no picture is decoded.
    func testEncryptedVP8DecryptsToThePictureAndOnlyWithTheKey() async throws {
        try await checkEncryptedPicture(codec: "vp8")
    }

    /// H.264 encrypted after h264parse (as AVC, SPS and PPS in the clear) and decrypted
    /// between rtph264depay (Annex B) and the parser: the painted picture comes back, every
    /// frame decrypts (keyframes too, whose SPS and PPS the depayloader repeats); with
    /// another passphrase no picture is decoded.
    func testEncryptedH264DecryptsToThePictureAndOnlyWithTheKey() async throws {
        try await checkEncryptedPicture(codec: "h264")
    }

    private func checkEncryptedPicture(codec: String) async throws {
        try requireLoopbackOnlyNetwork()
        func run(_ passphrase: String) async throws -> RunSummary {
            try await PipelineRun(
                spec: spec(
                    """
                    transport: { ice: { addresses: [127.0.0.1] } }
                    send:
                      video:
                        capture: { kind: test, pattern: snow, width: 320, height: 240, fps: 30 }
                        filters:
                          - filter: test-paint
                            luma: 70
                        encode: { codec: \(codec), bitrate: 800, keyframe_interval: 30 }
                        encoded_filters:
                          - filter: e2ee
                            passphrase: sesame
                    receive:
                      video:
                        codecs: [\(codec)]
                        encoded_filters:
                          - filter: e2ee
                            passphrase: \(passphrase)
                        filters:
                          - filter: test-luma-probe
                    """)
            ).run(options: RunOptions(duration: 3))
        }
        let right = try await run("sesame")
        XCTAssertGreaterThan(right.receive.video?.frames ?? 0, 45)
        XCTAssertEqual(events(right, filter: "e2ee", event: "decrypt-failed"), 0, "\(right.filters)")
        XCTAssertEqual(right.filters.first { $0.filter == "e2ee" && $0.dropped > 0 }?.dropped, nil, "\(right.filters)")
        XCTAssertEqual(try XCTUnwrap(LumaProbe.lastMean), 70, accuracy: 4, "the decoded picture is the painted one")
        let wrong = try await run("open")
        XCTAssertEqual(wrong.receive.video?.frames ?? 0, 0, "no picture without the key")
        XCTAssertGreaterThan(events(wrong, filter: "e2ee", event: "decrypt-failed"), 1)
    }

    /// A passed-through H.264 file (5 s made with x264enc, grey 0x464646: luma about 76), encrypted
    /// as it is sent and decrypted after the depayloader: the grey picture comes back, and
    /// only with the key.
    func testAPassedThroughH264CaptureIsEncryptedAndDecrypted() async throws {
        try requireLoopbackOnlyNetwork()
        let clip = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-e2ee-clip-\(UUID().uuidString).mp4").path
        defer { try? FileManager.default.removeItem(atPath: clip) }
        let make = try Bin.parse(
            "videotestsrc num-buffers=150 pattern=solid-color foreground-color=0xff464646 ! video/x-raw,width=320,height=240,framerate=30/1 "
                + "! x264enc key-int-max=30 bframes=0 tune=zerolatency ! mp4mux ! filesink location=\(clip)", ghostUnlinkedPads: false)
        let writer = Pipeline()
        try writer.add([make])
        writer.setState(.playing)
        var written = false
        while let m = writer.bus.pop(timeout: 30_000_000_000) {
            if m.kind == .eos { written = true; break }
            if m.kind == .error { break }
        }
        writer.setState(.null)
        XCTAssertTrue(written, "the clip was written")
        func run(_ passphrase: String) async throws -> RunSummary {
            try await PipelineRun(
                spec: spec(
                    """
                    transport: { ice: { addresses: [127.0.0.1] } }
                    send:
                      video:
                        capture: { kind: uri, url: "file://\(clip)" }
                        encode: { codec: h264, passthrough: true }
                        encoded_filters:
                          - filter: e2ee
                            passphrase: sesame
                    receive:
                      video:
                        codecs: [h264]
                        encoded_filters:
                          - filter: e2ee
                            passphrase: \(passphrase)
                        filters:
                          - filter: test-luma-probe
                    """)
            ).run(options: RunOptions(duration: 3))
        }
        let right = try await run("sesame")
        XCTAssertGreaterThan(right.receive.video?.frames ?? 0, 45, "\(right.filters)")
        XCTAssertEqual(events(right, filter: "e2ee", event: "decrypt-failed"), 0, "\(right.filters)")
        XCTAssertEqual(try XCTUnwrap(LumaProbe.lastMean), 76, accuracy: 5, "the decoded picture is the file's grey")
        let wrong = try await run("open")
        XCTAssertEqual(wrong.receive.video?.frames ?? 0, 0, "no picture without the key")
        XCTAssertGreaterThan(events(wrong, filter: "e2ee", event: "decrypt-failed"), 1)
    }

    /// The passphrase is a write-only property: GStreamer's graph dump cannot show it.
    func testTheKeyStaysOutOfTheGraphPicture() throws {
        let pipeline = Pipeline(name: "p")
        let element = try Element.make("sluice-e2ee")
        try element.set("passphrase", "do-not-show-me")
        try element.set("key_index", 7)
        try pipeline.add(element)
        let dot = pipeline.dotGraph() // every property GStreamer can read
        XCTAssertTrue(dot.contains("key-index=7"), "the dump shows the readable settings")
        XCTAssertFalse(dot.contains("do-not-show-me"))
    }
}
