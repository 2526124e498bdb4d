import SluiceRunTestSupport
import XCTest

@testable import SluiceLoad
@testable import SluiceRun

/// A load client's webrtcbin: no TCP candidates unless the file asks for them.
final class WebRTCRecipeLoadTests: XCTestCase {
    private func transport(_ ice: String) throws -> TransportSpec {
        let spec = try XCTUnwrap(
            specLoadValid(
                """
                transport:
                  ice: { addresses: [127.0.0.1], \(ice) }
                send:
                  video:
                    capture: { kind: test, width: 320, height: 240, fps: 30 }
                receive:
                  video: { sink: stats }
                """))
        return spec.transport
    }

    func testALoadClientGathersNoTCPCandidatesUnlessTheFileAsks() throws {
        XCTAssertFalse(WebRTCRecipe(loadClientOf: try transport("connect_timeout: 5")).iceTCP)
        XCTAssertTrue(WebRTCRecipe(loadClientOf: try transport("tcp: true")).iceTCP)
    }
}
