import Foundation
import GStreamer
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Sluice
import SluiceSignalling
import XCTest
@testable import SluiceServer

/// The camera API over HTTP with real WebRTC: a recvonly audio + video + data channel offer,
/// the answer, media, extend, expiry and stop.
final class CameraServerTests: XCTestCase {
    private func hub() throws -> StreamHub {
        let spec = try PipelineLoader(environment: [:]).load(
            yaml: """
                name: cam1
                send:
                  video:
                    capture: { kind: test, pattern: ball, width: 320, height: 240, fps: 30 }
                    encode: { codec: vp8, bitrate: 400 }
                  audio:
                    capture: { kind: test }
                    encode: { codec: opus, bitrate: 32 }
                """, file: "cam1.yaml")
        return try StreamHub(spec: spec, iceAddresses: ["127.0.0.1"])
    }

    /// A viewer shaped like the camera API's client: audio, video, then a data channel.
    private static func cameraViewer() throws -> TestViewer {
        let v = try TestViewer(transceivers: [("recvonly", EncoderPresets.rtpCaps(for: .opus)), ("recvonly", EncoderPresets.rtpCaps(for: .vp8))])
        _ = try v.webrtcbin.emit("create-data-channel", "events", NullArgument())
        return v
    }

    private static func command(_ name: String, _ params: [String: String]) -> ByteBuffer {
        ByteBuffer(data: try! JSONSerialization.data(withJSONObject: ["command": name, "params": params]))
    }

    private static func results(_ r: TestResponse) throws -> [String: String] {
        let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(buffer: r.body)) as? [String: Any], String(buffer: r.body))
        return try XCTUnwrap(o["results"] as? [String: String], String(buffer: r.body))
    }

    func testGenerateExtendStopAndExpiry() async throws {
        let hub = try hub()
        let server = SluiceHTTPServer(configuration: .init(host: "127.0.0.1", port: 0), streams: [hub], cameraLifetime: 3)
        let uri = "/enterprises/p1/devices/cam1:executeCommand"
        try await server.application().test(.live) { client in
            // Generate: the answer, an expiry, a session id; media flows.
            let viewer = try Self.cameraViewer()
            let offer = try await viewer.peer.offerWithCandidates()
            XCTAssertNil(CameraAPI.offerProblem(offer), "the test viewer's offer is what the API requires")
            let gen = try await client.execute(uri: uri, method: .post, body: Self.command(CameraAPI.generate, ["offerSdp": offer]))
            XCTAssertEqual(gen.status, .ok, String(buffer: gen.body))
            let r = try Self.results(gen)
            let id = try XCTUnwrap(r["mediaSessionId"])
            let expires = try XCTUnwrap(r["expiresAt"].flatMap(CameraAPI.date(from:)))
            XCTAssertTrue(try XCTUnwrap(r["answerSdp"]).contains("m=application"), "the data channel is answered")
            try await viewer.peer.setRemoteDescription(try SessionDescription(kind: .answer, sdp: try XCTUnwrap(r["answerSdp"])))
            let got = await viewer.waitForPackets(20)
            XCTAssertTrue(got, "camera media arrives")

            // Extend moves the expiry forward.
            let ext = try await client.execute(uri: uri, method: .post, body: Self.command(CameraAPI.extend, ["mediaSessionId": id]))
            let extended = try XCTUnwrap(try Self.results(ext)["expiresAt"].flatMap(CameraAPI.date(from:)))
            XCTAssertGreaterThan(extended, expires)

            // Stop ends it; a second stop is NOT_FOUND.
            let stop = try await client.execute(uri: uri, method: .post, body: Self.command(CameraAPI.stop, ["mediaSessionId": id]))
            XCTAssertEqual(stop.status, .ok)
            XCTAssertEqual(hub.viewerCount, 0)
            let again = try await client.execute(uri: uri, method: .post, body: Self.command(CameraAPI.stop, ["mediaSessionId": id]))
            XCTAssertEqual(again.status, .notFound)
            XCTAssertTrue(String(buffer: again.body).contains("\"status\":\"NOT_FOUND\""))

            // A stream nobody extends ends at its expiresAt.
            let viewer2 = try Self.cameraViewer()
            let offer2 = try await viewer2.peer.offerWithCandidates()
            let gen2 = try await client.execute(uri: uri, method: .post, body: Self.command(CameraAPI.generate, ["offerSdp": offer2]))
            XCTAssertEqual(gen2.status, .ok)
            XCTAssertEqual(hub.viewerCount, 1)
            let deadline = ContinuousClock.now + .seconds(10)
            while hub.viewerCount > 0 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            XCTAssertEqual(hub.viewerCount, 0, "expired streams are stopped")
            XCTAssertEqual(server.cameras.count, 0)
        }
    }

    func testCameraErrorsUseTheAPIsShape() async throws {
        let server = SluiceHTTPServer(configuration: .init(host: "127.0.0.1", port: 0), streams: [try hub()])
        try await server.application().test(.live) { client in
            let cases: [(String, ByteBuffer, HTTPResponse.Status, String)] = [
                ("/enterprises/p/devices/cam1:executeCommand", ByteBuffer(string: "{"), .badRequest, "INVALID_ARGUMENT"),
                ("/enterprises/p/devices/cam1:executeCommand", Self.command("sdm.devices.commands.Fly", [:]), .badRequest, "INVALID_ARGUMENT"),
                (
                    "/enterprises/p/devices/cam1:executeCommand", Self.command(CameraAPI.generate, ["offerSdp": WHEPServerTests_offer]), .badRequest,
                    "must be audio, video and application"
                ),
                ("/enterprises/p/devices/nocam:executeCommand", Self.command(CameraAPI.extend, ["mediaSessionId": "x"]), .notFound, "NOT_FOUND"),
                ("/enterprises/p/devices/cam1:executeCommand", Self.command(CameraAPI.extend, ["mediaSessionId": "x"]), .notFound, "not found or expired"),
                ("/enterprises/p/devices/cam1:doSomething", Self.command(CameraAPI.stop, ["mediaSessionId": "x"]), .notFound, "NOT_FOUND")
            ]
            for (uri, body, status, text) in cases {
                let r = try await client.execute(uri: uri, method: .post, body: body)
                XCTAssertEqual(r.status, status, "\(uri) \(String(buffer: body).prefix(60))")
                XCTAssertTrue(String(buffer: r.body).contains(text), String(buffer: r.body))
            }
        }
    }
}

/// A video-only offer (not acceptable to the camera API).
let WHEPServerTests_offer = "v=0\r\no=- 1 0 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=recvonly\r\na=rtpmap:96 VP8/90000\r\n"
