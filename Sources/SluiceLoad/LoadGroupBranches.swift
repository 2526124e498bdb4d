import GStreamer
import SluiceRun

/// The branches of the load groups with encoded filters of their own
/// (`LoadGroup.encodedFilters`: `faults` for one part of a crowd of publishers, or another
/// key), in the publishers' shared pipeline, one per group and medium:
///
/// ```
/// shared tee ─┬→ the other groups' publishers
///             └→ queue (leaky) → the group's encoded filters → tee ─┬→ the group's publishers
///                                                                   └→ …
/// ```
/// The group's frames are filtered once for all its publishers, after the send section's own
/// filters, and the crowd still has one capture and one encoder. The queue is leaky: a filter
/// that holds frames (`faults`' `delay_ms`) holds its own group only. The group's outputs
/// have no GOP cache (the shared one holds frames that have not been through the group's
/// filters): its publishers start from a keyframe asked for. Their payloaders do not parse
/// the frames (`opaqueFrames`), which the filters may have changed.
package enum LoadGroupBranches {
    /// The outputs each group with encoded filters feeds its publishers, by group name: the
    /// group's branch for a medium it filters, the shared output for the others.
    package static func build(
        for groups: [LoadGroup], from outputs: [ViewerSet.Output], builder: GraphBuilder
    ) throws(RunError) -> [String: [ViewerSet.Output]] {
        var byGroup: [String: [ViewerSet.Output]] = [:]
        for group in groups where !group.encodedFilters.isEmpty {
            var fed: [ViewerSet.Output] = []
            for output in outputs {
                if let specs = group.encodedFilters[output.media], !specs.isEmpty {
                    fed.append(try branch(from: output, through: specs, of: group, builder: builder))
                } else {
                    fed.append(output)
                }
            }
            byGroup[group.name] = fed
        }
        return byGroup
    }

    /// shared tee → queue → `specs` → a tee of the group's.
    private static func branch(
        from output: ViewerSet.Output, through specs: [FilterSpec], of group: LoadGroup, builder: GraphBuilder
    ) throws(RunError) -> ViewerSet.Output {
        let at = specs.first?.location ?? group.location
        let name = "group-\(group.name)-\(output.media.rawValue)"
        let queue = try builder.make(
            "queue", [("max-size-buffers", "30"), ("max-size-bytes", "0"), ("max-size-time", "0"), ("leaky", "downstream")], at: at,
            name: "\(name)-queue")
        let filters = try builder.filterElements(specs, encoded: .send)
        let tee = try builder.make("tee", [("allow-not-linked", "true")], at: at, name: "\(name)-tee")
        let chain = [queue] + filters + [tee]
        try builder.add(chain)
        guard let teePad = output.tee.requestPad("src_%u"), let entrance = queue.staticPad("sink") else {
            throw RunError("load group '\(group.name)': the shared \(output.media.rawValue) tee refused its branch", at: at)
        }
        do {
            try teePad.link(entrance)
            for (a, b) in zip(chain, chain.dropFirst()) { try a.link(b) }
        } catch {
            throw RunError("load group '\(group.name)': cannot link its encoded filters: \(error.message)", at: at)
        }
        var fed = ViewerSet.Output(media: output.media, codec: output.codec, tee: tee, cache: nil)
        fed.opaqueFrames = true
        return fed
    }
}
