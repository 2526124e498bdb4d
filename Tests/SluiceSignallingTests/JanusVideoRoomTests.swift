import XCTest
@testable import SluiceSignalling

/// What Janus's VideoRoom sends, read as Sluice reads it; the requests it sends; and JSON that
/// a hostile server could send.
final class JanusVideoRoomTests: XCTestCase {
    func testJoinedListsPublishersWithTheirMedia() throws {
        // Shaped like Janus 1.1's `joined` event (videoroom plugin docs).
        let data = try XCTUnwrap(
            JSONValue(
                parsing: """
                    {"videoroom":"joined","room":1234,"description":"Demo","id":8431251716,"private_id":2921411396,
                     "publishers":[{"id":5871032911,"display":"cam-a","streams":[{"type":"audio","mindex":0,"mid":"0","codec":"opus"},
                                                                                    {"type":"video","mindex":1,"mid":"1","codec":"vp8"}]},
                                   {"id":77,"streams":[{"type":"video","mid":"0","disabled":true},{"type":"data","mid":"1"}]}]}
                    """))
        let joined = try XCTUnwrap(JanusVideoRoom.joined(data))
        XCTAssertEqual(joined.id, 8431251716)
        XCTAssertEqual(joined.privateID, 2921411396)
        XCTAssertEqual(joined.publishers.map(\.name), ["cam-a", "77"], "a publisher without a display is named by its id")
        XCTAssertEqual(joined.publishers[0].media, ["audio", "video"])
        XCTAssertEqual(joined.publishers[1].media, ["data"], "a disabled stream is not counted")
        XCTAssertNil(JanusVideoRoom.joined(["videoroom": "event"]))
    }

    func testSubscriberStreamsAndDepartures() throws {
        let data = try XCTUnwrap(
            JSONValue(
                parsing: """
                    {"videoroom":"updated","room":1234,"streams":[
                      {"type":"video","active":true,"mindex":0,"mid":"0","ready":true,"send":true,"feed_id":5871032911,"feed_display":"cam-a","feed_mid":"1","codec":"vp8"},
                      {"type":"audio","active":false,"mindex":1,"mid":"1"},
                      {"type":"video"}]}
                    """))
        let streams = JanusVideoRoom.streams(in: data)
        XCTAssertEqual(streams.count, 2, "a stream without a mid is skipped")
        XCTAssertEqual(streams[0], .init(mid: "0", type: "video", feedID: 5871032911, feedDisplay: "cam-a", codec: "vp8", active: true))
        XCTAssertFalse(streams[1].active)
        XCTAssertEqual(JanusVideoRoom.gone(in: ["videoroom": "event", "unpublished": 42]), 42)
        XCTAssertEqual(JanusVideoRoom.gone(in: ["videoroom": "event", "leaving": 43]), 43)
        XCTAssertNil(JanusVideoRoom.gone(in: ["videoroom": "event", "leaving": "ok"]))
        XCTAssertEqual(JanusVideoRoom.destroyedRoom(in: ["videoroom": "destroyed", "room": 1234, "permanent": false]), "1234")
        XCTAssertEqual(JanusVideoRoom.destroyedRoom(in: ["videoroom": "destroyed", "room": "lobby"]), "lobby")
        XCTAssertNil(JanusVideoRoom.destroyedRoom(in: ["videoroom": "event", "room": 1234]))
    }

    func testRequestsCarryRoomPinAndFeeds() {
        XCTAssertEqual(
            JanusVideoRoom.join(room: .init("1234"), display: "cam", pin: "p").text,
            #"{"display":"cam","pin":"p","ptype":"publisher","request":"join","room":1234}"#)
        XCTAssertEqual(
            JanusVideoRoom.join(room: .init("lobby"), display: nil, pin: nil).text,
            #"{"ptype":"publisher","request":"join","room":"lobby"}"#, "string room ids stay strings")
        XCTAssertEqual(
            JanusVideoRoom.subscribe(room: .init("7"), feeds: [1, 2], privateID: 9, pin: nil).text,
            #"{"private_id":9,"ptype":"subscriber","request":"join","room":7,"streams":[{"feed":1},{"feed":2}]}"#)
        XCTAssertEqual(JanusVideoRoom.add(feeds: [3]).text, #"{"request":"subscribe","streams":[{"feed":3}]}"#)
    }

    func testJSONKeepsLargeIdsExactAndRefusesHostileInput() throws {
        let v = try XCTUnwrap(JSONValue(parsing: #"{"id": 9007199254740993, "f": 1.5, "b": true, "n": null, "s": "x"}"#))
        XCTAssertEqual(v["id"]?.int, 9007199254740993, "64-bit ids are not rounded through Double")
        XCTAssertEqual(v["b"]?.bool, true)
        XCTAssertNil(v["b"]?.int, "a boolean is not a number")
        XCTAssertEqual(v["f"], .number(1.5))
        XCTAssertEqual(v["n"], .null)
        XCTAssertNil(JSONValue(parsing: "{not json"))
        XCTAssertNil(
            JSONValue(parsing: String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)),
            "deep nesting is refused before parsing")
        XCTAssertNotNil(
            JSONValue(parsing: #"{"a": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}"#),
            "brackets inside strings do not count as nesting")
        XCTAssertTrue(
            JanusVideoRoom.publishers(in: ["publishers": .array(Array(repeating: ["id": 1], count: 5000))]).count <= 1000,
            "a flood of publishers in one event is capped")
    }

    func testAdviceForTheErrorsUsersMeet() {
        XCTAssertTrue(JanusVideoRoom.advice(for: 426)?.contains("check 'room'") ?? false)
        XCTAssertTrue(JanusVideoRoom.advice(for: 433)?.contains("check 'pin'") ?? false)
        XCTAssertNil(JanusVideoRoom.advice(for: 499))
    }
}
