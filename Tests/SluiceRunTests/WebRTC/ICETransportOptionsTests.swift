import GStreamer
import SluiceTestSupport
import XCTest

@testable import SluiceRun

/// `transport.ice.tcp` and `transport.ice.port_range`: decoded from the file, applied to the
/// ICE agent of every webrtcbin the recipe makes, and a run still connects with them.
final class ICETransportOptionsTests: XCTestCase {
    private func load(_ ice: String) throws -> PipelineSpec {
        try PipelineLoader(environment: [:], catalog: GStreamerCatalog()).load(
            yaml: """
                transport:
                  ice: { addresses: [127.0.0.1], \(ice) }
                send:
                  video:
                    capture: { kind: test, width: 320, height: 240, fps: 30 }
                    encode: { codec: vp8, bitrate: 500 }
                receive:
                  video: { sink: stats }
                """, file: "ice.yaml")
    }

    func testTheOptionsReachTheICEAgent() throws {
        let spec = try load("tcp: false, port_range: 41000-41019")
        XCTAssertEqual(spec.transport.ice.tcp, false)
        XCTAssertEqual(spec.transport.ice.portRange, 41000...41019)
        let bin = try WebRTCRecipe(transport: spec.transport).make("ice-options")
        let agent = try XCTUnwrap(bin.objectProperty("ice-agent", as: Object.self))
        XCTAssertEqual(agent.get("ice-tcp", as: Bool.self), false)
        XCTAssertEqual(agent.get("min-rtp-port", as: UInt32.self), 41000)
        XCTAssertEqual(agent.get("max-rtp-port", as: UInt32.self), 41019)
        // Unwritten: TCP candidates as libnice gathers them by default, any port.
        let plain = try WebRTCRecipe(transport: load("connect_timeout: 5").transport).make("ice-plain")
        let plainAgent = try XCTUnwrap(plain.objectProperty("ice-agent", as: Object.self))
        XCTAssertEqual(plainAgent.get("ice-tcp", as: Bool.self), true)
        XCTAssertEqual(plainAgent.get("min-rtp-port", as: UInt32.self), 0)
    }

    func testALoopbackRunConnectsWithinItsPortRangeOverUDPOnly() async throws {
        let spec = try load("tcp: false, port_range: 41100-41119")
        let summary = try await PipelineRun(spec: spec).run(options: RunOptions(duration: 2))
        XCTAssertGreaterThan(summary.receive.video?.frames ?? 0, 20)
    }
}
