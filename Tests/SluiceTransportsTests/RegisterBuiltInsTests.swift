import SluiceLoad
import SluiceRun
import SluiceRunTestSupport
import SluiceTransports
import XCTest

/// The kinds of this module join the run's registries when a program registers them: after
/// the run's own kinds, once however often it is called, and a program's kind of the same name
/// still wins until it is removed.
final class RegisterBuiltInsTests: XCTestCase {
    private let shipped = ["whep", "whip", "apprtc", "lan", "xmpp", "janus", "cast", "camera"]

    func testTheKindsFollowTheRunsOwnOnceHoweverOftenTheyAreRegistered() {
        SluiceTransports.registerBuiltIns()
        SluiceTransports.registerBuiltIns()
        let names = TransportKind.known.map(\.rawValue)
        XCTAssertEqual(Array(names.prefix(3)), ["loopback", "none", "server"], "SluiceRun's own kinds come first")
        XCTAssertEqual(names.filter(shipped.contains), shipped, "each shipped kind once, in this order")
        for kind in ["whep", "whip", "janus", "camera", "apprtc"] {
            XCTAssertNotNil(LoadAdapters.adapter(for: TransportKind(rawValue: kind)), "sluice load drives \(kind)")
        }
        XCTAssertNil(LoadAdapters.adapter(for: TransportKind(rawValue: "xmpp")), "xmpp has no load adapter")
    }

    func testAProgramsKindOfTheSameNameWinsUntilItIsRemoved() throws {
        SluiceTransports.registerBuiltIns()
        let file = "transport: { kind: whep, endpoint: 'http://127.0.0.1:1/whep/x' }\nreceive:\n  video: {}\n"
        XCTAssertNotNil(specLoadValid(file), "the shipped whep reads its endpoint")

        TransportRegistry.register(PlainWHEP())
        let replaced = try XCTUnwrap(specLoadErrors(file))
        XCTAssertEqual(
            replaced.diagnostics.first?.description, "test.yaml:1:26: 'endpoint' only applies to transport kinds whip, apprtc and camera",
            "the program's whep reads no endpoint")

        TransportRegistry.unregister(TransportKind(rawValue: "whep"))
        XCTAssertNotNil(specLoadValid(file), "removing the program's kind brings the shipped one back")
        XCTAssertEqual(TransportKind.known.map(\.rawValue).filter(shipped.contains), shipped, "in its place")
    }

    func testEveryShippedKindReadsItsOwnSettings() throws {
        let janus = try XCTUnwrap(
            specLoadValid(
                "transport: { kind: janus, server: 'ws://127.0.0.1:8188', room: 1234 }\nreceive:\n  video: {}\n"))
        XCTAssertEqual(janus.transport.settings(as: JanusSpec.self)?.room, "1234")
        XCTAssertEqual(janus.transport.settings?.value.serviceURL, "ws://127.0.0.1:8188", "load's netem groups check this address")
        let xmpp = try XCTUnwrap(
            specLoadValid(
                "transport: { kind: xmpp, jid: 'cam@example.org', password: p, peer: 'viewer@example.org' }\n"
                    + "send:\n  video:\n    capture: { kind: test }\n    encode: { codec: vp8 }\n"))
        XCTAssertEqual(xmpp.transport.settings(as: XMPPSpec.self)?.peer, "viewer@example.org")
        let whep = try XCTUnwrap(specLoadValid("transport: { kind: whep, endpoint: 'http://10.0.0.1:8443/whep/a' }\nreceive:\n  video: {}\n"))
        XCTAssertEqual(whep.transport.settings?.value.serviceURL, "http://10.0.0.1:8443/whep/a")
    }
}

/// A program's own `whep`: no keys of its own, so the shipped kind's `endpoint` is refused.
private struct PlainWHEP: Transport {
    let kind = TransportKind(rawValue: "whep")
    func prepare(_ context: TransportContext) async throws(RunError) -> TransportSetup { TransportSetup() }
}
