import GStreamer
import Synchronization
import SluiceRun
import SluiceMeasure

/// What a load client of one transport kind is to the service under test.
public enum LoadRole: String, Sendable, Hashable, CaseIterable {
    /// It plays a stream (WHEP, a room subscriber).
    case viewer
    /// It sends one (WHIP, a room publisher).
    case publisher
    /// It sends and plays: a member of a call in a room (AppRTC), which sends the crowd's
    /// shared stream and plays what the other member sends.
    case member
}

/// How the clients of one transport kind join the service under test and leave it: one
/// self-describing type per kind, in `LoadAdapters`, so a new kind is one new file.
public protocol LoadAdapter: Sendable {
    /// The transport kind (`transport.kind`) whose files this adapter loads.
    var kind: TransportKind { get }
    /// The roles its clients can take.
    var roles: Set<LoadRole> { get }
    /// Whether the service makes the offer and the client answers (a Janus room's
    /// subscriber), rather than the client offering (a WHEP viewer, any publisher).
    func serviceOffers(as role: LoadRole) -> Bool
    /// A session for client `client` of the crowd `spec` describes, in role `role`.
    func session(for spec: PipelineSpec, role: LoadRole, client: Int) throws(RunError) -> any LoadSession
    /// Refuses a crowd (`load`) this kind cannot run, with the reason and where to change it.
    func check(_ load: LoadSpec, for spec: PipelineSpec) throws(RunError)
    /// What a viewer's offer holds, when the client offers: a receive-only transceiver per
    /// medium, in this order, and a data channel if named.
    func viewerOffer(for spec: PipelineSpec) -> LoadViewerOffer
    /// The service under test as the report names it (an endpoint URL, a server and room).
    func target(of spec: PipelineSpec) -> String
    /// Whether the service mixes its members' audio into what each hears (an audio
    /// conference): its members then speak in turns (`SpeakingTurns`), so that each stamp
    /// a member hears is one speaker's.
    func mixesAudio(of spec: PipelineSpec) -> Bool
}

/// The shape of a load viewer's offer (`LoadAdapter.viewerOffer(for:)`).
public struct LoadViewerOffer: Sendable, Equatable {
    /// A receive-only transceiver per medium, in this order (the file's codecs for a medium it
    /// receives, every codec Sluice knows for one it does not).
    public var media: [MediaKind]
    /// A data channel the offer carries, if any (its label).
    public var dataChannel: String?

    /// An offer of `media`, with a data channel labelled `dataChannel` if given.
    public init(media: [MediaKind], dataChannel: String? = nil) { self.media = media; self.dataChannel = dataChannel }
}

extension LoadAdapter {
    /// The client offers (WHEP, WHIP and their like).
    public func serviceOffers(as role: LoadRole) -> Bool { false }

    /// Any crowd the `load:` section can describe.
    public func check(_ load: LoadSpec, for spec: PipelineSpec) throws(RunError) {}

    /// The transport's `endpoint` (WHEP, WHIP and their like), else the kind's name.
    public func target(of spec: PipelineSpec) -> String {
        spec.transport.settings(as: EndpointSettings.self)?.endpoint ?? spec.transport.kind.rawValue
    }

    /// Each member hears one other member at a time (a call of two), or nothing is mixed.
    public func mixesAudio(of spec: PipelineSpec) -> Bool { false }

    /// A receive-only transceiver per receive branch of the file, no data channel.
    public func viewerOffer(for spec: PipelineSpec) -> LoadViewerOffer { LoadViewerOffer(media: spec.receiveBranches.map(\.media)) }

    /// The role of the clients `spec` describes: viewers for a file with a receive section,
    /// publishers for one with a send section, members of calls for one with both, if this
    /// kind has that role.
    public func role(for spec: PipelineSpec) throws(RunError) -> LoadRole {
        let sends = !spec.sendBranches.isEmpty, receives = !spec.receiveBranches.isEmpty
        guard sends || receives else {
            throw RunError(
                "a load file needs a receive section (what each viewer plays) or a send section (what each publisher sends)",
                at: spec.transport.location)
        }
        let role: LoadRole = sends && receives ? .member : sends ? .publisher : .viewer
        guard roles.contains(role) else { throw refusal(of: role, at: spec.transport.location) }
        return role
    }

    /// Why a file whose sections make its clients `role`s cannot be loaded with this kind.
    private func refusal(of role: LoadRole, at location: SourceLocation?) -> RunError {
        let sections: [LoadRole: String] = [.viewer: "a receive section", .publisher: "a send section", .member: "both a send and a receive section"]
        let wanted = LoadRole.allCases.filter(roles.contains).map { "\($0.rawValue)s (\(sections[$0] ?? ""))" }
        var message = "\(kind.rawValue) load clients are " + KindRegistry<any LoadAdapter>.list(wanted, conjunction: "or")
        message += "; this file has \(sections[role] ?? "")"
        if role == .member {
            message += ": clients that send and receive are members of two-person calls, which the apprtc kind drives; keep one section"
        }
        return RunError(message, at: location)
    }
}

/// One load client's signalling with the service: join with the client's peer, leave at the end.
public protocol LoadSession: Sendable {
    /// Negotiates `peer` with the service: the offer sent, the answer applied. `sending`
    /// sets up what the client sends once the service has said whether it offers or answers
    /// (a call's members); viewers and publishers are set up before they join.
    func join(_ peer: WebRTCPeer, sending: any LoadSendSetup) async throws(LoadJoinFailure)
    /// Keeps the session alive while the client stays (called about once a second): a lease
    /// extended before it runs out. Returns why the service ended the session, if it did.
    func keepAlive() async -> String?
    /// Leaves (best effort: the service may be gone).
    func leave() async
}

extension LoadSession {
    /// Nothing to keep alive (WHEP, WHIP; Janus's client keeps its own session alive).
    public func keepAlive() async -> String? { nil }
}

/// What a load client sends, set up for the side of the offer/answer exchange the service
/// gives it: a call's first member offers, the second answers the first one's offer.
public protocol LoadSendSetup: Sendable {
    /// Builds the send branches on Sluice's own payload types and MIDs, to offer them.
    func setUpToOffer() throws(RunError)
    /// Builds the send branches on the payload types and MIDs `offer` chose; returns the
    /// offer as the client's webrtcbin should apply it.
    func setUpToAnswer(_ offer: String) throws(RunError) -> String
}

/// Why a load client could not join.
public enum LoadJoinFailure: Error, Sendable, Equatable {
    /// The service answered with a refusal: its own error (HTTP status and body, Janus error).
    case refused(String)
    /// The service did not answer at all (not listening, timed out).
    case unreachable(String)
    /// The service answered, and the answer could not be used (bad SDP, a missing header).
    case badAnswer(String)
}

extension LoadJoinFailure {
    /// Applies the service's `answer` to `peer`; an answer webrtcbin cannot take is a bad answer.
    package static func apply(answer: String, to peer: WebRTCPeer) async throws(LoadJoinFailure) {
        do {
            try await peer.setRemoteDescription(try SessionDescription(kind: .answer, sdp: answer))
        } catch let e as NegotiationError {
            throw .badAnswer("the answer could not be applied: \(e.message)")
        } catch {
            throw .badAnswer("the answer could not be applied: \(error)")
        }
    }
}

/// The load adapters: one per transport kind `sluice load` can drive. Each lives beside its
/// transport in SluiceTransports, which adds them with `SluiceTransports.registerBuiltIns()`.
public enum LoadAdapters {
    package static let kinds = KindRegistry<any LoadAdapter>([], name: { $0.kind.rawValue })

    /// Adds an adapter (tests; a program embedding Sluice); one of the same kind is replaced.
    public static func register(_ adapter: any LoadAdapter) { kinds.register(adapter) }

    /// The adapter for `kind`, if `sluice load` can drive it.
    public static func adapter(for kind: TransportKind) -> (any LoadAdapter)? { kinds.kind(named: kind.rawValue) }

    /// "whep" or "whep, janus and whip": the kinds `sluice load` drives, for messages.
    public static var kindsPhrase: String { KindRegistry<any LoadAdapter>.list(kinds.names, conjunction: "or") }
}
