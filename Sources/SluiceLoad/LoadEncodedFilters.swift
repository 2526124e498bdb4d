import GStreamer
import SluiceRun

/// A load viewer's receive-side encoded filters (`receive.*.encoded_filters`: `e2ee` for a
/// crowd of an encrypted stream, `sei`, `faults`), made as `sluice run` makes them, for
/// each stream that arrives: right after the depayloader, so the frames they drop are
/// neither counted nor decoded (`LoadReceiveChain`).
package struct LoadEncodedFilters: Sendable {
    private let spec: PipelineSpec
    private let builder: GraphBuilder

    /// Filters of `spec`'s receive branches, for elements of `pipeline`.
    package init(spec: PipelineSpec, pipeline: Pipeline) {
        self.spec = spec
        builder = GraphBuilder(spec: spec, pipeline: pipeline, counters: RunCounters())
    }

    /// The elements for `arrival`'s branch (none when it has no encoded filters), unlinked.
    package func make(_ arrival: LoadReceiveChain.Arrival) throws(RunError) -> [Element] {
        guard let branch = spec.receiveBranches.first(where: { $0.media == arrival.media }), !branch.encodedFilters.isEmpty else {
            return []
        }
        return try builder.receivedEncodedFilters(GraphBuilder.ArrivingStream(media: arrival.media, codec: arrival.codec, branch: branch))
    }
}
