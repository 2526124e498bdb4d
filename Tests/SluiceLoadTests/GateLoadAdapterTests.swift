import Foundation
import GStreamer
import SluiceLoad
import SluiceRun
import Synchronization
import XCTest

/// A load adapter written outside the library, with public API only (no `@testable`): the
/// `gate` kind's clients knock on a service that refuses them with its own reason. Registered,
/// it is checked against the file's `load:` section, drives every client, and its refusals
/// reach the report as a user reads it.
final class GateLoadAdapterTests: XCTestCase {
    override func setUp() {
        TransportRegistry.register(GateTransport())
        LoadAdapters.register(GateLoadAdapter())
    }

    override func tearDown() { TransportRegistry.unregister(GateTransport.gate) }

    private func spec() throws -> PipelineSpec {
        try PipelineLoader(environment: [:]).load(
            yaml: "transport: {kind: gate}\nreceive:\n  video: {sink: stats}\n", file: "gate.yaml")
    }

    func testTheAdaptersChecksAndRefusalsReachTheReport() async throws {
        let spec = try spec()
        var tooMany = LoadSpec()
        tooMany.clients = 9
        XCTAssertThrowsError(try LoadRun(spec: spec, load: tooMany)) { error in
            XCTAssertEqual((error as? RunError)?.message, "the gate lets at most 8 clients knock")
        }

        var load = LoadSpec()
        load.clients = 3
        load.rampPerSecond = 50
        load.durationSeconds = 2
        let run = try LoadRun(spec: spec, load: load)
        XCTAssertEqual(run.role, .viewer)
        let result = try await run.run(stop: StopFlag())
        let report = LoadReport(
            pipeline: "gate.yaml", target: "gate", clientsPlanned: load.clients, duration: result.duration,
            observations: result.clients)
        XCTAssertEqual(report.overall.clients, 3)
        XCTAssertEqual(report.overall.refused, 3, "every client was refused by the service")
        XCTAssertEqual(
            Set(report.clients.compactMap(\.reason)),
            ["the gate is closed to client 0", "the gate is closed to client 1", "the gate is closed to client 2"])
        XCTAssertEqual(GateLoadAdapter.knocks.withLock { $0 }.sorted().suffix(3), [0, 1, 2], "each client's session knocked once")
    }
}

/// `kind: gate`: a transport with nothing to build; only its load adapter is used here.
private struct GateTransport: Transport {
    static let gate = TransportKind(rawValue: "gate")
    let kind = gate
    func prepare(_ context: TransportContext) async throws(RunError) -> TransportSetup { TransportSetup() }
}

/// Viewers of the gate: at most 8, each refused with its number.
private struct GateLoadAdapter: LoadAdapter {
    static let knocks = Mutex<[Int]>([])
    let kind = GateTransport.gate
    let roles: Set<LoadRole> = [.viewer]

    func check(_ load: LoadSpec, for spec: PipelineSpec) throws(RunError) {
        if load.clients > 8 { throw RunError("the gate lets at most 8 clients knock", at: load.location) }
    }

    func session(for spec: PipelineSpec, role: LoadRole, client: Int) throws(RunError) -> any LoadSession {
        GateSession(client: client)
    }
}

private struct GateSession: LoadSession {
    let client: Int
    func join(_ peer: WebRTCPeer, sending: any LoadSendSetup) async throws(LoadJoinFailure) {
        GateLoadAdapter.knocks.withLock { $0.append(client) }
        throw .refused("the gate is closed to client \(client)")
    }
    func leave() async {}
}
