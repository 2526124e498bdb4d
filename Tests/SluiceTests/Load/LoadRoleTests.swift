import Foundation
import Sluice
import XCTest

/// What a load file's clients are: viewers (a receive section), publishers (a send
/// section), each only where its transport kind can take that role, with errors that say
/// which section to give.
final class LoadRoleTests: XCTestCase {
    private let send = "send:\n  video: {capture: {kind: test}, encode: {codec: vp8}}"
    private let receive = "receive:\n  video: {sink: stats}"

    private func run(_ transport: String, _ sections: [String]) throws -> LoadRun {
        let spec = try XCTUnwrap(specLoadValid("transport: \(transport)\n" + sections.joined(separator: "\n")))
        return try LoadRun(spec: spec, load: LoadSpec())
    }

    private func refusal(_ transport: String, _ sections: [String]) -> String? {
        do {
            _ = try run(transport, sections)
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

    func testEachKindTakesTheRoleItsSectionsSay() throws {
        XCTAssertEqual(try run(whep, [receive]).role, .viewer)
        XCTAssertEqual(try run(whip, [send]).role, .publisher)
        XCTAssertEqual(try run(janus, [receive]).role, .viewer)
        XCTAssertEqual(try run(janus, [send]).role, .publisher)
    }

    /// A kind with one role refuses the other's section already when the file is read.
    func testAKindWithoutThatRoleIsRefusedWhenTheFileIsRead() throws {
        let whepSends = try XCTUnwrap(specLoadErrors("transport: \(whep)\n\(send)"))
        XCTAssertTrue(whepSends.description.contains("plays a stream: remove send"), "\(whepSends)")
        let whipReceives = try XCTUnwrap(specLoadErrors("transport: \(whip)\n\(receive)"))
        XCTAssertTrue(whipReceives.description.contains("publishes the send section: remove receive"), "\(whipReceives)")
    }

    /// Janus takes both sections in `sluice run`; a load client does one or the other.
    func testBothSectionsAreRefusedForALoadClient() throws {
        let both = try XCTUnwrap(refusal(janus, [send, receive]))
        XCTAssertTrue(both.contains("clients that do both, as in a room, are not supported yet"), both)
    }
}
