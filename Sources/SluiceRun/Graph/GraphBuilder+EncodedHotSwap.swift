import GStreamer

// MARK: - Swapping a send branch's encoded filters

extension GraphBuilder {
    /// Replaces a send branch's encoded filters while it runs (`--watch`): the same filters
    /// take new settings in place (`reconfigureEncodedFilters`); another list is built first,
    /// then swapped in while the encoder's output is idle, as `replaceFilters` does for raw
    /// filters. Nothing is renegotiated: what crosses the swap is encoded frames either way.
    package func replaceEncodedFilters(media: MediaKind, with specs: [FilterSpec], timeout: Double = 3) async throws(RunError) {
        guard let section = state.withLock({ $0.encodedSendSections[media] }) else {
            if media == .video, !state.withLock({ $0.simulcastLayers.isEmpty }) {
                // One list per layer: their settings change on every layer at once; another list needs a restart.
                try reconfigureEncodedFilters(side: .send, media: media, with: specs)
                return
            }
            throw RunError("send.\(media.rawValue) has no encoder to put encoded filters after (a passed-through capture's list changes with a restart)")
        }
        if SpecDiff.sameSwiftFilters(section.specs, specs) {
            try reconfigureEncodedFilters(side: .send, media: media, with: specs)
            return
        }
        if section.payloaderParses, !specs.isEmpty {
            throw RunError(
                "send.\(media.rawValue) started without encoded filters, so its \(section.codec.rawValue) goes out through \(section.payloader), which parses every frame; restart to add encoded filters"
            )
        }
        let fresh = specs.isEmpty ? [] : try filterElements(specs, encoded: .send)
        guard let headPad = section.head.staticPad("src") else { throw RunError("the encoder has no output pad") }
        try await whenIdle(
            headPad, timeout: timeout,
            otherwise: RunError("the send.\(media.rawValue) encoder did not become idle within \(timeout) s; encoded filters unchanged")
        ) { builder in builder.swapEncoded(media, section, to: fresh, specs: specs) }
    }

    /// Runs with the encoder's output idle-blocked: unlinks the old filters from what follows
    /// them, links the new ones in (or the encoder straight to it), and on failure puts the
    /// old ones back.
    private func swapEncoded(
        _ media: MediaKind, _ section: EncodedSendSection, to fresh: [Element], specs: [FilterSpec]
    ) -> Result<Void, RunError> {
        let old = section.elements
        guard let next = (old.last ?? section.head).staticPad("src")?.peer?.parentElement else {
            return .failure(RunError("the encoded filters of send.\(media.rawValue) feed nothing"))
        }
        let oldChain = [section.head] + old + [next]
        for i in 0..<(oldChain.count - 1) { oldChain[i].unlink(oldChain[i + 1]) }
        do {
            try add(fresh)
            try Element.link([section.head] + fresh + [next])
            for e in fresh.reversed() { e.syncStateWithParent() }
        } catch {
            let partial = [section.head] + fresh + [next]
            for i in 0..<(partial.count - 1) { partial[i].unlink(partial[i + 1]) }
            for e in fresh { e.setState(.null); try? pipeline.remove(e) }
            for i in 0..<(oldChain.count - 1) { try? oldChain[i].link(oldChain[i + 1]) }
            return .failure(RunError("cannot link the new encoded filters of send.\(media.rawValue): \(error)"))
        }
        for e in old {
            e.setState(.null)
            try? pipeline.remove(e)
        }
        state.withLock { s in
            s.encodedSendSections[media]?.elements = fresh
            s.encodedSendSections[media]?.specs = specs
            s.encodedFilterLists[BranchKey(side: .send, media: media)] = fresh.isEmpty ? nil : [EncodedFilterList(specs: specs, elements: fresh)]
        }
        return .success(())
    }
}
