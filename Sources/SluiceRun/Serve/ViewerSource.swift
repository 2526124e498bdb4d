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
    /// Holds viewer `id` on the layer named `layer` (a ladder's rendition or a simulcast
    /// publisher's layer), or with nil lets its bandwidth estimate choose again (WHEP's layer
    /// selection). False if the viewer is unknown; throws `RunError` naming the layers when
    /// there is no layer of that name.
    func pinLayer(_ layer: String?, ofViewer id: String) throws(RunError) -> Bool
    /// The layers a viewer can be held on, best first (empty: one layer only).
    var layerNames: [String] { get }
}

extension ViewerSource {
    /// Adds a viewer whose bandwidth estimate chooses its layer.
    public func addViewer(offer: String) async throws(RunError) -> (id: String, answer: String) {
        try await addViewer(offer: offer, layer: nil)
    }
}

extension ViewerSource {
    /// A source with one layer only.
    public var layerNames: [String] { [] }

    /// A source with one layer only: there is nothing to choose.
    public func pinLayer(_ layer: String?, ofViewer id: String) throws(RunError) -> Bool {
        throw RunError("'\(name)' has one layer only: a layer can be chosen of a ladder's renditions or a simulcast publisher's layers")
    }
}

extension StreamHub: ViewerSource {}
extension RelayStream: ViewerSource {}
