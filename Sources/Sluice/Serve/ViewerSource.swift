/// Something WHEP viewers can play: a served pipeline (`StreamHub`) or a relayed WHIP
/// publisher (`RelayStream`).
public protocol ViewerSource: Sendable {
    var name: String { get }
    var viewerCount: Int { get }
    /// Viewers removed so far, by reason: `deleted` (DELETE), `failed` (negotiation or its
    /// branch failed), `never-connected`, `ice-failed`, `silent` (vanished: no RTCP),
    /// `shutdown`.
    var viewerRemovals: [String: Int] { get }
    func addViewer(offer: String) async throws(RunError) -> (id: String, answer: String)
    func addCandidates(_ candidates: [(mid: String?, candidate: String)], toViewer id: String) -> Bool
    @discardableResult func removeViewer(_ id: String) -> Bool
}

extension StreamHub: ViewerSource {}
extension RelayStream: ViewerSource {}
