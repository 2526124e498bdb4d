import Foundation
import GStreamer
import Logging
import Synchronization

/// `sluice serve --run FILE`: pipeline files run inside the server's process, next to what it
/// serves, until the server stops. In one process, `intervideosink`/`interaudiosink` in one
/// file and `intervideosrc`/`interaudiosrc` in a served one carry pictures and sound between
/// them: a Janus room composed into a mosaic (Pipelines/janus-room-bridge.yaml) becomes a
/// stream WHEP viewers and browsers play (Pipelines/room-bridge.yaml).
public final class CompanionRuns: Sendable {
    private let stopFlag = StopFlag()
    private let tasks: Mutex<[Task<Void, Never>]>
    /// The runs that ended on their own, with why (for the log and the tests).
    private final class Log: Sendable {
        let lines = Mutex<[String]>([])
        func add(_ s: String) { lines.withLock { $0.append(s) } }
    }
    private let ended = Log()

    /// Starts running each of `specs` in a task of its own, logging through `logger` any that ends or fails.
    public init(_ specs: [PipelineSpec], logger: Logger) {
        let stop = stopFlag, ended = self.ended
        tasks = Mutex(
            specs.map { spec in
                Task.detached {
                    let run = PipelineRun(spec: spec, logger: logger)
                    do throws(RunError) {
                        let summary = try await run.run(options: RunOptions(), stop: stop)
                        if !stop.isSet {
                            ended.add("\(spec.name) ended after \(Int(summary.duration_s)) s")
                            logger.warning("sluice serve: --run \(spec.file) ended on its own after \(Int(summary.duration_s)) s")
                        }
                    } catch {
                        ended.add("\(spec.name) failed: \(error.description)")
                        logger.error("sluice serve: --run \(spec.file) failed: \(error.description)")
                    }
                }
            })
    }

    /// What ended before the server stopped.
    public var endedEarly: [String] { ended.lines.withLock { $0 } }

    /// Stops every run (each drains as on Ctrl-C) and waits for them.
    public func stop() async {
        stopFlag.set()
        for t in tasks.withLock({ $0 }) { await t.value }
    }
}
