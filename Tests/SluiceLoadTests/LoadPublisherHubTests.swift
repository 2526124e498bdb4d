import Foundation
import GStreamer
import Synchronization
import SluiceRunTestSupport
import XCTest

@testable import SluiceLoad
@testable import SluiceMeasure
@testable import SluiceRun

/// The shared pipeline of a crowd of publishers or call members: an error from a client's own
/// elements is that client's alone; any other stops every client's media.
final class LoadPublisherHubTests: XCTestCase {
    private func hub() throws -> LoadPublisherHub {
        let spec = try XCTUnwrap(
            specLoadValid(
                #"transport: {kind: whip, endpoint: "http://127.0.0.1:9/whip/x"}"# + "\n"
                    + "send:\n  video: {capture: {kind: test}, encode: {codec: vp8}}"))
        return try LoadPublisherHub(spec: spec)
    }

    /// An element that fails as soon as it starts: a file source of a file that is not there.
    private func failing(_ name: String, in hub: LoadPublisherHub) throws {
        let source = try Element.make("filesrc", name: name)
        try source.set("location", "/nonexistent/sluice-\(UUID().uuidString)")
        let sink = try Element.make("fakesink", name: name + "-sink")
        try hub.pipeline.add([source, sink])
        try source.link(sink)
        _ = sink.syncStateWithParent()
        _ = source.syncStateWithParent()
    }

    func testAClientsOwnErrorGoesToThatClientAlone() throws {
        let hub = try hub()
        let got = expectation(description: "client 7's handler gets its error")
        let seen = Mutex<String?>(nil)
        hub.claimErrors(of: "p7") { why in
            seen.withLock { $0 = why }
            got.fulfill()
        }
        try failing("p7-source", in: hub)
        wait(for: [got], timeout: 10)
        XCTAssertTrue(seen.withLock { $0 }?.contains("p7-source") == true, "\(seen.withLock { $0 } ?? "")")
        XCTAssertNil(hub.error, "the crowd's shared section goes on")
    }

    func testAnErrorOfNoClientStopsTheCrowd() throws {
        let hub = try hub()
        hub.claimErrors(of: "p7") { why in XCTFail("not client 7's: \(why)") }
        try failing("shared-source", in: hub)
        let deadline = Date().addingTimeInterval(10)
        while hub.error == nil, Date() < deadline { RunLoop.current.run(until: Date().addingTimeInterval(0.02)) }
        XCTAssertTrue(hub.error?.contains("the shared send section failed: shared-source") == true, hub.error ?? "no error")
    }

    /// Simulcast layers encoded once for the crowd: the hub's video output carries the three
    /// layers (rungs at their sizes), and a publisher's own payloaders make an offer that sends
    /// all three under their rids in one section; its elements go with it.
    func testAPublisherOffersTheCrowdsSharedLayers() async throws {
        let spec = try XCTUnwrap(
            specLoadValid(
                #"transport: {kind: whip, endpoint: "http://127.0.0.1:9/whip/x", ice: {addresses: [127.0.0.1]}}"# + "\n"
                    + "send:\n  video:\n    capture: {kind: test, width: 320, height: 240}\n"
                    + "    encode: {codec: vp8, simulcast: [{rid: h}, {rid: m, scale: 2}, {rid: l, scale: 4}]}"))
        let hub = try LoadPublisherHub(spec: spec)
        defer { hub.pipeline.setState(.null) }
        let video = try XCTUnwrap(hub.outputs.first { $0.media == .video })
        XCTAssertEqual(video.renditions.map(\.rendition.name), ["h", "m", "l"])
        XCTAssertEqual(video.renditions.map(\.rendition.width), [320, 160, 80])
        let media = try LoadPublisherMedia(client: 3, hub: hub, connectTimeout: 5, record: LoadFrameRecorder(frame: { _, _ in }))
        let offer = try await WebRTCPeer(media.webrtcbin, label: "publisher").createOffer().sdp
        XCTAssertTrue(offer.contains("a=simulcast:send h;m;l"), offer)
        for rid in ["h", "m", "l"] { XCTAssertTrue(offer.contains("a=rid:\(rid) send"), offer) }
        XCTAssertEqual(offer.components(separatedBy: "m=video").count - 1, 1, "one video section: \(offer)")
        let before = hub.pipeline.children.count
        media.remove()
        XCTAssertLessThan(hub.pipeline.children.count, before, "the publisher's elements go with it")
    }

    /// A released claim routes nothing: the client's elements are gone.
    func testAReleasedClaimNoLongerCatches() throws {
        let hub = try hub()
        hub.claimErrors(of: "p8") { why in XCTFail("released: \(why)") }
        hub.release("p8")
        try failing("p8-source", in: hub)
        let deadline = Date().addingTimeInterval(10)
        while hub.error == nil, Date() < deadline { RunLoop.current.run(until: Date().addingTimeInterval(0.02)) }
        XCTAssertNotNil(hub.error)
    }
}
