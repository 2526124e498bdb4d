import Foundation

/// A run's live network sources going away and coming back: logged, and posted as events
/// (`source-lost`, `source-back`) for the control API's event stream.
extension PipelineRun {
    /// Sends `supervisor`'s outages to the log and the event stream, and starts its watch
    /// for sources gone silent.
    package func superviseSources(_ supervisor: SourceSupervisor) {
        let logger = logger, events = events
        supervisor.onEvent { event in
            switch event {
            case .lost, .fallbackOn, .fallbackFailed: logger.warning("\(event.logLine)")
            case .back, .fallbackOff: logger.notice("\(event.logLine)")
            }
            events.post(event.type, event.fields)
        }
        supervisor.start()
    }
}
