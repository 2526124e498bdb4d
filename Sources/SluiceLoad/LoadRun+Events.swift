import GStreamer
import SluiceRun
import SluiceMeasure

extension LoadRun {
    /// What a client's bus messages do: framestamps read by decoding clients reach their
    /// client's observation as glass-to-glass delays; the rest is dropped (nothing may queue
    /// on the bus of a pipeline that lives as long as its client).
    package var busHandler: @Sendable (Message) -> Void {
        // Weak: each client's pipeline (and so its bus and this handler) belongs to the run.
        { [weak self] message in
            guard message.kind == .element, let e = FilterEventMessage(message.structure), e.event == "framestamp",
                let latency = e.fields["latency_us"], let id = LoadReceiveChain.client(ofReader: message.sourceName),
                let client = self?.client(id)
            else { return }
            client.note { $0.glassToGlassMs.append(latency / 1000) }
        }
    }
}
