import Foundation
import GStreamer
import Synchronization

/// Puts one send branch's fallback (`capture.fallback`) on air when its source has sent
/// nothing for the fallback's `after`, and takes it off at the source's first frame back
/// (its first keyframe, when the branch passes the source's encoding through, so the
/// viewers' decoders never get a frame whose reference they lack).
///
/// The branch's capture ends in an `input-selector`: its first pad is the source's, and the
/// fallback's elements (`FallbackSlate`) are made, linked to a second pad and made the
/// active one only while the source is away; they are removed once it is back, so a healthy
/// source costs nothing. The fallback's timestamps are shifted back by how far the source's
/// running time trails the clock (its jitter buffer, its latency), so the stream's
/// timestamps keep going forward across both switches.
package final class FallbackSwitch: Sendable {
    /// One time the fallback was on air.
    package struct OnAir: Sendable, Equatable {
        /// When it went on air.
        package var start: ContinuousClock.Instant
        /// When the source came back (nil: still on air).
        package var end: ContinuousClock.Instant?
    }

    /// The source it stands in for, as the user knows it (`rtsp capture rtsp://cam/…`).
    package let source: String
    /// The branch's medium.
    package let media: MediaKind
    /// What it sends.
    package let slate: FallbackSlate
    private let after: Duration
    private let selector: Element
    private let input: Pad
    private let pipeline: Pipeline
    private let make: @Sendable (Caps) throws(RunError) -> [Element]
    private let origin = ContinuousClock.now
    /// Nanoseconds from `origin` to the source's latest buffer (0: none yet).
    private let lastBuffer = Atomic<Int>(0)
    /// Nanoseconds the source's latest buffer's running time trailed the clock's.
    private let lag = Atomic<Int>(0)
    private let onAir = Atomic<Bool>(false)
    /// The source's buffers so far (its lag is read from one in `ReconnectTimeline.sampleEvery`).
    private let buffers = Atomic<Int>(0)
    private struct State {
        var elements: [Element] = []
        var pad: Pad?
        var history: [OnAir] = []
        var watch: Task<Void, Never>?
        var stopped = false
        var post: (@Sendable (SourceEvent) -> Void)?
    }
    private let state = Mutex(State())

    /// Watches `input` (the selector's pad the source feeds); `make` makes the fallback's
    /// elements for the source's current caps.
    package init(
        source: String, slate: FallbackSlate, selector: Element, input: Pad, pipeline: Pipeline,
        make: @escaping @Sendable (Caps) throws(RunError) -> [Element]
    ) {
        self.source = source
        self.media = slate.media
        self.slate = slate
        self.after = .milliseconds(Int(slate.spec.afterSeconds * 1000))
        self.selector = selector
        self.input = input
        self.pipeline = pipeline
        self.make = make
        try? selector.set("active-pad", object: input)
        input.addProbe(.buffer) { [weak self] (info: borrowing Pad.ProbeInfo) in
            guard let self else { return .ok }
            let sample = self.buffers.add(1, ordering: .relaxed).oldValue % ReconnectTimeline.sampleEvery == 0
            self.arrived(keyframe: !(info.buffer?.isDeltaUnit ?? false), runningTime: sample ? info.bufferRunningTime : nil)
            return .ok
        }
    }

    /// Whether the fallback is what the branch sends now.
    package var isOnAir: Bool { onAir.load(ordering: .acquiring) }

    /// Sends its events (on air, off air) to `post`.
    package func onEvent(_ post: @escaping @Sendable (SourceEvent) -> Void) { state.withLock { $0.post = post } }

    /// A buffer from the source, on its streaming thread: noted, and it ends the fallback if
    /// the stream can start with it.
    private func arrived(keyframe: Bool, runningTime: ClockTime?) {
        let now = ContinuousClock.now
        lastBuffer.store(max(1, Int((now - origin).nanoseconds)), ordering: .relaxed)
        if let runningTime, let clock = pipeline.runningTime, clock > runningTime {
            lag.store(Int(clock - runningTime), ordering: .relaxed)
        }
        guard onAir.load(ordering: .acquiring), keyframe || slate.codec == nil else { return }
        let shown = state.withLock { s -> OnAir? in
            guard onAir.load(ordering: .relaxed), var last = s.history.last else { return nil }
            try? selector.set("active-pad", object: input)
            onAir.store(false, ordering: .releasing)
            last.end = now
            s.history[s.history.count - 1] = last
            return last
        }
        if let shown { post(.fallbackOff(source: source, media: media, shown: now - shown.start)) }
    }

    /// Checks every 100 ms whether the fallback must go on air, and removes its elements
    /// once the source is back; until `stop`.
    package func start() {
        let task = Task.detached { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))
                guard let self, !self.state.withLock({ $0.stopped }) else { return }
                self.tick()
            }
        }
        state.withLock { $0.watch = task }
    }

    /// Stops watching (the run is ending); the fallback's elements stay until the pipeline goes.
    package func stop() {
        let task = state.withLock { s in
            s.stopped = true
            return s.watch
        }
        task?.cancel()
    }

    /// Seconds on air so far, all times together, and how many times it went on air.
    package func report(now: ContinuousClock.Instant = .now) -> (seconds: Double, times: Int) {
        let history = state.withLock { $0.history }
        return (history.reduce(Duration.zero) { $0 + (($1.end ?? now) - $1.start) }.seconds, history.count)
    }

    private func tick() {
        if !onAir.load(ordering: .acquiring), state.withLock({ !$0.elements.isEmpty }) { removeElements() }
        let last = lastBuffer.load(ordering: .relaxed)
        guard !onAir.load(ordering: .acquiring), last > 0 else { return }
        let silent = ContinuousClock.now - (origin + .nanoseconds(last))
        guard silent >= after else { return }
        do { try goOnAir(silentFor: silent) } catch {
            removeElements()
            post(.fallbackFailed(source: source, media: media, reason: error.message))
            stop()
        }
    }

    /// Makes the fallback's elements for the source's caps, links them and switches to them.
    private func goOnAir(silentFor silent: Duration) throws(RunError) {
        guard let caps = input.currentCaps else { return }
        let elements = try make(caps)
        do { try pipeline.add(elements) } catch { throw RunError("cannot add the fallback: \(error.message)") }
        state.withLock { $0.elements = elements }
        guard let exit = elements.last?.staticPad("src"), let pad = selector.requestPad("sink_%u") else {
            throw RunError("the fallback has no output")
        }
        state.withLock { $0.pad = pad }
        do {
            for (a, b) in zip(elements, elements.dropFirst()) { try a.link(b) }
            try exit.link(pad)
        } catch { throw RunError("cannot link the fallback: \(error.message)") }
        exit.offset = -Int64(lag.load(ordering: .relaxed))
        // Not once the run is ending: elements started after the pipeline stopped would outlive it.
        let started = state.withLock { s -> Bool in
            guard !s.stopped else { return false }
            for element in elements.reversed() { _ = element.syncStateWithParent() }
            return true
        }
        guard started else { return removeElements() }
        let now = ContinuousClock.now
        state.withLock { s in
            try? selector.set("active-pad", object: pad)
            s.history.append(OnAir(start: now))
            onAir.store(true, ordering: .releasing)
        }
        post(.fallbackOn(source: source, media: media, content: slate.spec.label, silent: silent))
    }

    /// Stops and removes the fallback's elements and releases their selector pad.
    private func removeElements() {
        let (elements, pad) = state.withLock { s in
            defer { s.elements = []; s.pad = nil }
            return (s.elements, s.pad)
        }
        for element in elements { _ = element.setState(.null) }
        for element in elements { try? pipeline.remove(element) }
        if let pad { selector.releaseRequestPad(pad) }
    }

    private func post(_ event: SourceEvent) { state.withLock { $0.post }?(event) }
}
