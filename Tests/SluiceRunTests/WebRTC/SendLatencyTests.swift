import Foundation
import GStreamer
import Synchronization
import XCTest
@testable import SluiceRun

/// A pipeline that sends and receives: recalculating its latency for the receive side must
/// not make the send side wait.
///
/// Each side here is what matters of a real one: a live capture at 4 fps (one frame of
/// latency: 250 ms) into a `clocksync` (webrtcbin 1.22 has one, sync=true, in its send
/// path), into a sink. How long after its running time a frame leaves each clocksync shows
/// whether a latency query armed it.
final class SendLatencyTests: XCTestCase {
    /// How late (ms) frames leave a clocksync, relative to their running time.
    private final class Lateness: Sendable {
        let values = Mutex<[Double]>([])
        var median: Double? { values.withLock { v in v.isEmpty ? nil : v.sorted()[v.count / 2] } }
        var count: Int { values.withLock { $0.count } }
    }

    private func side(_ name: String, lateness: Lateness) throws -> Bin {
        let bin = Bin.make(name: name)
        try bin.add(
            try Bin.parse(
                "videotestsrc is-live=true ! video/x-raw,width=16,height=16,framerate=4/1 ! "
                    + "clocksync name=\(name)-sync ! fakesink sync=false", ghostUnlinkedPads: false))
        let sync = try XCTUnwrap(bin.child(named: "\(name)-sync"))
        sync.staticPad("src")?.addProbe { (info: borrowing Pad.ProbeInfo) in
            guard let pts = info.buffer?.pts, let element = info.padReference.parentElement,
                let now = element.clockTime
            else { return .ok }
            let running = Double(now) - Double(element.baseTime)
            lateness.values.withLock { $0.append((running - Double(pts)) / 1e6) }
            return .ok
        }
        return bin
    }

    /// Runs both sides, recalculates the latency once frames flow (as the runner does when a
    /// jitter buffer's latency changes), and returns each side's median lateness after it.
    private func run(installed: Bool) throws -> (send: Double, receive: Double) {
        let pipeline = Pipeline(name: "send-latency-test")
        if installed {
            pipeline.distributeLatency { bin in SendLatency.distribute(in: bin, isSender: { $0.name == "sender" }) }
        }
        let sendAfter = Lateness(), receiveAfter = Lateness()
        let sender = try side("sender", lateness: sendAfter), receiver = try side("receiver", lateness: receiveAfter)
        try pipeline.add([sender, receiver])
        pipeline.setState(.playing)
        defer { pipeline.setState(.null) }
        // Wait (bounded) for frames, then recalculate, then wait for frames after it.
        try waitUntil(timeout: 5) { sendAfter.count >= 2 && receiveAfter.count >= 2 }
        sendAfter.values.withLock { $0.removeAll() }
        receiveAfter.values.withLock { $0.removeAll() }
        XCTAssertTrue(pipeline.recalculateLatency())
        try waitUntil(timeout: 5) { sendAfter.count >= 4 && receiveAfter.count >= 4 }
        return (try XCTUnwrap(sendAfter.median), try XCTUnwrap(receiveAfter.median))
    }

    private struct NoFrames: Error, CustomStringConvertible {
        var timeout: Double
        var description: String { "frames did not flow within \(timeout) s" }
    }

    private func waitUntil(timeout: Double, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            guard Date() < deadline else { throw NoFrames(timeout: timeout) }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// The mechanism itself, without Sluice: GStreamer's default latency distribution arms
    /// every clocksync with its capture's frame time.
    func testTheDefaultMakesTheSendSideWaitForItsCapturesLatency() throws {
        let lateness = try run(installed: false)
        XCTAssertGreaterThan(lateness.send, 200, "the sender's clocksync waits a frame (250 ms) after a recalculation")
        XCTAssertGreaterThan(lateness.receive, 200)
    }

    func testSendersAreNeitherQueriedNorConfiguredAndTheRestIs() throws {
        let lateness = try run(installed: true)
        XCTAssertLessThan(lateness.send, 100, "the send side does not wait (default: 250 ms)")
        XCTAssertGreaterThan(lateness.receive, 200, "the receive side still gets its latency")
    }

    /// Senders are found at the top and inside bins that hold other sinks too; everything
    /// else is the receiving domain. Elements that are not sinks are in neither.
    func testDomainsLookIntoBinsThatHoldSenders() throws {
        func sinkBin(_ name: String) throws -> Bin {
            let bin = Bin.make(name: name)
            try bin.add(try Element.make("fakesink", name: "\(name)-sink"))
            return bin
        }
        let pipeline = Pipeline(name: "domains")
        let wrapper = Bin.make(name: "wrapper")
        try wrapper.add([try sinkBin("inner-sender"), try Element.make("fakesink", name: "inner-display")])
        try pipeline.add([
            try sinkBin("sender"), wrapper, try Element.make("fakesink", name: "display"),
            try Element.make("identity", name: "not-a-sink")
        ])
        let domains = SendLatency.domains(of: pipeline, isSender: { $0.name.hasSuffix("sender") })
        XCTAssertEqual(Set(domains.senders.map(\.name)), ["sender", "inner-sender"])
        XCTAssertEqual(Set(domains.others.map(\.name)), ["display", "inner-display"])
        XCTAssertTrue(SendLatency.isWebRTCBin(try Element.make("webrtcbin")))
        XCTAssertFalse(SendLatency.isWebRTCBin(try Element.make("fakesink")))
    }
}
