import Foundation
import Hummingbird
import HummingbirdTesting
import Sluice
import SluiceSignalling
import XCTest
@testable import SluiceServer

/// Sluice's own clients (the AppRTC room client, the camera transport) against the server,
/// in one process.
final class ClientTransportTests: XCTestCase {
    override func setUp() { SluiceTransports.registerBuiltIns() }

    func testRoomClientsJoinRelayAndLeave() async throws {
        let server = SluiceHTTPServer(configuration: .init(host: "127.0.0.1", port: 0))
        try await server.application().test(.live) { client in
            let base = "http://127.0.0.1:\(try XCTUnwrap(client.port))"
            let first = try await AppRTCClient.join(server: base, room: "r1")
            XCTAssertTrue(first.isInitiator)
            XCTAssertTrue(first.messages.isEmpty)
            let a = AppRTCClient(joined: first)
            a.send(.offer(sdp: "v=0 offer"))
            a.send(.candidate(label: 0, id: nil, candidate: "candidate:1 1 UDP 1 127.0.0.1 9 typ host"))

            // The second peer gets what the first sent: queued in its join answer, or on its
            // socket once registered, depending on who the server saw first.
            let joined = try await AppRTCClient.join(server: base, room: "r1")
            XCTAssertFalse(joined.isInitiator)
            var received = joined.messages
            let b = AppRTCClient(joined: joined)
            var bEvents = b.events.makeAsyncIterator()
            while received.count < 2 {
                guard let e = await Self.nextEvent(&bEvents) else { return XCTFail("b's socket closed early") }
                if case .message(let m) = e { received.append(m) } else { return XCTFail("unexpected \(e)") }
            }
            XCTAssertEqual(received, [.offer(sdp: "v=0 offer"), .candidate(label: 0, id: "", candidate: "candidate:1 1 UDP 1 127.0.0.1 9 typ host")])

            // A third peer finds the room full.
            do {
                _ = try await AppRTCClient.join(server: base, room: "r1")
                XCTFail("a third peer joined")
            } catch {
                XCTAssertTrue("\(error)".contains("room 'r1' is full"), "\(error)")
            }

            // b answers; a gets it. Then b leaves: a gets bye.
            var aEvents = a.events.makeAsyncIterator()
            b.send(.answer(sdp: "v=0 answer"))
            let answer = await Self.nextEvent(&aEvents)
            XCTAssertEqual(answer, .message(.answer(sdp: "v=0 answer")))
            await b.leave()
            let bye = await Self.nextEvent(&aEvents)
            XCTAssertEqual(bye, .message(.bye))
            await a.leave()
            let end = await Self.nextEvent(&aEvents)
            XCTAssertEqual(end, .closed(nil))

            // Everything returns to zero.
            let settled = await Self.eventually { server.rooms.counts.rooms == 0 && server.openSockets == 0 }
            XCTAssertTrue(settled, "rooms \(server.rooms.counts), sockets \(server.openSockets)")
        }
    }

    /// The camera transport, when the camera ends the stream (here: the server expires every
    /// session at once, as if the leases had run out): the client's next extension is
    /// refused with NOT_FOUND and the run stops, saying why, instead of playing nothing.
    func testCameraRunStopsWhenTheCameraEndsTheStream() async throws {
        let hubSpec = try PipelineLoader(environment: [:]).load(
            yaml: """
                name: cam1
                send:
                  video:
                    capture: { kind: test, pattern: ball, width: 320, height: 240, fps: 30 }
                    encode: { codec: vp8, bitrate: 400 }
                """, file: "cam1.yaml")
        let hub = try StreamHub(spec: hubSpec, iceAddresses: ["127.0.0.1"])
        let server = SluiceHTTPServer(configuration: .init(host: "127.0.0.1", port: 0), streams: [hub], cameraLifetime: 2)
        try await server.application().test(.live) { client in
            let port = try XCTUnwrap(client.port)
            let spec = try PipelineLoader(environment: [:]).load(
                yaml: """
                    name: viewer
                    transport:
                      kind: camera
                      endpoint: http://127.0.0.1:\(port)/enterprises/p/devices/cam1
                      ice: { addresses: [127.0.0.1] }
                    receive:
                      video: { sink: stats }
                    """, file: "viewer.yaml")
            let run = PipelineRun(spec: spec)
            let task = Task { try await run.run(options: RunOptions(duration: 20)) }
            // Once frames arrive, end every session on the server's side.
            let playing = await Self.eventually(timeout: 10) { (run.counters?.receiveVideoFrames.load(ordering: .relaxed) ?? 0) > 10 }
            XCTAssertTrue(playing, "camera media arrives")
            for s in server.cameras.sessions.expire(now: .distantFuture) {
                if let v = server.cameras.take(s.id) { hub.removeViewer(v.viewer) }
            }
            let summary = try await task.value
            XCTAssertLessThan(summary.duration_s, 10, "the run stopped at the next extension, not at its 20 s")
            XCTAssertTrue(
                summary.session?.ended_by_peer?.contains("the camera ended the stream") ?? false,
                "\(String(describing: summary.session))")
            XCTAssertEqual(server.cameras.count, 0)
        }
    }

    /// The next event, or nil after 5 s or when the stream ends.
    private static func nextEvent(_ it: inout AsyncStream<AppRTCClient.Event>.AsyncIterator) async -> AppRTCClient.Event? {
        let box = IteratorBox(it)
        let result = await withTaskGroup(of: AppRTCClient.Event?.self) { group in
            group.addTask { await box.next() }
            group.addTask {
                try? await Task.sleep(for: .seconds(5)); return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        it = box.iterator
        return result
    }

    private static func eventually(timeout: Double = 5, _ condition: @Sendable () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }
}

/// Lets a task-group child advance an iterator the test owns.
private final class IteratorBox: @unchecked Sendable { // used by one task at a time (the group awaits it)
    var iterator: AsyncStream<AppRTCClient.Event>.AsyncIterator
    init(_ it: AsyncStream<AppRTCClient.Event>.AsyncIterator) { iterator = it }
    func next() async -> AppRTCClient.Event? { await iterator.next() }
}
