import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import SluiceSignalling
import XCTest
@testable import SluiceServer

/// Rooms over real HTTP and WebSocket connections (a live server on 127.0.0.1; the suite
/// runs in a loopback-only namespace).
final class RoomServerTests: XCTestCase {
    private func server() -> SluiceHTTPServer { SluiceHTTPServer(configuration: .init(host: "127.0.0.1", port: 0)) }

    private static func object(_ buffer: ByteBuffer) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(String(buffer: buffer).utf8)) as? [String: Any])
    }

    private static func join(_ client: some TestClientProtocol, _ room: String) async throws -> (client: String, initiator: Bool, messages: [String]) {
        let r = try await client.execute(uri: "/join/\(room)", method: .post)
        let o = try object(r.body)
        XCTAssertEqual(o["result"] as? String, "SUCCESS")
        let p = try XCTUnwrap(o["params"] as? [String: Any])
        return (try XCTUnwrap(p["client_id"] as? String), p["is_initiator"] as? String == "true", p["messages"] as? [String] ?? [])
    }

    private static func frame(_ cmd: [String: String]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: cmd, options: [.sortedKeys]), as: UTF8.self)
    }

    func testTwoPeersExchangeOfferAnswerAndCandidatesThroughTheRoom() async throws {
        let s = server()
        try await s.application().test(.live) { client in
            let a = try await Self.join(client, "call")
            let b = try await Self.join(client, "call")
            XCTAssertTrue(a.initiator)
            XCTAssertFalse(b.initiator)
            let full = try Self.object(try await client.execute(uri: "/join/call", method: .post).body)
            XCTAssertEqual(full["result"] as? String, "FULL", "a third peer is turned away")

            // b posts its answer before registering its socket: it is queued for a.
            let answer = SignalingMessage.answer(sdp: "v=0\r\n").json
            let posted = try await client.execute(uri: "/message/call/\(b.client)", method: .post, body: ByteBuffer(string: answer))
            XCTAssertEqual(try Self.object(posted.body)["result"] as? String, "SUCCESS")

            try await client.ws("/ws") { inbound, outbound, _ in
                try await outbound.write(.text(Self.frame(["cmd": "register", "roomid": "call", "clientid": a.client])))
                var it = inbound.messages(maxSize: .max).makeAsyncIterator()
                guard case .text(let first)? = try await it.next() else { return XCTFail("no message") }
                let relayed = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: String])
                XCTAssertEqual(relayed["error"], "")
                XCTAssertEqual(relayed["msg"].flatMap(SignalingMessage.init(json:)), .answer(sdp: "v=0\r\n"))

                // Protocol errors get the protocol's answer and the socket stays usable.
                for bad in [
                    "not json", #"{"cmd":"dance"}"#, Self.frame(["cmd": "register", "roomid": "call", "clientid": a.client]),
                    "{\"cmd\":\"send\",\"msg\":\"" + String(repeating: "x", count: 70_000) + "\"}"
                ] {
                    try await outbound.write(.text(bad))
                    guard case .text(let reply)? = try await it.next() else { return XCTFail("no reply to \(bad.prefix(30))") }
                    let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: String])
                    XCTAssertFalse(o["error"]?.isEmpty ?? true, "error for \(bad.prefix(30)): \(reply)")
                }
                // b leaves: a gets bye.
                _ = try await client.execute(uri: "/leave/call/\(b.client)", method: .post)
                guard case .text(let bye)? = try await it.next() else { return XCTFail("no bye") }
                XCTAssertTrue(bye.contains(#"\"type\":\"bye\""#), bye)
            }
            // a's socket closed without leave: it vanished, so the room is gone.
            let status = try await Self.waitForStatus(client) { $0["rooms"] == 0 && $0["clients"] == 0 && $0["sockets"] == 0 }
            XCTAssertEqual(status["rooms"], 0)
        }
    }

    func testBadRequestsGetTheProtocolsErrors() async throws {
        try await server().application().test(.live) { client in
            let unknownRoom = try await client.execute(uri: "/message/nope/123", method: .post, body: ByteBuffer(string: "{}"))
            XCTAssertEqual(unknownRoom.status, .notFound)
            XCTAssertEqual(try Self.object(unknownRoom.body)["result"] as? String, "UNKNOWN_ROOM")
            let a = try await Self.join(client, "r1")
            let unknownClient = try await client.execute(uri: "/message/r1/999", method: .post, body: ByteBuffer(string: "{}"))
            XCTAssertEqual(try Self.object(unknownClient.body)["result"] as? String, "UNKNOWN_CLIENT")
            let big = try await client.execute(
                uri: "/message/r1/\(a.client)", method: .post,
                body: ByteBuffer(string: String(repeating: "x", count: 70_000)))
            XCTAssertEqual(big.status, .contentTooLarge)
            let badRoom = try await client.execute(uri: "/join/bad%20room!", method: .post)
            XCTAssertEqual(badRoom.status, .badRequest)
            // send before register
            try await client.ws("/ws") { inbound, outbound, _ in
                try await outbound.write(.text(Self.frame(["cmd": "send", "msg": "{}"])))
                var it = inbound.messages(maxSize: .max).makeAsyncIterator()
                guard case .text(let reply)? = try await it.next() else { return XCTFail("no reply") }
                XCTAssertTrue(reply.contains("send before register"), reply)
            }
            _ = try await client.execute(uri: "/leave/r1/\(a.client)", method: .post)
        }
    }

    /// 500 WebSocket clients join, register, send and then leave or vanish; rooms, clients
    /// and sockets all return to zero and the server keeps serving.
    func testFiveHundredClientsComeAndGoWithoutLeaks() async throws {
        try await server().application().test(.live) { client in
            for batch in 0..<10 {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for i in 0..<50 {
                        let n = batch * 50 + i
                        group.addTask {
                            let room = "soak\(n / 2)"
                            let me = try await Self.join(client, room)
                            try await client.ws("/ws") { inbound, outbound, _ in
                                try await outbound.write(.text(Self.frame(["cmd": "register", "roomid": room, "clientid": me.client])))
                                try await outbound.write(.text(Self.frame(["cmd": "send", "msg": SignalingMessage.bye.json])))
                                if n % 2 == 0 {
                                    _ = try await client.execute(uri: "/leave/\(room)/\(me.client)", method: .post)
                                }
                                // odd clients just close the socket: they vanish
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            let status = try await Self.waitForStatus(client) { $0["rooms"] == 0 && $0["clients"] == 0 && $0["sockets"] == 0 }
            XCTAssertEqual(status, ["rooms": 0, "clients": 0, "sockets": 0, "camera_sessions": 0])
            // Still serving.
            let again = try await Self.join(client, "after")
            XCTAssertTrue(again.initiator)
        }
    }

    /// Polls /status.json until `done` holds (bounded: sockets close asynchronously).
    private static func waitForStatus(
        _ client: some TestClientProtocol, timeout: Double = 10,
        until done: ([String: Int]) -> Bool
    ) async throws -> [String: Int] {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        var last: [String: Int] = [:]
        while ContinuousClock.now < deadline {
            let r = try await client.execute(uri: "/status.json", method: .get)
            last = (try Self.object(r.body) as? [String: Int]) ?? [:]
            if done(last) { return last }
            try await Task.sleep(for: .milliseconds(20))
        }
        XCTFail("status never settled: \(last)")
        return last
    }
}
