import XCTest
@testable import SluiceSignalling

/// The CASTV2 receiver as pure logic: framing, the namespaces a sender needs, status to every
/// sender, the queue, and refusals.
final class CastReceiverStateTests: XCTestCase {
    private func msg(_ ns: String, _ json: JSONValue, from: String = "sender-0", to: String = CastNamespace.platform) -> Extensions_Api_CastChannel_CastMessage
    {
        CastFrame.message(from: from, to: to, namespace: ns, json: json)
    }

    private func sent(_ actions: [CastReceiverState.Action]) -> [(Int, String, JSONValue)] {
        actions.compactMap {
            guard case .send(let c, let m) = $0 else { return nil }
            return (c, m.destinationID, JSONValue(parsing: m.payloadUtf8) ?? .null)
        }
    }

    private func commands(_ actions: [CastReceiverState.Action]) -> [CastPlayerCommand] {
        actions.compactMap {
            if case .command(let c) = $0 { return c }; return nil
        }
    }

    func testFramesRoundTripAtEveryChunkSizeAndBadOnesAreRefused() throws {
        let m = msg(CastNamespace.heartbeat, ["type": "PING"])
        let bytes = CastFrame.encode(m) + CastFrame.encode(msg(CastNamespace.heartbeat, ["type": "PONG"]))
        for chunk in [1, 3, 7, bytes.count] {
            var buffer: [UInt8] = [], got: [Extensions_Api_CastChannel_CastMessage] = []
            var i = 0
            while i < bytes.count {
                buffer += bytes[i..<min(i + chunk, bytes.count)]
                got += try CastFrame.take(from: &buffer)
                i += chunk
            }
            XCTAssertEqual(got.map(\.payloadUtf8), [#"{"type":"PING"}"#, #"{"type":"PONG"}"#], "chunk \(chunk)")
            XCTAssertTrue(buffer.isEmpty)
        }
        var huge: [UInt8] = [0x01, 0, 0, 0]
        XCTAssertThrowsError(try CastFrame.take(from: &huge)) { XCTAssertEqual($0 as? CastFrame.Failure, .tooLong(1 << 24)) }
        var broken: [UInt8] = [0, 0, 0, 3, 0xff, 0xff, 0xff]
        XCTAssertThrowsError(try CastFrame.take(from: &broken))
    }

    func testLaunchLoadAndStatusReachEverySender() {
        var s = CastReceiverState(name: "TV", refuse: { $0.hasPrefix("file:") ? nil : "not allowed" })
        _ = s.handle(msg(CastNamespace.connection, ["type": "CONNECT"]), connection: 1)
        _ = s.handle(msg(CastNamespace.connection, ["type": "CONNECT"], from: "sender-9"), connection: 2)
        XCTAssertEqual(sent(s.handle(msg(CastNamespace.heartbeat, ["type": "PING"]), connection: 1)).first?.2["type"], "PONG")
        let launched = sent(s.handle(msg(CastNamespace.receiver, ["type": "LAUNCH", "appId": "CC1AD845", "requestId": 4]), connection: 1))
        XCTAssertEqual(launched.count, 2, "both senders hear RECEIVER_STATUS")
        XCTAssertEqual(launched.first { $0.0 == 1 }?.2["requestId"]?.int, 4, "the requester gets its requestId")
        XCTAssertEqual(launched.first { $0.0 == 2 }?.2["requestId"]?.int, 0, "the others get 0")
        let app = launched[0].2["status"]?["applications"]?.array?.first
        XCTAssertEqual(app?["appId"], "CC1AD845")
        let transport = app?["transportId"]?.string ?? ""
        _ = s.handle(msg(CastNamespace.connection, ["type": "CONNECT"], to: transport), connection: 1)
        _ = s.handle(msg(CastNamespace.connection, ["type": "CONNECT"], from: "sender-9", to: transport), connection: 2)
        let load = s.handle(
            msg(
                CastNamespace.media,
                [
                    "type": "LOAD", "requestId": 5, "autoplay": true,
                    "media": ["contentId": "file:///a.webm", "contentType": "video/webm"]
                ], to: transport), connection: 1)
        XCTAssertEqual(commands(load), [.load(url: "file:///a.webm", startTime: 0, autoplay: true)])
        let statuses = sent(load)
        XCTAssertEqual(statuses.count, 2, "MEDIA_STATUS to both senders")
        XCTAssertEqual(statuses[0].2["status"]?.array?.first?["playerState"], "BUFFERING")
        let session = statuses[0].2["status"]?.array?.first?["mediaSessionId"]?.int ?? -1
        // The player starts: everyone hears PLAYING; then a pause from the other sender.
        XCTAssertEqual(sent(s.update(CastPlayerSnapshot(playerState: "PLAYING", currentTime: 0.5))).count, 2)
        let pause = s.handle(
            msg(CastNamespace.media, ["type": "PAUSE", "mediaSessionId": .int(session), "requestId": 6], from: "sender-9", to: transport), connection: 2)
        XCTAssertEqual(commands(pause), [.pause])
        XCTAssertEqual(sent(pause).map { $0.2["status"]?.array?.first?["playerState"] }, ["PAUSED", "PAUSED"])
        // A wrong media session, an unknown command, a URL not allowed.
        XCTAssertEqual(
            sent(s.handle(msg(CastNamespace.media, ["type": "PLAY", "mediaSessionId": 99], to: transport), connection: 1)).first?.2["reason"],
            "INVALID_MEDIA_SESSION_ID")
        XCTAssertEqual(
            sent(s.handle(msg(CastNamespace.media, ["type": "DANCE", "requestId": 1], to: transport), connection: 1)).first?.2["reason"],
            "INVALID_COMMAND")
        let refused = s.handle(msg(CastNamespace.media, ["type": "LOAD", "requestId": 7, "media": ["contentId": "http://x/y"]], to: transport), connection: 1)
        XCTAssertEqual(sent(refused).first?.2["type"], "LOAD_FAILED")
        XCTAssertTrue(commands(refused).isEmpty, "nothing disallowed reaches the player")
        XCTAssertEqual(s.refusals["LOAD_FAILED"], 1)
    }

    func testAQueuedItemStartsWhenTheCurrentOneFinishes() {
        var s = CastReceiverState(name: "TV", refuse: { _ in nil })
        let launched = sent(s.handle(msg(CastNamespace.receiver, ["type": "LAUNCH", "appId": "CC1AD845"]), connection: 1))
        let transport = launched.first?.2["status"]?["applications"]?.array?.first?["transportId"]?.string ?? ""
        _ = s.handle(msg(CastNamespace.media, ["type": "LOAD", "media": ["contentId": "file:///1.webm"]], to: transport), connection: 1)
        _ = s.update(CastPlayerSnapshot(playerState: "PLAYING"))
        _ = s.handle(msg(CastNamespace.media, ["type": "QUEUE_INSERT", "items": [["media": ["contentId": "file:///2.webm"]]]], to: transport), connection: 1)
        XCTAssertEqual(s.queue.map(\.contentID), ["file:///1.webm", "file:///2.webm"])
        let next = s.update(CastPlayerSnapshot(playerState: "IDLE", idleReason: "FINISHED"))
        XCTAssertEqual(commands(next), [.load(url: "file:///2.webm", startTime: 0, autoplay: true)])
        XCTAssertEqual(s.currentItem?.contentID, "file:///2.webm")
        // The last item finishing leaves the player idle: nothing more to load.
        _ = s.update(CastPlayerSnapshot(playerState: "PLAYING"))
        XCTAssertTrue(commands(s.update(CastPlayerSnapshot(playerState: "IDLE", idleReason: "FINISHED"))).isEmpty)
    }

    /// QUEUE_UPDATE with `jump` (what pychromecast's queue_next/queue_prev send), QUEUE_NEXT,
    /// QUEUE_PREV, `currentItemId`, QUEUE_REMOVE; jumps off the queue and absurd ones are refused.
    func testTheQueueMovesNextPreviousAndToAnItem() {
        var s = CastReceiverState(name: "TV", refuse: { _ in nil })
        let launched = sent(s.handle(msg(CastNamespace.receiver, ["type": "LAUNCH", "appId": "CC1AD845"]), connection: 1))
        let transport = launched.first?.2["status"]?["applications"]?.array?.first?["transportId"]?.string ?? ""
        let media = { (type: String, extra: [String: JSONValue]) -> [CastReceiverState.Action] in
            var body = extra
            body["type"] = .string(type)
            body["requestId"] = 3
            return s.handle(self.msg(CastNamespace.media, .object(body), to: transport), connection: 1)
        }
        XCTAssertEqual(sent(media("QUEUE_UPDATE", ["jump": 1])).first?.2["reason"], "INVALID_MEDIA_SESSION_ID", "no queue yet")
        let items: [JSONValue] = ["1", "2", "3"].map { ["media": ["contentId": .string("file:///\($0).webm")]] }
        _ = media("QUEUE_LOAD", ["items": .array(items)])
        _ = s.update(CastPlayerSnapshot(playerState: "PLAYING"))
        let status = sent(media("GET_STATUS", [:])).first?.2["status"]?.array?.first
        XCTAssertEqual((status?["supportedMediaCommands"]?.int ?? 0) & 192, 192, "queue next and previous are advertised")
        let ids = s.queue.map { Int64($0.itemId) }
        let next = media("QUEUE_UPDATE", ["jump": 1])
        XCTAssertEqual(commands(next), [.stop, .load(url: "file:///2.webm", startTime: 0, autoplay: true)])
        XCTAssertEqual(sent(next).first?.2["status"]?.array?.first?["currentItemId"]?.int, ids[1])
        XCTAssertEqual(commands(media("QUEUE_UPDATE", ["jump": -1])), [.stop, .load(url: "file:///1.webm", startTime: 0, autoplay: true)])
        XCTAssertEqual(commands(media("QUEUE_NEXT", [:])).last, .load(url: "file:///2.webm", startTime: 0, autoplay: true))
        XCTAssertEqual(commands(media("QUEUE_PREV", [:])).last, .load(url: "file:///1.webm", startTime: 0, autoplay: true))
        XCTAssertEqual(
            commands(media("QUEUE_UPDATE", ["currentItemId": .int(ids[2]), "currentTime": .number(1.5)])).last,
            .load(url: "file:///3.webm", startTime: 1.5, autoplay: true))
        // Off the end, before the start, absurd jumps, unknown items: refused, nothing moves.
        for bad: [String: JSONValue] in [["jump": 1], ["jump": -3], ["jump": .int(Int64.max)], ["jump": .int(Int64.min)], ["currentItemId": 999]] {
            let r = media("QUEUE_UPDATE", bad)
            XCTAssertEqual(sent(r).first?.2["reason"], "INVALID_PARAMS", "\(bad)")
            XCTAssertTrue(commands(r).isEmpty, "\(bad)")
        }
        XCTAssertEqual(s.currentItem?.contentID, "file:///3.webm")
        // Remove an item that is not playing; the playing one cannot be removed.
        _ = media("QUEUE_REMOVE", ["itemIds": [.int(ids[0])]])
        XCTAssertEqual(s.queue.map(\.contentID), ["file:///2.webm", "file:///3.webm"])
        XCTAssertEqual(sent(media("QUEUE_REMOVE", ["itemIds": [.int(ids[2])]])).first?.2["reason"], "INVALID_PARAMS")
        // A plain QUEUE_UPDATE changing an item's autoplay moves nothing.
        XCTAssertTrue(commands(media("QUEUE_UPDATE", ["items": [["itemId": .int(ids[1]), "autoplay": false]]])).isEmpty)
        XCTAssertEqual(s.queue.first?.autoplay, false)
    }

    func testBadInputIsAnsweredAndVirtualConnectionsAreBounded() {
        var s = CastReceiverState(name: "TV", refuse: { _ in nil })
        var notJSON = msg(CastNamespace.receiver, ["type": "GET_STATUS"])
        notJSON.payloadUtf8 = "{nope"
        XCTAssertEqual(sent(s.handle(notJSON, connection: 1)).first?.2["type"], "INVALID_REQUEST")
        XCTAssertEqual(sent(s.handle(msg("urn:x-cast:com.example", ["type": "X"]), connection: 1)).first?.2["reason"], "UNKNOWN_NAMESPACE")
        XCTAssertEqual(sent(s.handle(msg(CastNamespace.receiver, ["type": "LAUNCH", "appId": "YouTube"]), connection: 1)).first?.2["type"], "LAUNCH_ERROR")
        var closed = false
        for i in 0..<(CastReceiverState.maxVirtualConnections + 1) {
            let a = s.handle(msg(CastNamespace.connection, ["type": "CONNECT"], from: "s-\(i)"), connection: 3)
            if a.contains(where: {
                if case .close = $0 { return true }; return false
            }) {
                closed = true
            }
        }
        XCTAssertTrue(closed, "a sender opening endless virtual connections is closed")
        XCTAssertEqual(CastReceiverState(name: "x", refuse: { _ in nil }).session, nil)
    }

    func testURLsOutsideTheAllowListAndOddOnesAreRefused() {
        // (CastReceiver.refusal lives in Sluice; the state only asks. Here: the state never
        // commands the player for a refused item of a QUEUE_LOAD either.)
        var s = CastReceiverState(name: "TV", refuse: { $0.contains("bad") ? "no" : nil })
        let launched = sent(s.handle(msg(CastNamespace.receiver, ["type": "LAUNCH", "appId": "CC1AD845"]), connection: 1))
        let transport = launched.first?.2["status"]?["applications"]?.array?.first?["transportId"]?.string ?? ""
        let a = s.handle(
            msg(
                CastNamespace.media, ["type": "QUEUE_LOAD", "items": [["media": ["contentId": "file:///ok"]], ["media": ["contentId": "http://bad"]]]],
                to: transport), connection: 1)
        XCTAssertEqual(sent(a).first?.2["type"], "LOAD_FAILED")
        XCTAssertTrue(commands(a).isEmpty)
    }
}
