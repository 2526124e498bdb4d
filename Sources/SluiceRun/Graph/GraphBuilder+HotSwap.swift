import Foundation
import GStreamer
import SluiceFilterKit
import Synchronization

// MARK: - Hot swap

extension GraphBuilder {
    /// Replaces a branch's filters while the pipeline runs: new elements are built first,
    /// then swapped in while the section's upstream pad is idle (a probe holds the next
    /// frame until the relink is done, so no frame is lost). The encoder downstream keeps
    /// its format (converters are inserted as needed), so the WebRTC session is untouched.
    /// A receive branch not built yet takes the filters when it is.
    package func replaceFilters(
        side: BranchSide, media: MediaKind, with specs: [FilterSpec],
        timeout: Double = 3
    ) async throws(RunError) {
        let key = BranchKey(side: side, media: media)
        guard let section = state.withLock({ $0.sections[key] }) else {
            if side == .receive {
                state.withLock { $0.pendingReceiveFilters[media] = specs }
                return
            }
            throw RunError("there is no send.\(media.rawValue) branch whose filters could be replaced")
        }
        let fresh = try filterElements(specs)
        guard let headPad = section.head.staticPad("src") else { throw RunError("the filter section has no input pad") }
        let outcome = SwapOutcome()
        headPad.addProbe(.idle) { [weak self] (_: borrowing Pad.ProbeInfo) in
            guard let self, outcome.begin() else { return .remove }
            outcome.finish(self.swap(key, section, to: fresh, specs: specs))
            return .remove
        }
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while ContinuousClock.now < deadline {
            if let result = outcome.result { return try result.get() }
            try? await Task.sleep(for: .milliseconds(5))
        }
        if outcome.cancelIfNotStarted() {
            throw RunError("the \(side.rawValue).\(media.rawValue) branch did not become idle within \(timeout) s; filters unchanged")
        }
        while outcome.result == nil { try? await Task.sleep(for: .milliseconds(5)) } // started: it finishes promptly
        try outcome.result?.get()
    }

    /// Runs with the section's input idle-blocked. Links the new filters in; on failure puts
    /// the old ones back and reports why.
    package func swap(_ key: BranchKey, _ section: FilterSection, to fresh: [Element], specs: [FilterSpec]) -> Result<Void, RunError> {
        let old = section.elements
        let oldChain = [section.head] + old + [section.tail]
        for i in 0..<(oldChain.count - 1) { oldChain[i].unlink(oldChain[i + 1]) }
        do {
            try add(fresh)
            let converters = try linkChain([section.head] + fresh + [section.tail], media: key.media, at: nil)
            for e in (fresh + converters).reversed() { e.syncStateWithParent() }
            for e in old {
                e.setState(.null)
                try? pipeline.remove(e)
            }
            state.withLock {
                $0.sections[key]?.elements = fresh + converters
                $0.sections[key]?.specs = specs
            }
            return .success(())
        } catch {
            // Put the running filters back: they were only unlinked.
            let partial = [section.head] + fresh + [section.tail]
            for i in 0..<(partial.count - 1) { partial[i].unlink(partial[i + 1]) }
            for e in fresh { e.setState(.null); try? pipeline.remove(e) }
            for i in 0..<(oldChain.count - 1) { try? oldChain[i].link(oldChain[i + 1]) }
            return .failure(error)
        }
    }
}

/// The result of a swap, handed from the probe's thread to the waiting task.
private final class SwapOutcome: Sendable {
    private enum Phase { case waiting, started, cancelled }
    private let state = Mutex<(phase: Phase, result: Result<Void, RunError>?)>((.waiting, nil))

    /// Claims the swap for the probe; false if the waiter gave up first.
    func begin() -> Bool {
        state.withLock { s in
            guard s.phase == .waiting else { return false }
            s.phase = .started
            return true
        }
    }
    func finish(_ r: Result<Void, RunError>) { state.withLock { $0.result = r } }
    var result: Result<Void, RunError>? { state.withLock { $0.result } }
    /// Gives up if the probe has not started; false if it has (the caller must wait).
    func cancelIfNotStarted() -> Bool {
        state.withLock { s in
            guard s.phase == .waiting else { return false }
            s.phase = .cancelled
            return true
        }
    }
}
