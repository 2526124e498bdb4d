import Foundation
import XCTest
@testable import SluiceMeasure
@testable import SluiceRun

final class MeasurePlanTests: XCTestCase {
    private func load(_ yaml: String) throws -> PipelineSpec {
        try PipelineLoader(environment: [:]).load(yaml: yaml, file: "m.yaml")
    }

    func testWriterFirstAndReaderLastAreInserted() throws {
        let spec = try load(
            """
            send:
              video:
                capture: { kind: test, width: 320, height: 240 }
                filters: [{ element: videoflip }]
            receive:
              video:
                filters: [{ element: identity }]
            """)
        let m = try MeasurePlan.instrument(spec)
        guard case .swift(let w, let ws, _)? = m.send?.video?.filters.first?.kind else { return XCTFail("no writer first") }
        XCTAssertEqual(w, "framestamp")
        XCTAssertEqual(ws, [FilterSetting(name: "block", value: .integer(10))], "320 px wide: 10 px squares fit 32 columns")
        guard case .swift(let r, _, _)? = m.receive?.video?.filters.last?.kind else { return XCTFail("no reader last") }
        XCTAssertEqual(r, "framestamp-read")
        XCTAssertEqual(m.send?.video?.filters.count, 2)
        XCTAssertEqual(m.receive?.video?.filters.count, 2)
        XCTAssertEqual(MeasurePlan.block(forWidth: 1280), 16)
        XCTAssertEqual(MeasurePlan.block(forWidth: 64), 4)
    }

    func testAFileThatPlacesThemKeepsItsOwn() throws {
        let spec = try load(
            """
            send:
              video:
                capture: { kind: test }
                filters: [{ element: videoflip }, { filter: framestamp, block: 8 }]
            receive:
              video:
                filters: [{ filter: framestamp-read, block: 8 }, { element: identity }]
            """)
        let m = try MeasurePlan.instrument(spec)
        XCTAssertEqual(m.send?.video?.filters, spec.send?.video?.filters)
        XCTAssertEqual(m.receive?.video?.filters, spec.receive?.video?.filters)
    }

    func testFilesWithNothingToMeasureAreRefused() throws {
        let audio = try load("send:\n  audio:\n    capture: { kind: test }\n")
        XCTAssertThrowsError(try MeasurePlan.instrument(audio)) { XCTAssertTrue("\($0)".contains("needs a send.video branch"), "\($0)") }
        let none = try load("transport: { kind: none }\nsend:\n  video:\n    capture: { kind: test }\n")
        XCTAssertThrowsError(try MeasurePlan.instrument(none)) { XCTAssertTrue("\($0)".contains("transport is 'none'"), "\($0)") }
    }

    func testTwoProcessHalves() throws {
        let spec = try load(
            """
            name: cam
            send:
              video:
                capture: { kind: test }
            """)
        let send = try MeasurePlan.sendHalf(spec)
        XCTAssertEqual(send.transport.kind, .server)
        XCTAssertNil(send.receive)
        let receive = try MeasurePlan.receiveHalf(spec, endpoint: "http://10.99.0.1:1/whep/cam", address: "10.99.0.2")
        XCTAssertEqual(receive.transport.kind, TransportKind(rawValue: "whep"))
        XCTAssertEqual(receive.transport.ice.addresses, ["10.99.0.2"])
        XCTAssertNil(receive.send)
        XCTAssertNil(receive.receive?.audio, "no audio is sent, so none is awaited")
        guard case .swift(let r, _, _)? = receive.receive?.video?.filters.last?.kind else { return XCTFail("no reader") }
        XCTAssertEqual(r, "framestamp-read")
    }
}
