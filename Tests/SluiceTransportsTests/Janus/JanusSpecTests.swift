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
            "test.yaml:1:66: unknown Janus plugin 'echotset'; expected one of videoroom, echotest, audiobridge; did you mean 'echotest'?")
        let receiveOnly = try XCTUnwrap(
            specLoadErrors("transport: { kind: janus, server: 'ws://127.0.0.1:8188', plugin: echotest }\nreceive:\n  video: {}\n"))
        XCTAssertEqual(
            receiveOnly.diagnostics.first?.description,
            "test.yaml:1:58: Janus's EchoTest sends back what it gets: `plugin: echotest` needs a send section")
    }

    private let audio = "send:\n  audio:\n    capture: { kind: test }\n    encode: { codec: opus }\nreceive:\n  audio: {}\n"

    func testAudioBridgeJoinsARoomWithAudioOnly() throws {
        let bridge = try XCTUnwrap(
            specLoadValid("transport: { kind: janus, server: 'ws://127.0.0.1:8188', plugin: audiobridge, room: 1234, pin: x, prebuffer: 2 }\n" + audio))
        let settings = try XCTUnwrap(bridge.transport.settings(as: JanusSpec.self))
        XCTAssertEqual(settings.plugin, .audiobridge)
        XCTAssertEqual(settings.room, "1234")
        XCTAssertEqual(settings.pin, "x")
        XCTAssertEqual(settings.prebuffer, 2)
        XCTAssertFalse(settings.echoesWhatIsSent, "a participant does not hear itself in the mix")
    }

    func testAudioBridgeRefusesVideoNoRoomSubscribeAndNothingToSend() throws {
        let server = "transport: { kind: janus, server: 'ws://127.0.0.1:8188', plugin: audiobridge"
        let video = try XCTUnwrap(specLoadErrors(server + ", room: 1234 }\n" + media))
        XCTAssertEqual(
            video.diagnostics.map(\.description),
            [
                "test.yaml:1:58: an AudioBridge participant sends audio into the room's mix: `plugin: audiobridge` needs send.audio",
                "test.yaml:3:3: an AudioBridge room carries audio only: remove send.video, or use the VideoRoom (remove `plugin: audiobridge`)",
                "test.yaml:7:3: an AudioBridge room carries audio only: remove receive.video, or use the VideoRoom (remove `plugin: audiobridge`)"
            ])
        let noRoom = try XCTUnwrap(specLoadErrors(server + " }\n" + audio))
        XCTAssertEqual(
            noRoom.diagnostics.first?.description,
            "test.yaml:1:58: transport kind 'janus' needs a 'room': the AudioBridge room to join, e.g. room: 1234")
        let subscribe = try XCTUnwrap(specLoadErrors(server + ", room: 1234, subscribe: [a] }\n" + audio))
        XCTAssertEqual(
            subscribe.diagnostics.first?.description,
            "test.yaml:1:91: 'subscribe' is for VideoRoom; an AudioBridge participant hears the room's mix: remove it")
        let deep = try XCTUnwrap(specLoadErrors(server + ", room: 1234, prebuffer: 99 }\n" + audio))
        XCTAssertTrue(deep.diagnostics.first?.description.hasPrefix("test.yaml:1:102: ") ?? false, "\(deep)")
        XCTAssertTrue(deep.diagnostics.first?.description.contains("50") ?? false, "\(deep)")
        let room = try XCTUnwrap(
            specLoadErrors("transport: { kind: janus, server: 'ws://127.0.0.1:8188', room: 1234, prebuffer: 2 }\n" + media))
        XCTAssertEqual(
            room.diagnostics.first?.description,
            "test.yaml:1:70: 'prebuffer' is Janus AudioBridge's jitter buffer: it needs `plugin: audiobridge`")
    }
}
