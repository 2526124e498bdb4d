import Foundation

/// What a call does with each stanza addressed to it.
extension JingleCall {
    /// The Jingle actions of XEP-0166 this side knows but does not act on (answered with
    /// `feature-not-implemented` + `unsupported-info`).
    static let knownActions: Set<String> = [
        "content-accept", "content-add", "content-modify", "content-reject", "content-remove", "description-info",
        "security-info", "session-accept", "session-info", "session-initiate", "session-terminate", "transport-accept",
        "transport-info", "transport-reject", "transport-replace"
    ]

    func handleIQ(_ iq: XML.Element) {
        let type = iq[attribute: "type"] ?? ""
        guard type == "set" || type == "get" else { return }
        guard let jingle = iq.child("jingle", namespace: Jingle.namespace) else {
            return answerOther(iq)
        }
        guard let action = jingle[attribute: "action"], let sid = jingle[attribute: "sid"], !sid.isEmpty else {
            return refuse(iq, "modify", "bad-request", text: "a jingle element needs an action and a sid")
        }
        guard let from = iq[attribute: "from"].flatMap(JID.init) else {
            return refuse(iq, "modify", "bad-request", text: "no sender")
        }
        guard Self.knownActions.contains(action) else {
            return refuse(iq, "modify", "bad-request", jingle: "unsupported-info", text: "unknown Jingle action '\(action.prefix(40))'")
        }
        if action == "session-initiate" { return initiate(iq, jingle, sid: sid, from: from) }
        let (current, peer) = state.withLock { ($0.sid, $0.peer) }
        guard sid == current, let peer, from == peer else {
            return refuse(iq, "cancel", "item-not-found", jingle: "unknown-session", text: "no session \(sid.prefix(64)) with \(from)")
        }
        switch action {
        case "session-accept":
            guard role == .caller, !state.withLock({ $0.accepted }) else {
                return refuse(iq, "cancel", "unexpected-request", jingle: "out-of-order", text: "session-accept is for the session's initiator, once")
            }
            let sdp: String
            do { sdp = try Jingle.sdp(from: jingle, role: .responder) } catch {
                refuse(iq, "modify", "bad-request", text: "cannot read the session-accept: \(error.description)")
                sink.yield(.failed("\(from)'s session-accept cannot be read: \(error.description)"))
                return
            }
            state.withLock { $0.accepted = true }
            client.send(XMPPStanza.result(for: iq))
            sink.yield(.answer(sdp: sdp))
            flushCandidates(established: true)
        case "transport-info":
            client.send(XMPPStanza.result(for: iq))
            let found = Jingle.candidates(in: jingle).map { Candidate(mid: $0.mid, candidate: $0.candidate) }
            if !found.isEmpty { sink.yield(.candidates(found)) }
        case "session-terminate":
            client.send(XMPPStanza.result(for: iq))
            let reason = jingle.child("reason")
            var words = reason?.children.first { $0.name != "text" }?.name ?? "no reason given"
            if let text = reason?.child("text")?.text, !text.isEmpty { words += ": \(text.prefix(200))" }
            state.withLock { $0.ended = true }
            sink.yield(.terminated(reason: words))
        case "session-info":
            // Empty (a ping) or XEP-0167's informational payloads: acknowledged.
            let informational: Set<String> = ["active", "hold", "unhold", "mute", "unmute", "ringing"]
            if jingle.children.allSatisfy({ informational.contains($0.name) }) {
                client.send(XMPPStanza.result(for: iq))
            } else {
                refuse(iq, "modify", "feature-not-implemented", jingle: "unsupported-info", text: "session-info payload not understood")
            }
        default:
            refuse(iq, "modify", "feature-not-implemented", jingle: "unsupported-info", text: "Sluice does not act on \(action)")
        }
    }

    private func initiate(_ iq: XML.Element, _ jingle: XML.Element, sid: String, from: JID) {
        guard role == .callee else {
            return refuse(iq, "cancel", "service-unavailable", text: "this peer calls out; it does not take calls")
        }
        if let allow, !allow.contains(from.bare) {
            logger.warning("refused a call from \(from): not on the allow list")
            return refuse(iq, "auth", "forbidden", text: "\(from.bare) may not call this peer")
        }
        let busy = state.withLock { $0.sid != nil && $0.sid != sid }
        if busy {
            // XEP-0166 §6.3.2: acknowledge, then terminate with <busy/>.
            client.send(XMPPStanza.result(for: iq))
            let terminate = XML.Element(
                "jingle", namespace: Jingle.namespace,
                attributes: [("action", "session-terminate"), ("sid", sid)],
                children: [XML.Element("reason", namespace: Jingle.namespace, children: [XML.Element("busy", namespace: Jingle.namespace)])])
            let client = self.client
            Task { _ = await client.request(XMPPStanza.iq("set", to: from.description, payload: terminate), timeout: 5) }
            return
        }
        let sdp: String
        do { sdp = try Jingle.sdp(from: jingle, role: .initiator) } catch {
            return refuse(iq, "modify", "bad-request", text: "cannot read the session-initiate: \(error.description)")
        }
        state.withLock {
            $0.sid = sid
            $0.peer = from
        }
        client.send(XMPPStanza.result(for: iq))
        sink.yield(.offer(sdp: sdp, from: from))
        let carried = Jingle.candidates(in: jingle).map { Candidate(mid: $0.mid, candidate: $0.candidate) }
        if !carried.isEmpty { sink.yield(.candidates(carried)) }
    }

    /// Non-Jingle IQs: XMPP ping answered, everything else `service-unavailable`.
    private func answerOther(_ iq: XML.Element) {
        if iq.child("ping", namespace: "urn:xmpp:ping") != nil { return client.send(XMPPStanza.result(for: iq)) }
        if let query = iq.child("query", namespace: "http://jabber.org/protocol/disco#info") {
            var result = XMPPStanza.result(for: iq)
            let features = [
                "http://jabber.org/protocol/disco#info", "urn:xmpp:ping", Jingle.namespace, "urn:xmpp:jingle:apps:rtp:1",
                "urn:xmpp:jingle:apps:rtp:audio", "urn:xmpp:jingle:apps:rtp:video", "urn:xmpp:jingle:transports:ice-udp:1",
                "urn:xmpp:jingle:apps:dtls:0", "urn:xmpp:jingle:apps:grouping:0", JingleMessage.namespace
            ]
            result.children = [
                XML.Element(
                    "query", namespace: query.namespace,
                    children: [
                        XML.Element("identity", namespace: query.namespace, attributes: [("category", "client"), ("type", "pc"), ("name", "Sluice")])
                    ] + features.map { XML.Element("feature", namespace: query.namespace, attributes: [("var", $0)]) })
            ]
            return client.send(result)
        }
        refuse(iq, "cancel", "service-unavailable", text: "not supported by Sluice")
    }

    /// XEP-0353: a callee proceeds on a proposal from an allowed peer; a caller learns which
    /// device took its proposal.
    func handleMessage(_ message: XML.Element) {
        guard let from = message[attribute: "from"].flatMap(JID.init), !from.isBare else { return }
        let ns = [JingleMessage.namespace, "urn:xmpp:jingle-message:1"]
        if let propose = message.children.first(where: { $0.name == "propose" && ns.contains($0.namespace ?? "") }),
            let id = propose[attribute: "id"], role == .callee
        {
            let allowed = allow.map { $0.contains(from.bare) } ?? true
            let idle = state.withLock { $0.sid == nil }
            let reply = XML.Element(allowed && idle ? "proceed" : "reject", namespace: propose.namespace, attributes: [("id", id)])
            client.send(
                XML.Element(
                    "message", namespace: XMPPNamespace.client,
                    attributes: [("to", from.description), ("type", "chat"), ("id", client.nextID())],
                    children: [reply, XML.Element("store", namespace: "urn:xmpp:hints")]))
            return
        }
        guard role == .caller, let answer = message.children.first(where: { ["proceed", "reject"].contains($0.name) && ns.contains($0.namespace ?? "") }),
            let id = answer[attribute: "id"], state.withLock({ $0.proposalID == id })
        else { return }
        if answer.name == "proceed" {
            resolveProposal(.success(from))
        } else {
            resolveProposal(.failure(Failure("\(from.bare) declined the call (XEP-0353 reject)")))
        }
    }
}
