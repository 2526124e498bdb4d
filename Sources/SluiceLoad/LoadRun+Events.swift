import GStreamer
import SluiceRun
import SluiceMeasure

extension LoadRun {
    /// What a client's bus messages do: framestamps read by decoding clients reach their
    /// client's observation as glass-to-glass delays, audio stamps as mouth-to-ear delays, and
    /// both pair up into A/V offsets; the rest is dropped (nothing may queue on the bus of a
    /// pipeline that lives as long as its client).
    package var busHandler: @Sendable (Message) -> Void {
        // Weak: each client's pipeline (and so its bus and this handler) belongs to the run.
        { [weak self] message in
            guard message.kind == .element, let e = FilterEventMessage(message.structure) else { return }
            if e.event == "framestamp", let latency = e.fields["latency_us"],
                let id = LoadReceiveChain.client(ofReader: message.sourceName), let client = self?.client(id)
            {
                client.note { o in
                    o.glassToGlassMs.append(latency / 1000)
                    if let captured = e.fields["captured_us"], o.audio != nil {
                        o.audio?.pairing.video(capturedMs: captured / 1000, latencyMs: latency / 1000)
                    }
                }
            } else if e.event == "audiostamp", let delay = e.fields["delay_ms"], let captured = e.fields["captured_ms"],
                let id = LoadReceiveChain.client(ofAudioReader: message.sourceName), let client = self?.client(id)
            {
                client.note { o in
                    if o.audio == nil { o.audio = ClientAudio() }
                    o.audio?.mouthToEarMs.append(delay)
                    o.audio?.pairing.audio(capturedMs: captured, delayMs: delay)
                }
            } else if e.event == "audiostamp-unreadable", let id = LoadReceiveChain.client(ofAudioReader: message.sourceName),
                let client = self?.client(id)
            {
                client.note { o in
                    if o.audio == nil { o.audio = ClientAudio() }
                    o.audio?.unreadableStamps += 1
                }
            }
        }
    }
}
