import Foundation
import GStreamer
import Logging
import SluiceSignalling
import Synchronization

/// What a Cast receiver plays: the loaded URL decoded by GStreamer (`uridecodebin`), scaled to
/// the served picture and handed, with its audio, to `intervideosink`/`interaudiosink` on a
/// channel that a served pipeline reads (`intervideosrc channel=…`): so WHEP viewers of
/// `sluice serve` see what senders cast. Plays in real time (the sinks sync to the clock), so
/// `currentTime` moves as on a screen.
package final class CastPlayback: CastPlayer {
    package let channel: String
    package let width: Int, height: Int
    private let onChange: @Sendable (CastPlayerSnapshot) -> Void
    private let logger: Logger

    private struct State {
        var pipeline: Pipeline?
        var volume: Element?
        var snapshot = CastPlayerSnapshot()
        var level = 1.0, muted = false
        /// Bumped by every load: messages of an old pipeline change nothing.
        var generation = 0
    }
    private let state = Mutex(State())

    package init(channel: String, width: Int, height: Int, logger: Logger, onChange: @escaping @Sendable (CastPlayerSnapshot) -> Void) {
        self.channel = channel; self.width = width; self.height = height; self.onChange = onChange; self.logger = logger
    }

    package func snapshot() -> CastPlayerSnapshot {
        let (pipeline, s) = state.withLock { ($0.pipeline, $0.snapshot) }
        var out = s
        if let pipeline, s.playerState != "IDLE" {
            if let p = pipeline.queryPosition() { out.currentTime = Double(p) / 1e9 }
            if let d = pipeline.queryDuration() { out.duration = Double(d) / 1e9 }
        }
        return out
    }

    private func change(_ generation: Int, _ update: (inout CastPlayerSnapshot) -> Void) {
        let new = state.withLock { s -> CastPlayerSnapshot? in
            guard s.generation == generation else { return nil }
            update(&s.snapshot)
            return s.snapshot
        }
        if let new { onChange(new) }
    }

    package func perform(_ command: CastPlayerCommand) async {
        switch command {
        case .load(let url, let start, let autoplay):
            teardown()
            load(url, start: start, autoplay: autoplay)
        case .play:
            let (p, g) = state.withLock { ($0.pipeline, $0.generation) }
            p?.setState(.playing)
            change(g) { if $0.playerState != "IDLE" { $0.playerState = "PLAYING" } }
        case .pause:
            let (p, g) = state.withLock { ($0.pipeline, $0.generation) }
            p?.setState(.paused)
            change(g) { if $0.playerState != "IDLE" { $0.playerState = "PAUSED" } }
        case .seek(let t):
            let p = state.withLock { $0.pipeline }
            // A stream that cannot seek (an HTTP server without range requests) would fail the
            // whole playback if asked to: it keeps playing where it is.
            guard let p, p.isSeekable() else {
                logger.info("Cast: the loaded media cannot seek; staying where it is")
                return
            }
            p.seek(to: ClockTime(max(0, t) * 1e9))
        case .stop:
            teardown()
            let g = state.withLock { $0.generation }
            change(g) { $0 = CastPlayerSnapshot(playerState: "IDLE", idleReason: "CANCELLED") }
        case .volume(let level, let muted):
            let v = state.withLock { s -> Element? in
                s.level = level
                s.muted = muted
                return s.volume
            }
            try? v?.set("volume", level)
            try? v?.set("mute", muted)
        }
    }

    private func load(_ url: String, start: Double, autoplay: Bool) {
        let generation = state.withLock { s -> Int in
            s.generation += 1
            s.snapshot = CastPlayerSnapshot(playerState: "BUFFERING", currentTime: start)
            return s.generation
        }
        let pipeline = Pipeline(name: "cast-playback")
        guard let bin = try? playbackBin(url, in: pipeline, generation: generation) else {
            change(generation) { $0 = CastPlayerSnapshot(playerState: "IDLE", idleReason: "ERROR") }
            return
        }
        let volume = bin.child(named: "volume")
        let (level, muted) = state.withLock { ($0.level, $0.muted) }
        try? volume?.set("volume", level)
        try? volume?.set("mute", muted)
        let logger = logger
        pipeline.bus.handleSynchronously { [weak self] message in
            guard message.kind == .error else { return }
            let e = message.parsedError
            logger.warning("Cast: playing \(url) failed: \(e?.message ?? "an error") (\(message.sourceName)\(e?.debug.map { ": \($0.prefix(200))" } ?? ""))")
            self?.change(generation) {
                $0.playerState = "IDLE"; $0.idleReason = "ERROR"
            }
        }
        watchEnd(of: bin, generation: generation)
        state.withLock {
            $0.pipeline = pipeline
            $0.volume = volume
        }
        if start > 0 {
            pipeline.setState(.paused)
            _ = pipeline.waitForState(timeout: 5)
            pipeline.seek(to: ClockTime(start * 1e9))
        }
        pipeline.setState(autoplay ? .playing : .paused)
        if !autoplay { change(generation) { $0.playerState = "PAUSED" } }
    }

    /// Decodes `url` into the run's channel, scaled to the receiver's size; PLAYING is told
    /// once pictures reach the sink, not when the state changes.
    private func playbackBin(_ url: String, in pipeline: Pipeline, generation: Int) throws -> Bin {
        let description = """
            uridecodebin uri="\(url)" name=src \
            src. ! queue ! videoconvert ! videoscale ! videorate ! video/x-raw,format=I420,width=\(width),height=\(height),framerate=30/1,pixel-aspect-ratio=1/1 \
            ! intervideosink name=picture channel=\(channel) async=false \
            src. ! queue ! audioconvert ! audioresample ! volume name=volume ! interaudiosink name=sound channel=\(channel) async=false
            """
        let bin = try Bin.parse(description, ghostUnlinkedPads: false)
        try pipeline.add(bin)
        bin.child(named: "picture")?.staticPad("sink")?.addProbe(.buffer) { [weak self] (_: borrowing Pad.ProbeInfo) in
            self?.change(generation) { if $0.playerState == "BUFFERING" { $0.playerState = "PLAYING" } }
            return .remove
        }
        return bin
    }

    /// The end: end-of-stream at every sink that got a stream (media without sound leave the
    /// audio sink unlinked, and the pipeline would never post EOS).
    private func watchEnd(of bin: Bin, generation: Int) {
        let sinks = ["picture", "sound"].compactMap { bin.child(named: $0)?.staticPad("sink") }
        let flows = Mutex<(started: Set<Int>, ended: Set<Int>)>(([], []))
        for (i, pad) in sinks.enumerated() {
            pad.addProbe(.eventDownstream) { [weak self] (info: borrowing Pad.ProbeInfo) in
                let finished: Bool
                switch info.event {
                case .segment: flows.withLock { _ = $0.started.insert(i) }; finished = false
                case .eos:
                    finished = flows.withLock { f in
                        f.ended.insert(i); return f.ended.isSuperset(of: f.started)
                    }
                default: finished = false
                }
                if finished {
                    self?.change(generation) {
                        $0.playerState = "IDLE"; $0.idleReason = "FINISHED"
                    }
                }
                return .ok
            }
        }
    }

    private func teardown() {
        let old = state.withLock { s -> Pipeline? in
            defer { s.pipeline = nil; s.volume = nil; s.generation += 1 }
            return s.pipeline
        }
        old?.setState(.null)
    }

    deinit { state.withLock { $0.pipeline }?.setState(.null) }
}
