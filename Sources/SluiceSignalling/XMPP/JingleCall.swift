import Foundation
import Logging
import Synchronization

/// One Jingle call (XEP-0166) over a logged-in XMPP client: the caller sends
/// `session-initiate` (after XEP-0353's propose/proceed when it only knows the peer's bare
/// JID) and gets `session-accept`; the callee gets the first and sends the second.
/// Candidates trickle as `transport-info`; `session-terminate` ends the call.
///
/// Every Jingle IQ is answered as XEP-0166 says: a result, or `item-not-found` +
/// `unknown-session`, `feature-not-implemented` + `unsupported-info`, `bad-request`,
/// `unexpected-request` + `out-of-order`, `forbidden` for a caller not on the allow list.
public final class JingleCall: Sendable {
    /// Which side this call is: the caller sends `session-initiate`, the callee accepts it.
    public enum Role: Sendable { case caller, callee }

    /// An ICE candidate of one media section.
    public struct Candidate: Sendable, Equatable {
        /// The section's mid.
        public var mid: String
        /// The candidate line, without `a=`.
        public var candidate: String
        /// A candidate `candidate` of section `mid`.
        public init(mid: String, candidate: String) {
            self.mid = mid
            self.candidate = candidate
        }
    }

    /// What the call reports.
    public enum Event: Sendable {
        /// Callee: a `session-initiate` from an allowed peer (already acknowledged).
        case offer(sdp: String, from: JID)
        /// Caller: the peer's `session-accept` (already acknowledged).
        case answer(sdp: String)
        /// Trickled candidates (or those the offer/answer carried).
        case candidates([Candidate])
        /// The peer ended the call (`session-terminate`), with its reason.
        case terminated(reason: String)
        /// The call cannot go on (refused, the peer's answer unreadable, the stream ended).
        case failed(String)
    }

    /// Why a call could not start or a message could not be sent.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong, in words.
        public var description: String
        /// A failure saying `description`.
        public init(_ description: String) { self.description = description }
    }

    /// The logged-in client the call's stanzas go through.
    public let client: XMPPClient
    /// Whether this side calls or answers.
    public let role: Role
    /// Everything the call reports, in order.
    public let events: AsyncStream<Event>
    let sink: AsyncStream<Event>.Continuation
    let allow: [JID]?
    let logger: Logger
    let state = Mutex(State())
    private let reader = Mutex<Task<Void, Never>?>(nil)

    struct State {
        var sid: String?
        /// The other party's full JID once known.
        var peer: JID?
        /// Candidates waiting until the session exists on the other side.
        var queued: [Candidate] = []
        var established = false
        /// Caller: the session-accept came.
        var accepted = false
        var proposal: CheckedContinuation<Result<JID, Failure>, Never>?
        var proposalID: String?
        var ended = false
        /// IQs answered with an error, by condition (bad input is counted, never fatal).
        var refused: [String: Int] = [:]
    }

    /// A call of `role` over `client`.
    ///
    /// - Parameters:
    ///   - client: The logged-in XMPP client the call's stanzas go through.
    ///   - role: Whether this side calls (`caller`) or answers (`callee`).
    ///   - allow: Bare JIDs that may call (nil: anyone). Only used by a callee.
    ///   - logger: Where the call logs its steps.
    public init(client: XMPPClient, role: Role, allow: [JID]? = nil, logger: Logger = Logger(label: "sluice.jingle")) {
        self.client = client
        self.role = role
        self.allow = allow.map { $0.map(\.bare) }
        self.logger = logger
        (events, sink) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingNewest(512))
        reader.withLock {
            $0 = Task { [weak self] in
                for await stanza in client.stanzas {
                    guard let self else { return }
                    self.handle(stanza)
                }
                self?.sink.yield(.failed(client.endReason ?? "the XMPP stream ended"))
                self?.sink.finish()
            }
        }
    }

    /// The session id, once a session exists.
    public var sid: String? { state.withLock { $0.sid } }
    /// The other party, once known.
    public var peer: JID? { state.withLock { $0.peer } }
    /// IQs this side refused, by error condition.
    public var refusals: [String: Int] { state.withLock { $0.refused } }

    // MARK: Caller

    /// Calls `peer` with `offer`: XEP-0353 first when `peer` is a bare JID (waiting up to
    /// `ringTimeout` seconds for a device to proceed), then `session-initiate`.
    public func call(_ peer: JID, offer sdp: String, ringTimeout: Double) async throws(Failure) {
        let sid = UUID().uuidString.lowercased()
        state.withLock { $0.sid = sid }
        var target = peer
        if peer.isBare { target = try await propose(to: peer, sid: sid, timeout: ringTimeout) }
        state.withLock { $0.peer = target }
        let jingle: XML.Element
        do {
            jingle = try Jingle.element(
                action: "session-initiate", sid: sid, initiator: client.jid.description,
                responder: nil, sdp: sdp, role: .initiator)
        } catch { throw Failure("cannot describe the offer in Jingle: \(error.description)") }
        let reply = await client.request(XMPPStanza.iq("set", to: target.description, payload: jingle), timeout: ringTimeout)
        guard let reply else { throw Failure("\(target) did not acknowledge the call within \(Int(ringTimeout)) s") }
        guard reply[attribute: "type"] == "result" else {
            throw Failure("\(target) refused the call: \(Self.describeError(reply))")
        }
        flushCandidates(established: true)
    }

    private func propose(to peer: JID, sid: String, timeout: Double) async throws(Failure) -> JID {
        let propose = XML.Element(
            "propose", namespace: JingleMessage.namespace, attributes: [("id", sid)],
            children: [
                XML.Element("description", namespace: "urn:xmpp:jingle:apps:rtp:1", attributes: [("media", "video")])
            ])
        let message = XML.Element(
            "message", namespace: XMPPNamespace.client,
            attributes: [("to", peer.description), ("type", "chat"), ("id", client.nextID())],
            children: [propose, XML.Element("store", namespace: "urn:xmpp:hints")])
        let timer = Task { [weak self] in
            try? await Task.sleep(for: .seconds(timeout))
            guard !Task.isCancelled else { return }
            self?.resolveProposal(.failure(Failure("no device of \(peer) took the call within \(Int(timeout)) s (XEP-0353 propose)")))
        }
        defer { timer.cancel() }
        let result = await withCheckedContinuation { (c: CheckedContinuation<Result<JID, Failure>, Never>) in
            state.withLock {
                $0.proposal = c
                $0.proposalID = sid
            }
            client.send(message)
        }
        return try result.get()
    }

    func resolveProposal(_ result: Result<JID, Failure>) {
        let waiting = state.withLock { s in
            defer { s.proposal = nil }; return s.proposal
        }
        waiting?.resume(returning: result)
    }

    // MARK: Callee

    /// Sends `session-accept` with `answer` to the caller and waits for its acknowledgement.
    public func accept(answer sdp: String) async throws(Failure) {
        let (sid, peer) = state.withLock { ($0.sid, $0.peer) }
        guard let sid, let peer else { throw Failure("no call to accept") }
        let jingle: XML.Element
        do {
            jingle = try Jingle.element(
                action: "session-accept", sid: sid, initiator: peer.description,
                responder: client.jid.description, sdp: sdp, role: .responder)
        } catch { throw Failure("cannot describe the answer in Jingle: \(error.description)") }
        let reply = await client.request(XMPPStanza.iq("set", to: peer.description, payload: jingle))
        guard let reply else { throw Failure("\(peer) did not acknowledge session-accept") }
        guard reply[attribute: "type"] == "result" else { throw Failure("\(peer) refused session-accept: \(Self.describeError(reply))") }
        flushCandidates(established: true)
    }

    // MARK: Both

    /// Trickles a local candidate (held back until the other side has the session).
    public func sendCandidate(_ candidate: Candidate) {
        let send = state.withLock { s -> Bool in
            if s.established { return true }
            s.queued.append(candidate)
            return false
        }
        if send { transportInfo(candidate) }
    }

    func flushCandidates(established: Bool) {
        let queued = state.withLock { s in
            s.established = established
            defer { s.queued = [] }
            return s.queued
        }
        for c in queued { transportInfo(c) }
    }

    private func transportInfo(_ candidate: Candidate) {
        let (sid, peer) = state.withLock { ($0.sid, $0.peer) }
        guard let sid, let peer else { return }
        let initiator = role == .caller ? client.jid.description : peer.description
        guard
            let jingle = try? Jingle.transportInfo(
                sid: sid, initiator: initiator, creator: .initiator, mid: candidate.mid,
                candidate: candidate.candidate, ufrag: nil, pwd: nil)
        else {
            return logger.warning("cannot describe candidate '\(candidate.candidate)' in Jingle")
        }
        // Acknowledged or not, the next candidate goes: a lost one is no reason to stop.
        let client = self.client
        Task { _ = await client.request(XMPPStanza.iq("set", to: peer.description, payload: jingle)) }
    }

    /// Ends the call with `session-terminate` (reason `success` unless given), then the
    /// stream.
    public func terminate(reason: String = "success") async {
        let (sid, peer, ended) = state.withLock { s -> (String?, JID?, Bool) in
            defer { s.ended = true }
            return (s.sid, s.peer, s.ended)
        }
        if !ended, let sid, let peer {
            let initiator = role == .caller ? client.jid.description : peer.description
            let jingle = XML.Element(
                "jingle", namespace: Jingle.namespace,
                attributes: [("action", "session-terminate"), ("sid", sid), ("initiator", initiator)],
                children: [XML.Element("reason", namespace: Jingle.namespace, children: [XML.Element(reason, namespace: Jingle.namespace)])])
            _ = await client.request(XMPPStanza.iq("set", to: peer.description, payload: jingle), timeout: 2)
        }
        resolveProposal(.failure(Failure("the call ended")))
        await client.close()
        reader.withLock { $0?.cancel() }
    }

    /// Callee: ends the call just offered with `session-terminate` (`reason`, `text`) and
    /// waits for the next one.
    public func reject(reason: String, text: String) async {
        let (sid, peer) = state.withLock { s -> (String?, JID?) in
            defer {
                s.sid = nil
                s.peer = nil
                s.queued = []
                s.established = false
            }
            return (s.sid, s.peer)
        }
        guard let sid, let peer else { return }
        var reasonElement = XML.Element("reason", namespace: Jingle.namespace, children: [XML.Element(reason, namespace: Jingle.namespace)])
        reasonElement.children.append(XML.Element("text", namespace: Jingle.namespace, text: text))
        let jingle = XML.Element(
            "jingle", namespace: Jingle.namespace,
            attributes: [("action", "session-terminate"), ("sid", sid), ("initiator", peer.description)],
            children: [reasonElement])
        state.withLock { $0.refused["session-terminate " + reason, default: 0] += 1 }
        _ = await client.request(XMPPStanza.iq("set", to: peer.description, payload: jingle), timeout: 5)
    }

    static func describeError(_ reply: XML.Element) -> String {
        var words = XMPPStanza.condition(of: reply) ?? "error"
        if let app = XMPPStanza.applicationCondition(of: reply) { words += " (\(app))" }
        if let text = XMPPStanza.errorText(of: reply), !text.isEmpty { words += ": \(text.prefix(200))" }
        return words
    }

    // MARK: Incoming stanzas

    private func handle(_ stanza: XML.Element) {
        switch stanza.name {
        case "iq": handleIQ(stanza)
        case "message": handleMessage(stanza)
        default: break
        }
    }

    func refuse(_ iq: XML.Element, _ type: String, _ condition: String, jingle: String? = nil, text: String) {
        state.withLock { $0.refused[condition, default: 0] += 1 }
        let app = jingle.map { XML.Element($0, namespace: JingleErrors.namespace) }
        client.send(XMPPStanza.error(for: iq, type: type, condition: condition, application: app, text: text))
    }
}

/// XEP-0353 Jingle Message Initiation.
public enum JingleMessage {
    /// The namespace of `propose`, `proceed`, `reject` and `retract`.
    public static let namespace = "urn:xmpp:jingle-message:0"
}

/// XEP-0166's error conditions.
public enum JingleErrors {
    /// The namespace of Jingle's application error conditions (`unknown-session`, `out-of-order`, …).
    public static let namespace = "urn:xmpp:jingle:errors:1"
}
