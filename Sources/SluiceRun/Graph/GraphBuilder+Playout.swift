import GStreamer

/// `receive.playout: lip-sync`: decoded frames and sound wait for their presentation time.
///
/// The sender's RTCP sender reports map each stream's RTP time to its capture time
/// (`rtcp-sync-send-time` off, `WebRTCDefaults`), and the receiving rtpbin shifts the stream
/// that arrives earlier so that both streams' timestamps count from one capture timeline.
/// A `clocksync` right after each decoder (before the branch's filters, so that they and the
/// sink see frames at their playout time) then holds every buffer until its running time plus
/// one latency shared by both media: the largest of the paths' own (their jitter buffer and
/// decoders). A clocksync waits for its timestamp plus the latency upstream of itself, which
/// differs by path, so each gets `ts-offset` = shared − its own.
extension GraphBuilder {
    /// The branch's playout `clocksync` with `receive.playout: lip-sync`; nil otherwise.
    package func playoutSync(for branch: ReceiveBranchSpec) throws(RunError) -> Element? {
        guard spec.receive?.playout == .lipSync else { return nil }
        let sync = try make("clocksync", [("sync", "true")], at: branch.location)
        state.withLock { $0.playoutSyncs.append(sync) }
        return sync
    }

    /// Asks for the pipeline's latency to be recalculated once a branch's playout clocksync is
    /// in place (the runner's answer to the message ends in `alignPlayout()`): the jitter
    /// buffers' own latency messages may all have come before the branch existed.
    package func announcePlayout(_ sync: Element?) {
        guard let sync else { return }
        Message.postLatency(from: sync)
    }

    /// Gives every playout clocksync the same presentation latency (see the extension's
    /// documentation). Runs after each latency recalculation, off the streaming threads.
    package func alignPlayout() {
        let syncs = state.withLock { $0.playoutSyncs }
        guard !syncs.isEmpty else { return }
        // The clocksync's own query function stores what it answers as its upstream latency
        // (nothing, for a path that is not live).
        let own: [ClockTime] = syncs.map { sync in
            guard let answer = sync.staticPad("src")?.queryLatency(), answer.live else { return 0 }
            return answer.min
        }
        let shared = own.max() ?? 0
        for (sync, latency) in zip(syncs, own) {
            try? sync.set("ts-offset", Int64(shared) - Int64(latency))
        }
    }
}
