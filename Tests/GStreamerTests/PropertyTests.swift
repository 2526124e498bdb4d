import XCTest
@testable import GStreamer

final class PropertyTests: XCTestCase {
    func testTypedSetConvertsToPropertyType() throws {
        let enc = try Element.make("vp8enc")
        try enc.set("target-bitrate", 1_500_000) // Int → gint
        XCTAssertEqual(enc.get("target-bitrate", as: Int.self), 1_500_000)
        let q = try Element.make("queue")
        try q.set("max-size-buffers", 3) // Int → guint
        XCTAssertEqual(q.get("max-size-buffers", as: UInt32.self), 3)
    }

    func testSetFromStringParsesEnumsAndFlags() throws {
        let flip = try Element.make("videoflip")
        try flip.set("method", fromString: "horizontal-flip")
        XCTAssertEqual(flip.property("method")?.serialized, "horizontal-flip")
        let enc = try Element.make("vp8enc")
        try enc.set("error-resilient", fromString: "default")
        XCTAssertEqual(enc.get("error-resilient", as: UInt32.self), 1, "the `default` flag is bit 0")
    }

    func testInvalidValuesAndNamesThrow() throws {
        let flip = try Element.make("videoflip")
        XCTAssertThrowsError(try flip.set("method", fromString: "sideways"))
        XCTAssertThrowsError(try flip.set("methd", fromString: "horizontal-flip"))
        XCTAssertThrowsError(try flip.set("method", "not an enum"))
        XCTAssertFalse(flip.canParse("sideways", forProperty: "method"))
        XCTAssertTrue(flip.canParse("clockwise", forProperty: "method"))
    }

    func testCapsPropertyRoundTrips() throws {
        let f = try Element.make("capsfilter")
        try f.set("caps", fromString: "video/x-raw,width=320,height=240")
        XCTAssertEqual(f.capsProperty("caps")?.description, "video/x-raw, width=(int)320, height=(int)240")
    }

    /// splitmuxsink's `muxer`: the holder takes a reference of its own, so the muxer outlives
    /// the wrapper it was made with; an object of the wrong type is refused.
    func testAnObjectPropertyHoldsAReferenceOfItsOwn() throws {
        let split = try Element.make("splitmuxsink")
        do {
            let mux = try Element.make("matroskamux", name: "held-mux")
            try split.set("muxer", object: mux)
        }
        let held = try XCTUnwrap(split.objectProperty("muxer", as: Element.self))
        XCTAssertEqual(held.name, "held-mux")
        XCTAssertEqual(held.factoryName, "matroskamux")
        let pad = try XCTUnwrap(held.staticPad("src"))
        XCTAssertThrowsError(try split.set("muxer", object: pad))
        XCTAssertThrowsError(try split.set("no-such-property", object: held))
    }

    /// A string array (`G_TYPE_STRV`) holds copies of its strings and gives them back.
    func testAStringArrayValueRoundTrips() {
        let value = Value(strings: ["a.mp4", "ünïcode/b.mp4", ""])
        XCTAssertEqual(value.strings, ["a.mp4", "ünïcode/b.mp4", ""])
        XCTAssertEqual(Value(strings: []).strings, [])
        XCTAssertNil(Value("x").strings)
        let copy = Value(copying: &value.raw)
        XCTAssertEqual(copy.strings, ["a.mp4", "ünïcode/b.mp4", ""])
    }

    func testObjectPropertyOfWebRTCBinIsTheICEAgent() throws {
        let webrtc = try Element.make("webrtcbin")
        let ice = webrtc.objectProperty("ice-agent", as: Object.self)
        XCTAssertEqual(ice?.typeName, "GstWebRTCNice")
        XCTAssertEqual(ice?.objectProperty("agent", as: Object.self)?.typeName, "NiceAgent")
    }

    func testLocalAddressesAreCheckedAndAccepted() throws {
        let webrtc = try Element.make("webrtcbin")
        XCTAssertNoThrow(try ICEAgent.addLocalAddresses(["127.0.0.1"], to: webrtc))
        XCTAssertThrowsError(try ICEAgent.addLocalAddresses(["999.1.1.1"], to: webrtc))
    }

    func testUPnPCanBeTurnedOff() throws {
        let webrtc = try Element.make("webrtcbin")
        let agent = webrtc.objectProperty("ice-agent", as: Object.self)?.objectProperty("agent", as: Object.self)
        ICEAgent.disableUPnP(on: webrtc)
        XCTAssertEqual(agent?.get("upnp", as: Bool.self), false)
    }

    func testWritablePropertyNames() throws {
        let names = try Element.make("videotestsrc").writablePropertyNames
        XCTAssertTrue(names.contains("pattern"))
        XCTAssertTrue(names.contains("is-live"))
    }
}

extension PropertyTests {
    func testEmitTakesEnumNicks() throws {
        let webrtc = try Element.make("webrtcbin")
        let caps = try Caps("application/x-rtp,media=video,encoding-name=VP8,payload=96,clock-rate=90000")
        let made = try XCTUnwrap(try webrtc.emit("add-transceiver", "recvonly", caps))
        let transceiver = try XCTUnwrap(made.objectValue)
        XCTAssertEqual(transceiver.property("direction")?.serialized, "recvonly")
        XCTAssertThrowsError(try webrtc.emit("add-transceiver", "sideways", caps))
    }
}
