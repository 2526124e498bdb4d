import Foundation
import GStreamer

/// A receive branch fed from inside the process rather than by a webrtcbin: a live source chain
/// (a room's mosaic — compositor over a black backdrop —, its mix — audiomixer over silence —,
/// what a Cast receiver plays — intervideosrc/interaudiosrc) → a fixed format → convert → the
/// branch's filters (live-swappable, as elsewhere) → its sink.
extension GraphBuilder {
    /// Builds and links the branch before the pipeline plays; what leaves `format` counts as
    /// what this run receives of the medium.
    package func prepareLocalReceive(
        _ branch: ReceiveBranchSpec, source: [Element], format: Element,
        convert: Element, at location: SourceLocation?
    ) throws(RunError) {
        let media = branch.media
        let filterSpecs = branch.filters
        let filters = try filterElements(filterSpecs)
        let sink = try sinkElements(branch, media: media)
        guard let last = source.last else { throw RunError("a local receive branch needs a source", at: location) }
        try add(source + [format, convert] + filters + sink.owned)
        try linkChain(source, media: media, at: location)
        if let muxPad = sink.muxPad {
            guard let out = sink.owned.last?.staticPad("src") else { throw RunError("the encoder has no output pad", at: branch.location) }
            do { try out.link(muxPad) } catch { throw RunError(error.message, at: branch.sink.location) }
        }
        try linkChain(sink.owned, media: media, at: branch.location)
        try linkChain([last, format, convert], media: media, at: location)
        guard let sinkFirst = sink.owned.first else { throw RunError("empty sink stage", at: branch.sink.location) }
        try linkSection(
            BranchKey(side: .receive, media: media), head: convert, filters: filters, specs: filterSpecs, tail: sinkFirst,
            at: branch.location)
        if let sinkPad = sink.final.staticPad("sink") {
            state.withLock { s in if !s.sinkPads.contains(sinkPad) { s.sinkPads.append(sinkPad) } }
        }
        // End-of-stream on stop enters here: a live source (or an aggregator without input) would not pass it on.
        if let entrance = format.staticPad("sink") { state.withLock { $0.receiveEntrances.append(entrance) } }
        if let src = format.staticPad("src") {
            let counters = counters
            let video = media == .video
            src.addProbe { (_: borrowing Pad.ProbeInfo) in
                let n =
                    video
                    ? counters.countDecodedVideoFrame()
                    : counters.receiveAudioBuffers.add(1, ordering: .relaxed).newValue
                if n == 1 { counters.markFirstFrame() }
                return .ok
            }
        }
        state.withLock { _ = $0.builtMedia.insert(media) }
    }
}
