import GStreamer

extension LoadRun {
    /// Framestamps read by decoding clients reach their client's observation as
    /// glass-to-glass delays. Nothing else may queue on the bus of this long-lived pipeline
    /// (each message would keep its element alive), so every message is handled here.
    func routeReaderEvents() {
        // Weak: the pipeline (and so its bus and this handler) belongs to the run.
        pipeline.bus.handleSynchronously { [weak self] message in
            guard message.kind == .element, let e = FilterEventMessage(message.structure), e.event == "framestamp",
                let latency = e.fields["latency_us"], let id = LoadReceiveChain.client(ofReader: message.sourceName),
                let client = self?.clients.withLock({ $0[id] })
            else { return }
            client.note { $0.glassToGlassMs.append(latency / 1000) }
        }
    }
}
