import Foundation

/// SDP ⇄ Jingle: XEP-0166 sessions carrying XEP-0167 RTP descriptions (XEP-0293 rtcp-fb,
/// XEP-0294 header extensions, XEP-0339 sources), XEP-0176 ICE-UDP transports with
/// XEP-0320 DTLS fingerprints, XEP-0338 BUNDLE groups, and XEP-0343 data channels.
public enum Jingle {
    /// Jingle's namespace (XEP-0166).
    public static let namespace = "urn:xmpp:jingle:1"
    static let rtp = "urn:xmpp:jingle:apps:rtp:1"
    static let rtcpFB = "urn:xmpp:jingle:apps:rtp:rtcp-fb:0"
    static let hdrext = "urn:xmpp:jingle:apps:rtp:rtp-hdrext:0"
    static let ssma = "urn:xmpp:jingle:apps:rtp:ssma:0"
    static let iceUDP = "urn:xmpp:jingle:transports:ice-udp:1"
    static let dtls = "urn:xmpp:jingle:apps:dtls:0"
    static let grouping = "urn:xmpp:jingle:apps:grouping:0"
    static let dataChannel = "urn:xmpp:jingle:apps:webrtc-datachannel:0"
    static let sctpMap = "urn:xmpp:jingle:transports:dtls-sctp:1"
    static let sctpPort = "urn:xmpp:jingle:transports:webrtc-datachannel:1"

    /// Who wrote a description: the session's initiator (offer) or responder (answer).
    public enum Role: String, Sendable { case initiator, responder }

    /// A Jingle element that cannot be turned into SDP, or SDP that cannot be written as Jingle.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What is missing or wrong.
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// Bounds on what a peer may send (contents, payload types, candidates, …).
    static let maxContents = 64, maxPayloadTypes = 128, maxCandidates = 64, maxParameters = 64

    /// A `<jingle>` element for `action` (`session-initiate`, `session-accept`) describing
    /// `sdp`, written by `role`.
    public static func element(
        action: String, sid: String, initiator: String?, responder: String?,
        sdp: String, role: Role
    ) throws(Failure) -> XML.Element {
        let (session, sections) = SDPMedia.parse(sdp)
        guard !sections.isEmpty else { throw Failure("the SDP has no media sections") }
        var attributes = [("action", action), ("sid", sid)]
        if let initiator { attributes.append(("initiator", initiator)) }
        if let responder { attributes.append(("responder", responder)) }
        var jingle = XML.Element("jingle", namespace: namespace, attributes: attributes)
        for (index, m) in sections.enumerated() {
            jingle.children.append(content(m, name: m.mid ?? String(index), role: role))
        }
        for line in session where line.hasPrefix("a=group:") {
            let words = line.dropFirst(8).split(separator: " ").map(String.init)
            guard let semantics = words.first else { continue }
            jingle.children.append(
                XML.Element(
                    "group", namespace: grouping, attributes: [("semantics", semantics)],
                    children: words.dropFirst().map { XML.Element("content", namespace: grouping, attributes: [("name", $0)]) }))
        }
        return jingle
    }

    static func senders(_ direction: String?, role: Role) -> String {
        switch (direction ?? "sendrecv", role) {
        case ("sendonly", .initiator), ("recvonly", .responder): "initiator"
        case ("recvonly", .initiator), ("sendonly", .responder): "responder"
        case ("inactive", _): "none"
        default: "both"
        }
    }

    static func direction(_ senders: String?, role: Role) -> String {
        switch (senders ?? "both", role) {
        case ("initiator", .initiator), ("responder", .responder): "sendonly"
        case ("initiator", .responder), ("responder", .initiator): "recvonly"
        case ("none", _): "inactive"
        default: "sendrecv"
        }
    }

    /// One `<content>` for an SDP media section: its description and its transport.
    private static func content(_ m: SDPMedia, name: String, role: Role) -> XML.Element {
        let description = m.isApplication ? XML.Element("description", namespace: dataChannel) : rtpDescription(m, role: role)
        return XML.Element(
            "content", namespace: namespace,
            attributes: [("creator", "initiator"), ("name", name), ("senders", senders(m.direction, role: role))],
            children: [description, transport(m)])
    }

    /// The XEP-0167 `<description>` of an audio or video section: payload types with their
    /// parameters and feedback, header extensions, sources and their groups, rtcp-mux/rsize.
    private static func rtpDescription(_ m: SDPMedia, role: Role) -> XML.Element {
        var description = XML.Element("description", namespace: rtp, attributes: [("media", m.media)])
        for pt in m.formats.prefix(maxPayloadTypes) {
            guard let map = m.rtpmaps[pt] else { continue }
            var attributes = [("id", pt), ("name", map.name), ("clockrate", map.clock)]
            if let channels = map.channels { attributes.append(("channels", channels)) }
            var payload = XML.Element("payload-type", namespace: rtp, attributes: attributes)
            for (key, value) in fmtpParameters(m.fmtps[pt]) {
                payload.children.append(XML.Element("parameter", namespace: rtp, attributes: [("name", key), ("value", value)]))
            }
            for fb in m.rtcpFB where fb.pt == pt { payload.children.append(rtcpFeedback(fb.type, fb.subtype)) }
            description.children.append(payload)
        }
        for fb in m.rtcpFB where fb.pt == "*" { description.children.append(rtcpFeedback(fb.type, fb.subtype)) }
        for e in m.extmaps {
            var attributes = [("id", e.id), ("uri", e.uri)]
            if let d = e.direction { attributes.append(("senders", senders(d, role: role))) }
            description.children.append(XML.Element("rtp-hdrext", namespace: hdrext, attributes: attributes))
        }
        if m.extmapAllowMixed { description.children.append(XML.Element("extmap-allow-mixed", namespace: hdrext)) }
        description.children += sources(m)
        if m.rtcpMux { description.children.append(XML.Element("rtcp-mux", namespace: rtp)) }
        if m.rtcpRsize { description.children.append(XML.Element("rtcp-rsize", namespace: rtp)) }
        return description
    }

    /// XEP-0339: a `<source>` per SSRC (in the order first seen) with its `a=ssrc` attributes
    /// as parameters, then the `<ssrc-group>`s.
    private static func sources(_ m: SDPMedia) -> [XML.Element] {
        var sources: [String: XML.Element] = [:]
        var order: [String] = []
        for s in m.ssrcs {
            if sources[s.ssrc] == nil {
                sources[s.ssrc] = XML.Element("source", namespace: ssma, attributes: [("ssrc", s.ssrc)])
                order.append(s.ssrc)
            }
            var attributes = [("name", s.attribute)]
            if let v = s.value { attributes.append(("value", v)) }
            sources[s.ssrc]?.children.append(XML.Element("parameter", namespace: ssma, attributes: attributes))
        }
        let groups = m.ssrcGroups.map { g in
            XML.Element(
                "ssrc-group", namespace: ssma, attributes: [("semantics", g.semantics)],
                children: g.ssrcs.map { XML.Element("source", namespace: ssma, attributes: [("ssrc", $0)]) })
        }
        return order.compactMap { sources[$0] } + groups
    }

    /// The XEP-0176 `<transport>`: ICE credentials, the DTLS fingerprint, the SCTP port of a
    /// data channel section, and the candidates.
    private static func transport(_ m: SDPMedia) -> XML.Element {
        var transport = XML.Element("transport", namespace: iceUDP)
        if let ufrag = m.ufrag { transport[attribute: "ufrag"] = ufrag }
        if let pwd = m.pwd { transport[attribute: "pwd"] = pwd }
        if let f = m.fingerprint {
            var fp = XML.Element("fingerprint", namespace: dtls, attributes: [("hash", f.hash)], text: f.value)
            if let setup = m.setup { fp[attribute: "setup"] = setup }
            transport.children.append(fp)
        }
        if let port = m.sctpPort {
            transport.children.append(
                XML.Element(
                    "sctpmap", namespace: sctpMap,
                    attributes: [("number", port), ("protocol", "webrtc-datachannel"), ("streams", "1024")]))
            transport.children.append(XML.Element("sctp-port", namespace: sctpPort, text: port))
            if let size = m.maxMessageSize { transport.children.append(XML.Element("max-message-size", namespace: sctpPort, text: size)) }
        }
        for c in m.candidates.prefix(maxCandidates) {
            if let e = try? candidateElement(c) { transport.children.append(e) }
        }
        return transport
    }

    private static func rtcpFeedback(_ type: String, _ subtype: String?) -> XML.Element {
        var e = XML.Element("rtcp-fb", namespace: rtcpFB, attributes: [("type", type)])
        if let subtype { e[attribute: "subtype"] = subtype }
        return e
    }

    /// `a=fmtp` values as key/value pairs; a value that is not `k=v;…` (RFC 2198's `96/97`)
    /// becomes one parameter with an empty name.
    static func fmtpParameters(_ fmtp: String?) -> [(String, String)] {
        guard let fmtp, !fmtp.isEmpty else { return [] }
        let items = fmtp.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard items.allSatisfy({ $0.contains("=") }) else { return [("", fmtp)] }
        return items.map { item in
            let eq = item.firstIndex(of: "=") ?? item.endIndex
            return (String(item[..<eq]), eq < item.endIndex ? String(item[item.index(after: eq)...]) : "")
        }
    }
}
