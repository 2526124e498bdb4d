import Foundation
import SluiceLoad
import SluiceRun
import SluiceRunTestSupport
import XCTest

/// What a load file's clients are: viewers (a receive section), publishers (a send
/// section), each only where its transport kind can take that role, with errors that say
/// which section to give.
final class LoadRoleTests: XCTestCase {
    private let send = "send:\n  video: {capture: {kind: test}, encode: {codec: vp8}}"
    private let receive = "receive:\n  video: {sink: stats}"

    private func run(_ transport: String, _ sections: [String], load: LoadSpec = LoadSpec()) throws -> LoadRun {
        let spec = try XCTUnwrap(specLoadValid("transport: \(transport)\n" + sections.joined(separator: "\n")))
        return try LoadRun(spec: spec, load: load)
    }

    private func refusal(_ transport: String, _ sections: [String], load: LoadSpec = LoadSpec()) -> String? {
        do {
            _ = try run(transport, sections, load: load)
            return nil
        } catch let e as RunError {
            return e.message
        } catch {
            return "\(error)"
        }
    }

    private let whep = #"{kind: whep, endpoint: "http://127.0.0.1:8443/whep/x"}"#
    private let whip = #"{kind: whip, endpoint: "http://127.0.0.1:8443/whip/load-{client}"}"#
    private let janus = #"{kind: janus, server: "ws://127.0.0.1:8188", room: 1234}"#
    private let apprtc = #"{kind: apprtc, endpoint: "http://127.0.0.1:8443", room: calls}"#

    func testEachKindTakesTheRoleItsSectionsSay() throws {
        XCTAssertEqual(try run(whep, [receive]).role, .viewer)
        XCTAssertEqual(try run(whip, [send]).role, .publisher)
        XCTAssertEqual(try run(janus, [receive]).role, .viewer)
        XCTAssertEqual(try run(janus, [send]).role, .publisher)
        XCTAssertEqual(try run(apprtc, [send, receive]).role, .member)
    }

    /// A kind with one role refuses the other's section already when the file is read.
    func testAKindWithoutThatRoleIsRefusedWhenTheFileIsRead() throws {
        let whepSends = try XCTUnwrap(specLoadErrors("transport: \(whep)\n\(send)"))
        XCTAssertTrue(whepSends.description.contains("plays a stream: remove send"), "\(whepSends)")
        let whipReceives = try XCTUnwrap(specLoadErrors("transport: \(whip)\n\(receive)"))
        XCTAssertTrue(whipReceives.description.contains("publishes the send section: remove receive"), "\(whipReceives)")
    }

    /// Janus takes both sections in `sluice run`; its VideoRoom load clients do one or the
    /// other, and the refusal names the room whose clients do both (an AudioBridge's).
    func testBothSectionsAreRefusedWhereTheKindHasNoCallMembers() throws {
        let both = try XCTUnwrap(refusal(janus, [send, receive]))
        XCTAssertEqual(
            both,
            "janus VideoRoom load clients either view or publish, not both: keep one section, or join an AudioBridge room (`plugin: audiobridge`)")
    }

    /// An AudioBridge room's load clients are members (they speak and hear); one section alone
    /// is refused, and so is a crowd for the EchoTest, which is one PeerConnection.
    func testAudioBridgeClientsAreMembersAndEchoTestHasNoCrowd() throws {
        let bridge = #"{kind: janus, server: "ws://127.0.0.1:8188", plugin: audiobridge, room: 1234}"#
        let speak = "send:\n  audio: {capture: {kind: test}, encode: {codec: opus}}", hear = "receive:\n  audio: {sink: stats}"
        XCTAssertEqual(try run(bridge, [speak, hear]).role, .member)
        XCTAssertEqual(
            refusal(bridge, [speak]),
            "AudioBridge load clients send audio into the mix and hear the others: the file needs send.audio and receive.audio")
        let echo = #"{kind: janus, server: "ws://127.0.0.1:8188", plugin: echotest}"#
        XCTAssertEqual(
            refusal(echo, [send, receive]),
            "Janus's EchoTest is one PeerConnection, not a crowd: measure it with `sluice measure`, or load a VideoRoom or AudioBridge room")
    }

    /// An apprtc member sends and receives: one section alone is refused, saying what it needs.
    func testAnAppRTCMemberNeedsBothSections() throws {
        let sendOnly = try XCTUnwrap(refusal(apprtc, [send]))
        XCTAssertTrue(sendOnly.contains("apprtc load clients are members (both a send and a receive section); this file has a send section"), sendOnly)
    }

    /// Calls are of two: an odd crowd is refused before any client starts; churn is run
    /// (whole calls are replaced, `LoadCallChurnTests`).
    func testAnOddCrowdIsRefusedForCalls() throws {
        var odd = LoadSpec()
        odd.clients = 5
        let oddRefusal = try XCTUnwrap(refusal(apprtc, [send, receive], load: odd))
        XCTAssertTrue(oddRefusal.contains("calls of two, so the crowd needs an even number of clients; it has 5"), oddRefusal)
        var churning = LoadSpec()
        churning.churnPerMinute = 0.1
        XCTAssertNil(refusal(apprtc, [send, receive], load: churning), "churn replaces whole calls")
        XCTAssertNil(refusal(apprtc, [send, receive]), "an even crowd without churn is run")
    }

    /// A member takes one stream from its partner: simulcast layers past the first would
    /// never be sent, so a crowd in calls with them is refused, saying where to take them.
    func testSimulcastMembersInCallsAreRefused() throws {
        let layers = """
            send:
              video:
                capture: {kind: test, width: 640, height: 360}
                encode: {codec: vp8, simulcast: [{rid: h}, {rid: l, scale: 2}]}
            """
        let refused = try XCTUnwrap(refusal(apprtc, [layers, receive]))
        XCTAssertTrue(refused.contains("only the first simulcast layer would be sent: remove 'simulcast'"), refused)
    }
}
