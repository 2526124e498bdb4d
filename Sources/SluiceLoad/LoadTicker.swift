import Foundation
import Synchronization
import SluiceRun
import SluiceMeasure

/// Once a second while a load run goes on: the crowd's progress (for the live line) and
/// the process's CPU and memory (for the timeline).
package final class LoadTicker: Sendable {
    private struct Last {
        var frames = 0
        var bytes = 0
        var cpuSeconds: Double?
    }
    private struct State {
        var last = Last()
        var samples: [ProcessSample] = []
        var done = false
    }

    private let run: LoadRun
    private let onSecond: @Sendable (LoadProgress) -> Void
    private let state = Mutex(State())

    package init(run: LoadRun, onSecond: @escaping @Sendable (LoadProgress) -> Void) {
        self.run = run
        self.onSecond = onSecond
    }

    /// The process, second by second, so far.
    package var samples: [ProcessSample] { state.withLock { $0.samples } }

    /// Ends `run(stop:)` at its next second.
    package func finish() { state.withLock { $0.done = true } }

    /// Ticks at each whole second of the run's clock until `finish`.
    package func run(stop: StopFlag) async {
        var second = 1
        while !state.withLock({ $0.done }) {
            let wait = Double(second) - run.clock.now
            if wait > 0 { try? await Task.sleep(for: .milliseconds(Int(wait * 1000))) }
            guard !state.withLock({ $0.done }) else { break }
            onSecond(progress(at: second))
            second += 1
        }
    }

    /// The crowd and the process at `second`.
    private func progress(at second: Int) -> LoadProgress {
        let observations = run.observations
        var p = LoadProgress(second: second)
        p.started = observations.count
        var frames = 0, bytes = 0
        for o in observations {
            frames += o.frames.count
            bytes += o.frames.bytes
            if o.iceConnectedAt != nil, o.endedAt == nil { p.connected += 1 }
            if o.endedAt != nil { if o.outcome.succeeded { p.ended += 1 } else { p.failed += 1 } }
        }
        let sample = ProcessMetrics.read()
        let memory = Double(sample?.residentBytes ?? 0) / 1_048_576
        state.withLock { s in
            p.framesPerSecond = Double(frames - s.last.frames)
            p.kilobitsPerSecond = Double(bytes - s.last.bytes) * 8 / 1000
            if let cpu = sample?.cpuSeconds, let before = s.last.cpuSeconds { p.cpuCores = cpu - before }
            p.memoryMiB = memory
            s.last = Last(frames: frames, bytes: bytes, cpuSeconds: sample?.cpuSeconds)
            s.samples.append(ProcessSample(second: second, cpuCores: p.cpuCores, memoryMiB: memory))
        }
        return p
    }
}
