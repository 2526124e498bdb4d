import CGStreamer
import XCTest
@testable import GStreamer

/// Watches a GObject for finalization through a GLib weak reference.
final class FinalizationWatch: @unchecked Sendable { // written once by GLib on the finalizing thread, read after
    var finalized = false
    init(_ object: Object) {
        g_object_weak_ref(
            object.gobject,
            { data, _ in
                guard let data else { return }
                Unmanaged<FinalizationWatch>.fromOpaque(data).takeUnretainedValue().finalized = true
            }, Unmanaged.passUnretained(self).toOpaque())
    }
}

/// Flags its own deinit, to prove closures captured by GStreamer are released.
final class DeinitFlag: @unchecked Sendable { // set once in deinit, read after
    var released = false
    final class Token: Sendable {
        let onDeinit: @Sendable () -> Void
        init(_ f: @escaping @Sendable () -> Void) { onDeinit = f }
        deinit { onDeinit() }
    }
}

final class ObjectLifetimeTests: XCTestCase {
    func testNewElementHoldsOneReference() throws {
        let e = try Element.make("identity")
        XCTAssertEqual(e.refCount, 1, "a sunk floating reference must leave exactly one")
    }

    func testElementIsFinalizedWhenLastWrapperGoes() throws {
        var watch: FinalizationWatch?
        do {
            let e = try Element.make("identity")
            watch = FinalizationWatch(e)
            XCTAssertFalse(watch!.finalized)
        }
        XCTAssertTrue(watch!.finalized, "the wrapper must release its reference")
    }

    func testBinKeepsChildAliveAndReleasesIt() throws {
        var watch: FinalizationWatch?
        var bin: Bin? = Bin.make()
        do {
            let child = try Element.make("identity")
            watch = FinalizationWatch(child)
            try bin!.add(child)
            XCTAssertEqual(child.refCount, 2, "bin reference + wrapper reference")
        }
        XCTAssertFalse(watch!.finalized, "the bin still holds the child")
        XCTAssertEqual(bin!.children.count, 1)
        bin = nil
        XCTAssertTrue(watch!.finalized, "disposing the bin must release the child")
    }

    func testBorrowedWrapperAddsAndDropsAReference() throws {
        let e = try Element.make("identity")
        do {
            let borrowed = Element(none: e.pointer)
            XCTAssertEqual(borrowed.refCount, 2)
        }
        XCTAssertEqual(e.refCount, 1)
    }

    func testSignalClosureIsReleasedWithTheObject() throws {
        let flag = DeinitFlag()
        do {
            let e = try Element.make("identity")
            let token = DeinitFlag.Token { [flag] in flag.released = true }
            e.connect("handoff") { (_: borrowing SignalArguments) in _ = token }
        }
        XCTAssertTrue(flag.released, "GLib must finalize the closure and Swift release its box")
    }

    func testDisconnectReleasesClosure() throws {
        let flag = DeinitFlag()
        let e = try Element.make("identity")
        do {
            let token = DeinitFlag.Token { [flag] in flag.released = true }
            let id = e.connect("handoff") { (_: borrowing SignalArguments) in _ = token }
            XCTAssertNotEqual(id.raw, 0)
            e.disconnect(id)
        }
        XCTAssertTrue(flag.released)
    }

    func testConnectingUnknownSignalReturnsZeroAndReleasesClosure() throws {
        let flag = DeinitFlag()
        let e = try Element.make("identity")
        do {
            let token = DeinitFlag.Token { [flag] in flag.released = true }
            let id = e.connect("no-such-signal") { (_: borrowing SignalArguments) in _ = token }
            XCTAssertEqual(id.raw, 0)
        }
        XCTAssertTrue(flag.released)
    }

    func testCastChecksType() throws {
        let e = try Element.make("identity")
        XCTAssertNotNil(e.cast(to: Element.self))
        XCTAssertNil(e.cast(to: Pad.self))
    }
}

extension ObjectLifetimeTests {
    /// A probe handler is released with its pad, and may read the pad's caps through the
    /// probe info without capturing (and so keeping alive) the pad itself.
    func testProbeHandlerIsReleasedWithItsPad() throws {
        let flag = DeinitFlag()
        var watch: FinalizationWatch?
        do {
            let e = try Element.make("identity")
            let pad = try XCTUnwrap(e.staticPad("src"))
            watch = FinalizationWatch(pad)
            let token = DeinitFlag.Token { [flag] in flag.released = true }
            pad.addProbe(.eventDownstream) { (info: borrowing Pad.ProbeInfo) in
                _ = token
                _ = info.currentCaps
                return .ok
            }
        }
        XCTAssertTrue(watch!.finalized, "the pad must not be kept alive by its probe")
        XCTAssertTrue(flag.released, "the probe's closure must be released with the pad")
    }
}
