import GStreamer
import Synchronization
import XCTest
@testable import SluiceRun

/// `SharedBranch`: built for its first user, kept while any holds it, removed from the
/// running pipeline (and its tee pad given back) after the last, and built again for the next.
final class SharedBranchTests: XCTestCase {
    private struct Fixture {
        let pipeline: Pipeline
        let tee: Element
        let sink: Element
    }

    /// A running pipeline: a live test source into a tee; the branch is a queue and a sink
    /// that counts what reaches it.
    private func runningTee() throws -> Fixture {
        let pipeline = Pipeline(name: "shared-branch")
        let source = try Element.make("videotestsrc"), tee = try Element.make("tee")
        try source.set("is-live", true)
        try tee.set("allow-not-linked", true)
        let sink = try Element.make("fakesink")
        try pipeline.add([source, tee, sink])
        try source.link(tee)
        XCTAssertNotEqual(pipeline.setState(.playing), .failure)
        return Fixture(pipeline: pipeline, tee: tee, sink: sink)
    }

    private func branch(on fixture: Fixture, name: String, removed: @escaping @Sendable () -> Void = {}) -> SharedBranch {
        let pipeline = fixture.pipeline, tee = fixture.tee
        return SharedBranch(in: pipeline) { () throws(RunError) -> SharedBranch.Built in
            do {
                let queue = try Element.make("queue", name: name)
                let output = try Element.make("tee", name: "\(name)-out")
                try output.set("allow-not-linked", true)
                try pipeline.add([queue, output])
                try queue.link(output)
                for e in [output, queue] { e.syncStateWithParent() }
                guard let pad = tee.requestPad("src_%u"), let entrance = queue.staticPad("sink") else { throw RunError("no pad") }
                try pad.link(entrance)
                return SharedBranch.Built(output: output, elements: [queue, output], input: (tee, pad))
            } catch let error as RunError { throw error } catch { throw RunError("\(error)") }
        } removed: {
            removed()
        }
    }

    func testBuiltForTheFirstUserAndRemovedAfterTheLast() throws {
        let f = try runningTee()
        defer { f.pipeline.setState(.null) }
        let removals = Atomic<Int>(0)
        let shared = branch(on: f, name: "again") { removals.add(1, ordering: .relaxed) }
        XCTAssertFalse(shared.isBuilt)
        let first = try shared.acquire(), second = try shared.acquire()
        XCTAssertTrue(first === second, "one branch for both users")
        XCTAssertEqual(shared.builds, 1)
        XCTAssertNotNil(f.pipeline.child(named: "again"))
        XCTAssertEqual(f.tee.pads.filter { $0.direction == .src }.count, 1, "one tee pad feeds it")
        shared.release()
        XCTAssertTrue(shared.isBuilt, "one user still holds it")
        XCTAssertNotNil(f.pipeline.child(named: "again"))
        shared.release()
        XCTAssertFalse(shared.isBuilt)
        XCTAssertNil(f.pipeline.child(named: "again"), "its elements are out of the pipeline")
        XCTAssertNil(f.pipeline.child(named: "again-out"))
        XCTAssertEqual(f.tee.pads.filter { $0.direction == .src }.count, 0, "its tee pad is given back")
        XCTAssertEqual(removals.load(ordering: .relaxed), 1)
        shared.release() // one release too many changes nothing
        XCTAssertEqual(removals.load(ordering: .relaxed), 1)
        XCTAssertEqual(shared.users, 0)

        _ = try shared.acquire()
        XCTAssertEqual(shared.builds, 2, "the next user gets a new branch")
        XCTAssertNotNil(f.pipeline.child(named: "again"), "under the same names, free again")
        XCTAssertNotEqual(f.pipeline.currentState(), .null)
        shared.release()
        XCTAssertEqual(removals.load(ordering: .relaxed), 2)
    }

    func testAFailedBuildLeavesNoUserAndIsTriedAgain() throws {
        let f = try runningTee()
        defer { f.pipeline.setState(.null) }
        let attempts = Atomic<Int>(0)
        let shared = SharedBranch(in: f.pipeline) { () throws(RunError) -> SharedBranch.Built in
            attempts.add(1, ordering: .relaxed)
            throw RunError("the encoder is missing")
        }
        XCTAssertThrowsError(try shared.acquire()) { XCTAssertTrue("\($0)".contains("the encoder is missing"), "\($0)") }
        XCTAssertThrowsError(try shared.acquire())
        XCTAssertEqual(attempts.load(ordering: .relaxed), 2)
        XCTAssertEqual(shared.users, 0)
        XCTAssertEqual(shared.builds, 0)
        XCTAssertFalse(shared.isBuilt)
    }
}
