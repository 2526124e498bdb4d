import Foundation
import GStreamer
import SluiceSignalling
import Synchronization
import SluiceRunTestSupport
import XCTest

@testable import SluiceLoad
@testable import SluiceMeasure
@testable import SluiceRun

/// Two call members in one crowd's shared pipeline, negotiated with each other directly (no
/// room server): the first sets up to offer, the second to answer that offer; each then
/// receives the other's stream of the one shared encoder, and both go again without a trace
/// in the pipeline.
final class LoadMemberMediaTests: XCTestCase {
    private let file = """
        transport: {kind: apprtc, endpoint: "http://127.0.0.1:9", room: calls, ice: {addresses: [127.0.0.1]}}
        send:
          video: {capture: {kind: test, width: 320, height: 240, fps: 30}, encode: {codec: vp8, bitrate: 300}}
        receive:
          video: {sink: stats}
        """

    /// Frames each member received, and the keyframes among them.
    private final class Counts: Sendable {
        let frames = Mutex<[Int: (all: Int, keyframes: Int)]>([:])
        func recorder(_ member: Int) -> LoadFrameRecorder {
            LoadFrameRecorder(frame: { keyframe, _ in
                self.frames.withLock {
                    $0[member, default: (0, 0)].all += 1; if keyframe { $0[member]?.keyframes += 1 }
                }
            })
        }
        func of(_ member: Int) -> (all: Int, keyframes: Int) { frames.withLock { $0[member] ?? (0, 0) } }
    }

    func testAnOffererAndAnAnswererEachReceiveTheOthersStreamAndLeaveNothingBehind() async throws {
        let spec = try XCTUnwrap(specLoadValid(file))
        let hub = try LoadPublisherHub(spec: spec)
        let shared = hub.pipeline.children.count
        let counts = Counts()
        let a = try LoadMemberMedia(client: 0, decodes: false, hub: hub, connectTimeout: 10, record: counts.recorder(0))
        let b = try LoadMemberMedia(client: 1, decodes: false, hub: hub, connectTimeout: 10, record: counts.recorder(1))
        let pa = WebRTCPeer(a.webrtcbin, label: "a"), pb = WebRTCPeer(b.webrtcbin, label: "b")
        // Weak: each peer keeps its handler, so strong captures would keep both peers (and
        // their webrtcbins) alive for good.
        pa.onLocalCandidate { [weak pb] in pb?.addRemoteCandidate($0) }
        pb.onLocalCandidate { [weak pa] in pa?.addRemoteCandidate($0) }

        try a.setUpToOffer()
        let offer = try await pa.createOffer()
        try await pa.setLocalDescription(offer)
        let toApply = try b.setUpToAnswer(offer.sdp)
        try await pb.setRemoteDescription(try SessionDescription(kind: .offer, sdp: toApply))
        let answer = try await pb.createAnswer()
        try await pb.setLocalDescription(answer)
        try await pa.setRemoteDescription(try SessionDescription(kind: .answer, sdp: answer.sdp))
        XCTAssertEqual(SDPSummary(answer.sdp).media.first?.direction, "sendrecv", "the answerer sends and receives: \(answer.sdp)")
        try a.joined(peer: pa)
        try b.joined(peer: pb)

        let deadline = Date().addingTimeInterval(15)
        while (counts.of(0).all < 30 || counts.of(1).all < 30), Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        for member in [0, 1] {
            XCTAssertGreaterThanOrEqual(counts.of(member).all, 30, "member \(member) received the other's frames")
            XCTAssertGreaterThanOrEqual(counts.of(member).keyframes, 1, "starting from a keyframe")
        }
        XCTAssertNil(a.problem)
        XCTAssertNil(b.problem)
        a.remove()
        b.remove()
        XCTAssertEqual(hub.pipeline.children.count, shared, "both members' elements are gone")
    }
}
