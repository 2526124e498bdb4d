import SluiceRun
import SluiceRunTestSupport
import SluiceTransports
import XCTest

/// `kind: janus` with `plugin: echotest`: no room, a send section, and settings that say the
/// far end sends back what it gets (what lets `sluice measure` run through it).
final class JanusSpecTests: XCTestCase {
    override func setUp() { SluiceTransports.registerBuiltIns() }

    private let media = "send:\n  video:\n    capture: { kind: test }\n    encode: { codec: vp8 }\nreceive:\n  video: {}\n"

    func testEchoTestNeedsNoRoomAndEchoesWhatIsSent() throws {
        let echo = try XCTUnwrap(specLoadValid("transport: { kind: janus, server: 'ws://127.0.0.1:8188', plugin: echotest }\n" + media))
        let settings = try XCTUnwrap(echo.transport.settings(as: JanusSpec.self))
        XCTAssertEqual(settings.plugin, .echotest)
        XCTAssertTrue(settings.echoesWhatIsSent)
        let room = try XCTUnwrap(specLoadValid("transport: { kind: janus, server: 'ws://127.0.0.1:8188', room: 1234 }\n" + media))
        XCTAssertEqual(room.transport.settings(as: JanusSpec.self)?.plugin, .videoroom, "VideoRoom unless the file says otherwise")
        XCTAssertEqual(room.transport.settings(as: JanusSpec.self)?.echoesWhatIsSent, false, "a room does not send a publisher its own stream")
    }

    func testEchoTestRefusesRoomKeysAMisspeltPluginAndNothingToSend() throws {
        let room = try XCTUnwrap(
            specLoadErrors("transport: { kind: janus, server: 'ws://127.0.0.1:8188', plugin: echotest, room: 1234 }\n" + media))
        XCTAssertEqual(
            room.diagnostics.first?.description,
            "test.yaml:1:76: 'room' is for VideoRoom; Janus's EchoTest has no rooms: remove it, or remove `plugin: echotest`")
        let misspelt = try XCTUnwrap(specLoadErrors("transport: { kind: janus, server: 'ws://127.0.0.1:8188', plugin: echotset }\n" + media))
        XCTAssertEqual(
            misspelt.diagnostics.first?.description,
            "test.yaml:1:66: unknown Janus plugin 'echotset'; expected one of videoroom, echotest; did you mean 'echotest'?")
        let receiveOnly = try XCTUnwrap(
            specLoadErrors("transport: { kind: janus, server: 'ws://127.0.0.1:8188', plugin: echotest }\nreceive:\n  video: {}\n"))
        XCTAssertEqual(
            receiveOnly.diagnostics.first?.description,
            "test.yaml:1:58: Janus's EchoTest sends back what it gets: `plugin: echotest` needs a send section")
    }
}
