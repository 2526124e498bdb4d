import GStreamer
import SluiceRunTestSupport
import XCTest
import SluiceRun

/// A transport kind is one type plus its registry line: a kind written outside the library
/// (`EchoTransport`, one file) is decoded, checked and run like a built-in one.
final class TransportRegistryTests: XCTestCase {
    override func setUp() { TransportRegistry.register(EchoTransport()) }
    override func tearDown() { TransportRegistry.unregister(.echo) }

    private let send = """
        send:
          video:
            capture: { kind: test, width: 160, height: 120, fps: 30 }
            encode: { codec: vp8, bitrate: 200 }
        """

    func testANewKindDecodesItsOwnKeysAndSections() throws {
        let spec = try XCTUnwrap(specLoadValid("transport: { kind: echo, greeting: hello }\n" + send))
        XCTAssertEqual(spec.transport.kind, .echo)
        XCTAssertEqual(spec.transport.settings(as: EchoSettings.self)?.greeting, "hello")
        XCTAssertFalse(spec.transport.kind.usesWebRTC)

        let missing = try XCTUnwrap(specLoadErrors("transport: { kind: echo }\n" + send))
        XCTAssertEqual(missing.diagnostics.first?.description, "test.yaml:1:1: transport kind 'echo' needs a 'greeting'")

        let receive = try XCTUnwrap(specLoadErrors("transport: { kind: echo, greeting: hi }\n" + send + "\nreceive:\n  video: {}\n"))
        XCTAssertTrue(receive.description.contains("transport kind 'echo' echoes nothing back: remove receive"), receive.description)

        // Its key is its own; the keys of others are theirs; its abilities are enforced.
        let onWHEP = try XCTUnwrap(specLoadErrors("transport: { kind: whip, endpoint: 'http://127.0.0.1:1/whip/x', greeting: hi }\n" + send))
        XCTAssertTrue(onWHEP.description.contains("test.yaml:1:65: 'greeting' only applies to transport kind echo"), onWHEP.description)
        let token = try XCTUnwrap(specLoadErrors("transport: { kind: echo, greeting: hi, token: t }\n" + send))
        XCTAssertTrue(token.description.contains("'token' only applies to transport kinds whep, whip, janus and camera"), token.description)
        let channels = try XCTUnwrap(specLoadErrors("transport: { kind: echo, greeting: hi, data_channels: [chat] }\n" + send))
        XCTAssertTrue(channels.description.contains("transport kind 'echo' has no peer to open data channels with"), channels.description)
        let unknown = try XCTUnwrap(specLoadErrors("transport: { kind: echoo }\n" + send))
        XCTAssertTrue(unknown.description.contains("camera, echo; did you mean 'echo'?"), unknown.description)
    }

    func testANewKindRuns() async throws {
        let spec = try XCTUnwrap(specLoadValid("transport: { kind: echo, greeting: hello }\n" + send))
        let endedBefore = EchoSession.ended.load(ordering: .relaxed)
        let summary = try await PipelineRun(spec: spec).run(options: RunOptions(duration: 1.5))
        XCTAssertEqual(summary.session?.role, "echo")
        XCTAssertEqual(summary.session?.id, "hello")
        XCTAssertGreaterThan(summary.send.video?.frames ?? 0, 20, "the kind's prepare built the send branch and frames were encoded")
        XCTAssertGreaterThan(summary.send.video?.bytes ?? 0, 0)
        XCTAssertEqual(EchoSession.ended.load(ordering: .relaxed), endedBefore + 1, "the run ended the kind's session once")
    }

    func testRemovingTheKindMakesItUnknownAgain() throws {
        TransportRegistry.unregister(.echo)
        let errors = try XCTUnwrap(specLoadErrors("transport: { kind: echo, greeting: hi }\n" + send))
        XCTAssertTrue(errors.description.contains("unknown transport kind 'echo'"), errors.description)
    }
}
