import Foundation
import XCTest

/// The client transports against `sluice serve`, each party a process of its own: two
/// `sluice run`s meeting in an AppRTC room, and the camera API client.
final class SignalledEndToEndTests: XCTestCase {
    /// room-send and room-receive meet in a room (whoever joins first offers); video, audio
    /// and the chat data channel (fed from the sender's stdin) arrive; when the receiver
    /// leaves, the sender hears `bye` and stops.
    func testTwoRunsMeetInARoomWithAChatChannel() throws {
        let r = try CLI.runPairWithServer(
            serve: [], port: 18460,
            first: ["Pipelines/room-send.yaml", "--duration", "12", "--quiet"],
            second: ["Pipelines/room-receive.yaml", "--duration", "5", "--quiet"],
            firstInput: "hello\nline two\n",
            env: ["SLUICE_ROOM_SERVER": "http://127.0.0.1:18460", "SLUICE_ROOM": "e2e"])
        let (send, recv) = (r.first, r.second)
        XCTAssertEqual(recv.status, 0, recv.stderr)
        XCTAssertEqual(send.status, 0, send.stderr)
        // One peer offered, the other answered, as the server decided.
        let roles = Set([send.value("session.role") as? String, recv.value("session.role") as? String].compactMap { $0 })
        XCTAssertEqual(roles, ["offerer", "answerer"], "\(send.stdout)\n\(recv.stdout)")
        XCTAssertEqual(recv.value("session.id") as? String, "e2e")
        XCTAssertGreaterThan(recv.int("receive.video.frames") ?? 0, 75, "about 30 fps for most of 5 s: \(recv.stdout)")
        XCTAssertEqual(recv.int("receive.video.width"), 640)
        XCTAssertEqual(recv.int("receive.video.height"), 480)
        XCTAssertGreaterThan(recv.int("receive.audio.buffers") ?? 0, 100)
        // The chat lines typed into the sender arrive at the receiver, in order.
        XCTAssertTrue(recv.stdout.contains("[chat] hello\n[chat] line two"), recv.stdout)
        let recvChannel = (recv.value("data_channels") as? [[String: Any]])?.first
        XCTAssertEqual(recvChannel?["received"] as? Int, 2)
        let sendChannel = (send.value("data_channels") as? [[String: Any]])?.first
        XCTAssertEqual(sendChannel?["sent"] as? Int, 2)
        XCTAssertEqual(sendChannel?["opened"] as? Bool, true)
        // The receiver left after 5 s: the sender stopped on `bye`, well before its 12 s.
        XCTAssertTrue((send.value("session.ended_by_peer") as? String)?.contains("left room 'e2e'") ?? false, send.stdout)
        XCTAssertLessThan(send.double("duration_s") ?? 99, 10)
    }

    /// A simulcast sender in a room with a peer that takes one stream (Sluice answers none):
    /// the best layer goes alone, whichever of the two offers, and the others are never
    /// encoded; the receiver gets the best layer's picture at the full frame rate.
    func testASimulcastSenderInARoomSendsTheBestLayerAloneToAPeerThatTakesOneStream() throws {
        let layers = "send.video.encode.simulcast=[{rid: h}, {rid: m, scale: 2, bitrate: 300}, {rid: l, scale: 4, bitrate: 100}]"
        for (i, senderOffers) in [true, false].enumerated() {
            let sender = ["Pipelines/room-send.yaml", "--duration", "12", "--quiet", "--set", layers]
            let receiver = ["Pipelines/room-receive.yaml", "--duration", "6", "--quiet"]
            let r = try CLI.runPairWithServer(
                serve: [], port: 18465 + i, first: senderOffers ? sender : receiver, second: senderOffers ? receiver : sender,
                env: ["SLUICE_ROOM_SERVER": "http://127.0.0.1:\(18465 + i)", "SLUICE_ROOM": "layers"], secondAfterFirstJoins: true)
            let (send, recv) = senderOffers ? (r.first, r.second) : (r.second, r.first)
            XCTAssertEqual(send.status, 0, send.stderr)
            XCTAssertEqual(recv.status, 0, recv.stderr)
            XCTAssertEqual(send.value("session.role") as? String, senderOffers ? "offerer" : "answerer")
            let sent = send.value("send.video.simulcast") as? [[String: Any]] ?? []
            XCTAssertEqual(sent.map { $0["taken_by_peer"] as? Bool }, [true, false, false], "\(sent)")
            XCTAssertEqual(sent.dropFirst().map { $0["frames"] as? Int }, [0, 0], "m and l were never encoded: \(sent)")
            XCTAssertEqual(recv.int("receive.video.width"), 640, recv.stdout)
            XCTAssertEqual(recv.int("receive.video.height"), 480, recv.stdout)
            XCTAssertGreaterThan(recv.int("receive.video.frames") ?? 0, 100, "about 30 fps for most of 6 s: \(recv.stdout)")
        }
    }

    /// The camera client against the server's camera endpoint with a 2 s lease: the client
    /// extends it before each expiry, so media flows for the whole run, then stops the
    /// stream (the server has no camera session left).
    func testCameraClientExtendsBeforeExpiryAndStopsOnExit() throws {
        let r = try CLI.runWithServer(
            serve: ["--pipeline", "Pipelines/server.yaml", "--camera-lifetime", "2"], port: 18461,
            run: ["Pipelines/camera-view.yaml", "--duration", "6", "--quiet"],
            env: ["SLUICE_CAMERA": "http://127.0.0.1:18461/enterprises/p/devices/server"],
            after: "/status.json")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertGreaterThanOrEqual(r.int("session.extensions") ?? 0, 3, "a 2 s lease extended at half-life over 6 s: \(r.stdout)")
        XCTAssertNil(r.value("session.ended_by_peer"), r.stdout)
        XCTAssertFalse((r.value("session.id") as? String ?? "").isEmpty)
        // Media for the whole run, not just the first lease.
        XCTAssertGreaterThan(r.int("receive.video.frames") ?? 0, 60, "more than one 2 s lease of frames: \(r.stdout)")
        XCTAssertEqual(r.int("receive.video.width"), 640)
        let channel = (r.value("data_channels") as? [[String: Any]])?.first
        XCTAssertEqual(channel?["label"] as? String, "sluice", "the API's data channel is opened even when the file declares none")
        XCTAssertEqual(channel?["opened"] as? Bool, true)
        let status = try XCTUnwrap(r.stdout.components(separatedBy: "AFTER:").last)
        XCTAssertTrue(status.contains(#""camera_sessions":0"#), "StopWebRtcStream on exit: \(status)")
    }

    func testCameraErrorsComeInTheAPIsWords() throws {
        let r = try CLI.runWithServer(
            serve: ["--pipeline", "Pipelines/server.yaml"], port: 18462,
            run: ["Pipelines/camera-view.yaml", "--duration", "3"],
            env: ["SLUICE_CAMERA": "http://127.0.0.1:18462/enterprises/p/devices/nosuch"])
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("camera: GenerateWebRtcStream failed: 404 NOT_FOUND"), r.stderr)
    }

    func testRoomServerThatIsNotThereFailsClearly() throws {
        let r = try CLI.run(
            ["run", "Pipelines/room-receive.yaml", "--duration", "3"],
            env: ["SLUICE_ROOM_SERVER": "http://127.0.0.1:18463"])
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("apprtc: cannot reach http://127.0.0.1:18463/join/sluice-demo"), r.stderr)
    }
}
