import Foundation
import SluiceRun
import SluiceMeasure

extension LoadReport {
    /// The report of a load run of `spec` with the crowd `load` (`shard`: `I/N` as given on
    /// the command line, nil for the whole crowd).
    public init(spec: PipelineSpec, load: LoadSpec, shard: String?, result: LoadRun.Result) {
        let target = LoadAdapters.adapter(for: spec.transport.kind)?.target(of: spec) ?? spec.transport.kind.rawValue
        self.init(
            pipeline: spec.file, target: target, clientsPlanned: result.clientsPlanned, duration: result.duration, shard: shard,
            observations: result.clients, samples: result.process)
        role = result.role.rawValue
        shared_encoder_frames = result.sharedEncoderFrames
        if let start = result.resources.start, let end = result.resources.end {
            process = LoadProcessUse(start: .init(start), end: .init(end))
        }
    }

    /// A report written by `sluice load --json`.
    public static func read(from url: URL) throws -> LoadReport {
        try JSONDecoder().decode(LoadReport.self, from: Data(contentsOf: url))
    }
}
