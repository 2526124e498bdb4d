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
        if try reconfigureInPlace(key, section, to: specs) { return }
        let fresh = try filterElements(specs)
        guard let headPad = section.head.staticPad("src") else { throw RunError("the filter section has no input pad") }
        try await whenIdle(
            headPad, timeout: timeout,
            otherwise: RunError("the \(side.rawValue).\(media.rawValue) branch did not become idle within \(timeout) s; filters unchanged")
        ) { builder in builder.swap(key, section, to: fresh, specs: specs) }
    }

    /// Runs `work` on `pad`'s streaming thread the next time the pad is idle (a probe holds
    /// the next buffer until it is done) and waits for its result; throws `otherwise` if the
    /// pad did not become idle within `timeout` seconds (then `work` never runs).
    package func whenIdle(
        _ pad: Pad, timeout: Double, otherwise: RunError, _ work: @escaping @Sendable (GraphBuilder) -> Result<Void, RunError>
    ) async throws(RunError) {
        let outcome = SwapOutcome()
        pad.addProbe(.idle) { [weak self] (_: borrowing Pad.ProbeInfo) in
            guard let self, outcome.begin() else { return .remove }
            outcome.finish(work(self))
            return .remove
        }
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while ContinuousClock.now < deadline {
            if let result = outcome.result { return try result.get() }
            try? await Task.sleep(for: .milliseconds(5))
        }
        if outcome.cancelIfNotStarted() { throw otherwise }
        while outcome.result == nil { try? await Task.sleep(for: .milliseconds(5)) } // started: it finishes promptly
        try outcome.result?.get()
    }

    /// When the new list names the same Swift filters in the same order and only their
    /// settings differ, sets them on the running elements instead of swapping elements: each
    /// makes a new instance before its next buffer, handed the one it replaces (an audio
    /// `gain` then ramps rather than clicks). Settings the new list leaves out go back to their
    /// defaults. Returns false when elements must be swapped.
    private func reconfigureInPlace(_ key: BranchKey, _ section: FilterSection, to specs: [FilterSpec]) throws(RunError) -> Bool {
        guard specs.count == section.specs.count, !specs.isEmpty else { return false }
        for (old, new) in zip(section.specs, specs) {
            guard case .swift(let oldName, _, _) = old.kind, case .swift(let name, _, _) = new.kind, oldName == name else {
                return false
            }
        }
        for (element, spec) in zip(section.elements, specs) { try configure(element, as: spec) }
        state.withLock { $0.sections[key]?.specs = specs }
        return true
    }

    /// Sets `spec`'s settings on a running Swift filter element; settings it leaves out go
    /// back to their defaults.
    private func configure(_ element: Element, as spec: FilterSpec) throws(RunError) {
        guard case .swift(let name, let settings, let onError) = spec.kind else { return }
        let given = Set(settings.map(\.name))
        let defaults = (FilterRegistry.shared.filterParameters(name) ?? []).compactMap { p in
            given.contains(p.name) ? nil : p.defaultValue.map { FilterSetting(name: p.name, value: $0) }
        }
        do {
            for s in settings + defaults { try element.set(s.name, value: s.value.gValue) }
            try element.set("on-error", onError.rawValue)
        } catch {
            throw RunError("cannot configure filter '\(name)': \(error.message)")
        }
    }

    /// Sets new settings on a branch's running encoded filters (every stream's list on a
    /// receive branch): only the same Swift filters in the same order; each takes them
    /// before its next frame, handed the instance it replaces.
    package func reconfigureEncodedFilters(side: BranchSide, media: MediaKind, with specs: [FilterSpec]) throws(RunError) {
        let key = BranchKey(side: side, media: media)
        let lists = state.withLock { $0.encodedFilterLists[key] ?? [] }
        guard let first = lists.first else { throw RunError("\(side.rawValue).\(media.rawValue) has no encoded filters running") }
        guard SpecDiff.sameSwiftFilters(first.specs, specs) else {
            throw RunError("encoded filters change while running only in their settings (the same filters in the same order); restart for another list")
        }
        for list in lists {
            for (element, spec) in zip(list.elements, specs) { try configure(element, as: spec) }
        }
        state.withLock { s in s.encodedFilterLists[key] = s.encodedFilterLists[key]?.map { EncodedFilterList(specs: specs, elements: $0.elements) } }
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
