import Foundation
import Synchronization
import XCTest
@testable import SluiceSignalling

/// Collects what a registered socket would receive.
final class Inbox: Sendable {
    private let frames = Mutex<[String]>([])
    var deliver: RoomRegistry.Deliver { { [self] text in frames.withLock { $0.append(text) } } }
    var all: [String] { frames.withLock { $0 } }
    /// The relayed messages (the `msg` of each frame), decoded.
    var messages: [SignalingMessage] {
        all.compactMap { frame in
            (try? JSONSerialization.jsonObject(with: Data(frame.utf8)) as? [String: Any])
                .flatMap { $0["msg"] as? String }.flatMap(SignalingMessage.init(json:))
        }
    }
}

final class RoomRegistryTests: XCTestCase {
    private func joined(_ r: RoomRegistry.JoinResult, file: StaticString = #filePath, line: UInt = #line) throws -> RoomRegistry.Join {
        guard case .joined(let j) = r else { XCTFail("expected to join", file: file, line: line); throw XCTSkip() }
        return j
    }

    func testTwoPeersThenFull() throws {
        let rooms = RoomRegistry()
        let a = try joined(rooms.join(room: "r"))
        let b = try joined(rooms.join(room: "r"))
        XCTAssertTrue(a.isInitiator)
        XCTAssertFalse(b.isInitiator)
        XCTAssertNotEqual(a.client, b.client)
        XCTAssertEqual(rooms.join(room: "r"), .full, "a third peer gets FULL")
        XCTAssertEqual(rooms.counts.clients, 2)
    }

    func testOfferSentBeforeTheOtherJoinsArrivesInJoinParams() throws {
        let rooms = RoomRegistry()
        let a = try joined(rooms.join(room: "r"))
        let offer = SignalingMessage.offer(sdp: "v=0\r\n").json
        try rooms.send(room: "r", from: a.client, message: offer, requireRegistered: false)
        let b = try joined(rooms.join(room: "r"))
        XCTAssertEqual(b.messages, [offer], "the joiner receives what was sent while it was absent")
    }

    func testMessagesQueueUntilThePeerRegisters() throws {
        let rooms = RoomRegistry()
        let a = try joined(rooms.join(room: "r")), b = try joined(rooms.join(room: "r"))
        let inboxA = Inbox(), inboxB = Inbox()
        try rooms.register(room: "r", client: a.client, deliver: inboxA.deliver)
        let c1 = SignalingMessage.candidate(label: 0, id: "video0", candidate: "candidate:1 1 UDP 1 127.0.0.1 5000 typ host")
        try rooms.send(room: "r", from: a.client, message: SignalingMessage.offer(sdp: "x").json, requireRegistered: true)
        try rooms.send(room: "r", from: a.client, message: c1.json, requireRegistered: true)
        XCTAssertTrue(inboxB.all.isEmpty)
        try rooms.register(room: "r", client: b.client, deliver: inboxB.deliver)
        XCTAssertEqual(inboxB.messages, [.offer(sdp: "x"), c1], "queued in order, delivered on register")
        try rooms.send(room: "r", from: b.client, message: SignalingMessage.answer(sdp: "y").json, requireRegistered: true)
        XCTAssertEqual(inboxA.messages, [.answer(sdp: "y")])
    }

    func testProtocolErrors() throws {
        let rooms = RoomRegistry()
        let a = try joined(rooms.join(room: "r"))
        XCTAssertThrowsError(try rooms.send(room: "r", from: a.client, message: "{}", requireRegistered: true)) {
            XCTAssertEqual($0 as? RoomRegistry.Failure, .notRegistered)
        }
        XCTAssertThrowsError(try rooms.register(room: "nope", client: a.client, deliver: Inbox().deliver)) {
            XCTAssertEqual($0 as? RoomRegistry.Failure, .unknownRoom("nope"))
        }
        XCTAssertThrowsError(try rooms.register(room: "r", client: "99", deliver: Inbox().deliver)) {
            XCTAssertEqual($0 as? RoomRegistry.Failure, .unknownClient("99"))
        }
        try rooms.register(room: "r", client: a.client, deliver: Inbox().deliver)
        XCTAssertThrowsError(try rooms.register(room: "r", client: a.client, deliver: Inbox().deliver)) {
            XCTAssertEqual($0 as? RoomRegistry.Failure, .alreadyRegistered)
        }
        let big = String(repeating: "x", count: AppRTC.maxMessageBytes + 1)
        XCTAssertThrowsError(try rooms.send(room: "r", from: a.client, message: big, requireRegistered: true)) {
            XCTAssertEqual($0 as? RoomRegistry.Failure, .tooLarge(AppRTC.maxMessageBytes + 1))
        }
    }

    func testLeaveSendsByeAndEmptyRoomsDisappear() throws {
        let rooms = RoomRegistry()
        let a = try joined(rooms.join(room: "r")), b = try joined(rooms.join(room: "r"))
        let inboxA = Inbox()
        try rooms.register(room: "r", client: a.client, deliver: inboxA.deliver)
        rooms.leave(room: "r", client: b.client)
        XCTAssertEqual(inboxA.messages, [.bye])
        rooms.leave(room: "r", client: b.client) // twice: harmless
        XCTAssertEqual(rooms.counts.rooms, 1)
        rooms.leave(room: "r", client: a.client)
        XCTAssertEqual(rooms.counts.rooms, 0)
        XCTAssertEqual(rooms.counts.clients, 0)
        // The room can be used again, and the first to join is the initiator again.
        XCTAssertTrue(try joined(rooms.join(room: "r")).isInitiator)
    }

    func testManyClientsJoiningAndLeavingLeaveNothingBehind() throws {
        let rooms = RoomRegistry()
        var present: [(room: String, client: String)] = []
        var full = 0
        for i in 0..<500 {
            let room = "room\(i % 37)"
            guard case .joined(let j) = rooms.join(room: room) else { full += 1; continue }
            try rooms.register(room: room, client: j.client, deliver: Inbox().deliver)
            try rooms.send(room: room, from: j.client, message: SignalingMessage.bye.json, requireRegistered: true)
            if i % 3 == 0 { present.append((room, j.client)) } else { rooms.leave(room: room, client: j.client) }
        }
        XCTAssertGreaterThan(full, 0, "some rooms filled up")
        XCTAssertEqual(rooms.counts.clients, present.count)
        for p in present { rooms.leave(room: p.room, client: p.client) } // leave or vanish: the same call
        XCTAssertEqual(rooms.counts.rooms, 0)
        XCTAssertEqual(rooms.counts.clients, 0)
    }

    func testWebSocketCommandsAndMalformedFrames() {
        XCTAssertEqual(try AppRTC.command(from: #"{"cmd":"register","roomid":"r","clientid":"1"}"#).get(), .register(room: "r", client: "1"))
        XCTAssertEqual(try AppRTC.command(from: #"{"cmd":"send","msg":"{\"type\":\"bye\"}"}"#).get(), .send(message: #"{"type":"bye"}"#))
        for bad in [
            "", "not json", "[]", #"{"cmd":42}"#, #"{"cmd":"register"}"#, #"{"cmd":"send","msg":{}}"#,
            #"{"cmd":"dance"}"#, "{\"cmd\":\"send\",\"msg\":\"" + String(repeating: "a", count: 70_000) + "\"}"
        ] {
            guard case .failure(let e) = AppRTC.command(from: bad) else { return XCTFail("accepted: \(bad.prefix(40))") }
            XCTAssertFalse(e.message.isEmpty)
        }
    }

    func testJoinResponseHasTheOriginalShape() throws {
        let rooms = RoomRegistry()
        let text = AppRTC.joinResponse(rooms.join(room: "r"), wssURL: "ws://127.0.0.1:8443/ws", wssPostURL: "http://127.0.0.1:8443")
        let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        XCTAssertEqual(o["result"] as? String, "SUCCESS")
        let params = try XCTUnwrap(o["params"] as? [String: Any])
        XCTAssertEqual(params["is_initiator"] as? String, "true", "a string, as the original sends it")
        XCTAssertNotNil(params["messages"] as? [String])
        XCTAssertNotNil(params["client_id"] as? String)
        _ = rooms.join(room: "r")
        let full = AppRTC.joinResponse(rooms.join(room: "r"), wssURL: "", wssPostURL: "")
        XCTAssertTrue(full.contains(#""result":"FULL""#), full)
    }
}
