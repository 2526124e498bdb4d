import Foundation
import GStreamer

/// What a room's mosaic and mix share: an aggregator (compositor, audiomixer) over a live
/// backdrop (black, silence) → a fixed format → convert → the branch's filters (live-swappable,
/// as elsewhere) → its sink. Publishers' streams join the aggregator as they arrive.
extension GraphBuilder {
    /// Builds and links the branch before the pipeline plays; its output counts as what this
    /// run receives of the medium.
    func prepareRoomAggregate(_ branch: ReceiveBranchSpec, aggregator: Element, backdrop: [Element], format: Element,
                              convert: Element, at location: SourceLocation?) throws(RunError) {
        let media = branch.media
        let filterSpecs = branch.filters
        let filters = try filterElements(filterSpecs)
        let sink = try sinkElements(branch, media: media)
        try add(backdrop + [aggregator, format, convert] + filters + sink.owned)
        // The live backdrop keeps the aggregator running before anyone publishes: an aggregator
        // without any input would end its stream at once.
        try linkChain(backdrop + [aggregator], media: media, at: location)
        if let muxPad = sink.muxPad {
            guard let out = sink.owned.last?.staticPad("src") else { throw RunError("the encoder has no output pad", at: branch.location) }
            do { try out.link(muxPad) } catch { throw RunError(error.message, at: branch.sink.location) }
        }
        try linkChain(sink.owned, media: media, at: branch.location)
        try linkChain([aggregator, format, convert], media: media, at: location)
        guard let sinkFirst = sink.owned.first else { throw RunError("empty sink stage", at: branch.sink.location) }
        try linkSection(BranchKey(side: .receive, media: media), head: convert, filters: filters, specs: filterSpecs, tail: sinkFirst,
                        at: branch.location)
        if let sinkPad = sink.final.staticPad("sink") {
            state.withLock { s in if !s.sinkPads.contains(sinkPad) { s.sinkPads.append(sinkPad) } }
        }
        // End-of-stream on stop enters here too: with no publisher the aggregator has no input to pass it on.
        if let entrance = format.staticPad("sink") { state.withLock { $0.receiveEntrances.append(entrance) } }
        if let src = format.staticPad("src") {
            let counters = counters
            let video = media == .video
            src.addProbe { (_: borrowing Pad.ProbeInfo) in
                let n = video ? counters.receiveVideoFrames.add(1, ordering: .relaxed).newValue
                              : counters.receiveAudioBuffers.add(1, ordering: .relaxed).newValue
                if n == 1 { counters.markFirstFrame() }
                return .ok
            }
        }
        state.withLock { _ = $0.builtMedia.insert(media) }
    }
}
