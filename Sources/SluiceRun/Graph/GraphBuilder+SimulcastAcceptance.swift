import Logging
import SluiceSignalling

/// The simulcast layers the other peer takes, once its description is known.
///
/// An offer with `a=simulcast:send h;m;l` is a request: an SFU answers `a=simulcast:recv …`
/// with the layers it forwards, but a peer in a call (a browser in an AppRTC room, Sluice
/// itself) answers one ordinary stream, and a receiver given several SSRCs on one MID shows
/// whichever arrived last. So every layer the peer does not list is refused: its gate closes
/// for good, its encoder idles and its RTP never starts. A peer that takes no simulcast gets
/// the best layer alone (RFC 8853 leaves the choice to the sender).
extension GraphBuilder {
    private static let simulcastLogger = Logger(label: "sluice.simulcast")

    /// Sends no layer but the best until `keepSimulcastLayers` knows what the peer takes:
    /// for a transport that checks its peer's description.
    package func holdSimulcastLayers() {
        for layer in state.withLock({ $0.simulcastLayers }).dropFirst() { layer.gate.peer(.unknown) }
    }

    /// Keeps only the simulcast layers `description` (the peer's answer, or its offer when
    /// this side answers) takes, and returns their rids (empty without simulcast).
    @discardableResult
    package func keepSimulcastLayers(takenIn description: String) -> [String] {
        let layers = state.withLock { $0.simulcastLayers }
        guard let best = layers.first else { return [] }
        let offered = layers.map(\.layer.rid)
        let taken = SimulcastAcceptance.taken(of: offered, in: description, mid: MediaKind.video.rawValue)
        let kept = taken.isEmpty ? [best.layer.rid] : taken
        for layer in layers { layer.gate.peer(kept.contains(layer.layer.rid) ? .takes : .refuses) }
        counters.note("send.video.simulcast_taken", kept.joined(separator: ","))
        if taken.isEmpty {
            let others = offered.dropFirst().map { "'\($0)'" }.joined(separator: ", ")
            Self.simulcastLogger.info(
                "simulcast: the peer takes one stream (its description has no a=simulcast:recv): sending layer '\(best.layer.rid)' (\(best.width)x\(best.height)) alone; \(others) are not sent (their encoders idle)"
            )
        } else if kept.count < offered.count {
            Self.simulcastLogger.info("simulcast: the peer takes \(kept.joined(separator: ",")) of \(offered.joined(separator: ","))")
        }
        return kept
    }
}
