/// Something WHEP viewers can play: a served pipeline (`StreamHub`) or a relayed WHIP
/// publisher (`RelayStream`).
public protocol ViewerSource: Sendable {
    /// The stream's name, the path viewers ask for (`/whep/<name>`).
    var name: String { get }
    /// Viewers connected now.
    var viewerCount: Int { get }
    /// Viewers removed so far, by reason: `deleted` (DELETE), `failed` (negotiation or its
    /// branch failed), `never-connected`, `ice-failed`, `silent` (vanished: no RTCP),
    /// `shutdown`.
    var viewerRemovals: [String: Int] { get }
    /// Adds a viewer for a WHEP offer (SDP); returns its id and the complete SDP answer.
    /// `layer` pins the viewer to one rung of the stream's ladder or one layer of its
    /// simulcast publisher, by name (nil: its bandwidth estimate chooses).
    /// Throws `RunError` if the viewer cannot be added (e.g. no media yet, no such layer, or
    /// negotiation fails).
    func addViewer(offer: String, layer: String?) async throws(RunError) -> (id: String, answer: String)
    /// Adds trickled remote candidates to a viewer. False if the viewer is unknown.
    func addCandidates(_ candidates: [(mid: String?, candidate: String)], toViewer id: String) -> Bool
    /// Ends a viewer's session. False if the viewer is unknown.
    @discardableResult func removeViewer(_ id: String) -> Bool
}

extension ViewerSource {
    /// Adds a viewer whose bandwidth estimate chooses its layer.
    public func addViewer(offer: String) async throws(RunError) -> (id: String, answer: String) {
        try await addViewer(offer: offer, layer: nil)
    }
}

extension StreamHub: ViewerSource {}
extension RelayStream: ViewerSource {}
