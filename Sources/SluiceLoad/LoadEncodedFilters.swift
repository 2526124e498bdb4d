import GStreamer
import SluiceRun

/// A load viewer's receive-side encoded filters (`receive.*.encoded_filters`: `e2ee` for a
/// crowd of an encrypted stream, `sei`, `faults`), made as `sluice run` makes them, for
/// each stream that arrives: right after the depayloader, so the frames they drop are
/// neither counted nor decoded (`LoadReceiveChain`). Its load group's own filters for the
/// medium (`LoadGroup.encodedFilters`) come first, nearest the network: `faults` there is
/// what a bad link or service would do to the frames before the viewer's own filters.
package struct LoadEncodedFilters: Sendable {
    private let spec: PipelineSpec
    private let group: LoadGroup?
    private let builder: GraphBuilder

    /// Filters of `spec`'s receive branches, and of `group`, for elements of `pipeline`.
    package init(spec: PipelineSpec, group: LoadGroup? = nil, pipeline: Pipeline) {
        self.spec = spec
        self.group = group
        builder = GraphBuilder(spec: spec, pipeline: pipeline, counters: RunCounters())
    }

    /// The elements for `arrival`'s branch (none when neither the group nor the branch has
    /// encoded filters), unlinked.
    package func make(_ arrival: LoadReceiveChain.Arrival) throws(RunError) -> [Element] {
        guard var branch = spec.receiveBranches.first(where: { $0.media == arrival.media }) else { return [] }
        branch.encodedFilters = (group?.encodedFilters[arrival.media] ?? []) + branch.encodedFilters
        guard !branch.encodedFilters.isEmpty else { return [] }
        return try builder.receivedEncodedFilters(GraphBuilder.ArrivingStream(media: arrival.media, codec: arrival.codec, branch: branch))
    }
}
