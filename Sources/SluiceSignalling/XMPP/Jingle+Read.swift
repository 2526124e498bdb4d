/// Jingle → SDP, and candidates both ways.
extension Jingle {
    /// The SDP a `<jingle>` element describes, as `role` wrote it, ready for webrtcbin.
    /// Throws on contents that cannot be an SDP: none at all, unknown media or transports,
    /// bad payload type ids, too many of anything, or values that would inject SDP lines.
    public static func sdp(from jingle: XML.Element, role: Role) throws(Failure) -> String {
        let contents = jingle.children("content", namespace: namespace)
        guard !contents.isEmpty else { throw Failure("the Jingle element has no content") }
        guard contents.count <= maxContents else { throw Failure("\(contents.count) contents (at most \(maxContents))") }
        var lines = ["v=0", "o=- \(UInt64.random(in: 1...UInt64(Int64.max))) 2 IN IP4 0.0.0.0", "s=-", "t=0 0"]
        for group in jingle.children("group", namespace: grouping) {
            let semantics = try clean(group[attribute: "semantics"] ?? "BUNDLE", "group semantics")
            let names = try group.children("content").map { (c: XML.Element) throws(Failure) -> String in try token(c[attribute: "name"], "group content name")
            }
            lines.append("a=group:\(semantics) \(names.joined(separator: " "))")
        }
        lines.append("a=ice-options:trickle")
        lines.append("a=msid-semantic: WMS *")
        var seen = Set<String>()
        for content in contents {
            let m = try section(content, role: role)
            guard let mid = m.mid, seen.insert(mid).inserted else { throw Failure("two contents are named '\(m.mid ?? "")'") }
            lines += m.lines
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    private static func section(_ content: XML.Element, role: Role) throws(Failure) -> SDPMedia {
        let name = try token(content[attribute: "name"], "content name")
        let transport = content.child("transport", namespace: iceUDP)
        guard let transport else {
            if content.child("transport") != nil { throw Failure("content '\(name)': only the ICE-UDP transport (XEP-0176) is supported") }
            throw Failure("content '\(name)' has no transport")
        }
        let description = content.child("description")
        let sctp =
            transport.child("sctpmap", namespace: sctpMap)?[attribute: "number"]
            ?? transport.child("sctp-port", namespace: sctpPort).map(\.text)
        var m: SDPMedia
        if description?.namespace == dataChannel || (description == nil && sctp != nil) {
            m = SDPMedia(media: "application", proto: "UDP/DTLS/SCTP", formats: ["webrtc-datachannel"])
            m.sctpPort = try digits(sctp ?? "5000", "sctp port")
            if let size = transport.child("max-message-size", namespace: sctpPort)?.text { m.maxMessageSize = try digits(size, "max-message-size") }
        } else if let description, description.namespace == rtp {
            let media = description[attribute: "media"] ?? ""
            guard ["audio", "video"].contains(media) else { throw Failure("content '\(name)': unknown media '\(media.prefix(20))'") }
            m = SDPMedia(media: media, proto: "UDP/TLS/RTP/SAVPF", formats: [])
            try readDescription(description, into: &m, content: name, role: role)
        } else {
            throw Failure("content '\(name)' has no RTP (XEP-0167) or data channel (XEP-0343) description")
        }
        m.mid = name
        m.direction = direction(content[attribute: "senders"], role: role)
        if let ufrag = transport[attribute: "ufrag"] { m.ufrag = try token(ufrag, "ufrag") }
        if let pwd = transport[attribute: "pwd"] { m.pwd = try token(pwd, "pwd") }
        if let fp = transport.child("fingerprint", namespace: dtls) ?? transport.child("fingerprint") {
            m.fingerprint = (try token(fp[attribute: "hash"], "fingerprint hash"), try token(fp.text.trimmingCharacters(in: .whitespaces), "fingerprint"))
            if let setup = fp[attribute: "setup"] {
                guard ["actpass", "active", "passive", "holdconn"].contains(setup) else { throw Failure("fingerprint setup '\(setup.prefix(20))'") }
                m.setup = setup
            }
        }
        let candidates = transport.children("candidate")
        guard candidates.count <= maxCandidates else { throw Failure("content '\(name)': \(candidates.count) candidates (at most \(maxCandidates))") }
        m.candidates = try candidates.map { (c: XML.Element) throws(Failure) -> String in try candidateLine(c) }
        return m
    }

    /// One `<payload-type>`: its rtpmap, fmtp parameters and per-payload feedback.
    private static func readPayloadType(_ p: XML.Element, into m: inout SDPMedia, content: String) throws(Failure) {
        guard let idText = p[attribute: "id"], let id = Int(idText), (0...127).contains(id) else {
            throw Failure("content '\(content)': payload type id '\(p[attribute: "id"]?.prefix(12) ?? "none")' is not 0–127")
        }
        let pt = String(id)
        guard !m.formats.contains(pt) else { throw Failure("content '\(content)': payload type \(pt) twice") }
        m.formats.append(pt)
        if let name = p[attribute: "name"] {
            let clock = p[attribute: "clockrate"] ?? (m.media == "audio" ? "8000" : "90000")
            let channels = p[attribute: "channels"].flatMap { $0 == "1" ? nil : $0 }
            m.rtpmaps[pt] = (
                try token(name, "codec name"), try digits(clock, "clockrate"),
                try channels.map { (c: String) throws(Failure) -> String in try digits(c, "channels") }
            )
        }
        let parameters = p.children("parameter")
        guard parameters.count <= maxParameters else { throw Failure("payload type \(pt): \(parameters.count) parameters") }
        var fmtp: [String] = []
        for parameter in parameters {
            let key = try clean(parameter[attribute: "name"] ?? "", "parameter name")
            let value = try clean(parameter[attribute: "value"] ?? "", "parameter value")
            fmtp.append(key.isEmpty ? value : "\(key)=\(value)")
        }
        if !fmtp.isEmpty { m.fmtps[pt] = fmtp.joined(separator: ";") }
        for fb in p.children("rtcp-fb", namespace: rtcpFB) {
            m.rtcpFB.append(
                (
                    pt, try token(fb[attribute: "type"], "rtcp-fb type"),
                    try fb[attribute: "subtype"].map { (s: String) throws(Failure) -> String in try token(s, "rtcp-fb subtype") }
                ))
        }
    }

    private static func readDescription(_ d: XML.Element, into m: inout SDPMedia, content: String, role: Role) throws(Failure) {
        let payloads = d.children("payload-type", namespace: rtp)
        guard !payloads.isEmpty else { throw Failure("content '\(content)' offers no payload type") }
        guard payloads.count <= maxPayloadTypes else { throw Failure("content '\(content)': \(payloads.count) payload types") }
        for p in payloads { try readPayloadType(p, into: &m, content: content) }
        for fb in d.children("rtcp-fb", namespace: rtcpFB) {
            m.rtcpFB.append(
                (
                    "*", try token(fb[attribute: "type"], "rtcp-fb type"),
                    try fb[attribute: "subtype"].map { (s: String) throws(Failure) -> String in try token(s, "rtcp-fb subtype") }
                ))
        }
        for e in d.children("rtp-hdrext", namespace: hdrext).prefix(maxParameters) {
            let id = try digits(e[attribute: "id"] ?? "", "rtp-hdrext id")
            let dir = e[attribute: "senders"].map { direction($0, role: role) }
            m.extmaps.append((id, try token(e[attribute: "uri"], "rtp-hdrext uri"), dir == "sendrecv" ? nil : dir))
        }
        m.extmapAllowMixed = d.child("extmap-allow-mixed") != nil
        for s in d.children("source", namespace: ssma).prefix(maxParameters) {
            let ssrc = try digits(s[attribute: "ssrc"] ?? "", "ssrc")
            let parameters = s.children("parameter")
            if parameters.isEmpty { m.ssrcs.append((ssrc, "cname", "sluice")) }
            for p in parameters.prefix(8) {
                let value = try p[attribute: "value"].map { (v: String) throws(Failure) -> String in try clean(v, "source parameter") }
                m.ssrcs.append((ssrc, try token(p[attribute: "name"], "source parameter name"), value))
            }
        }
        for g in d.children("ssrc-group", namespace: ssma).prefix(maxParameters) {
            let ssrcs = try g.children("source").prefix(8).map { (s: XML.Element) throws(Failure) -> String in try digits(s[attribute: "ssrc"] ?? "", "ssrc") }
            m.ssrcGroups.append((try token(g[attribute: "semantics"], "ssrc-group semantics"), ssrcs))
        }
        // WebRTC requires rtcp-mux (RFC 8834); a peer that leaves <rtcp-mux/> out muxes all the same.
        m.rtcpMux = true
        m.rtcpRsize = d.child("rtcp-rsize") != nil
    }

    // MARK: Candidates

    /// A `transport-info` for one trickled candidate of content `mid`.
    public static func transportInfo(
        sid: String, initiator: String?, creator: Role, mid: String, candidate: String,
        ufrag: String?, pwd: String?
    ) throws(Failure) -> XML.Element {
        var transport = XML.Element("transport", namespace: iceUDP, children: [try candidateElement(candidate)])
        if let ufrag { transport[attribute: "ufrag"] = ufrag }
        if let pwd { transport[attribute: "pwd"] = pwd }
        var attributes = [("action", "transport-info"), ("sid", sid)]
        if let initiator { attributes.append(("initiator", initiator)) }
        return XML.Element(
            "jingle", namespace: namespace, attributes: attributes,
            children: [
                XML.Element("content", namespace: namespace, attributes: [("creator", creator.rawValue), ("name", mid)], children: [transport])
            ])
    }

    /// Every candidate a `<jingle>` element carries, as (content name, `candidate:…`).
    /// Candidates that cannot be read are left out.
    public static func candidates(in jingle: XML.Element) -> [(mid: String, candidate: String)] {
        var out: [(mid: String, candidate: String)] = []
        for content in jingle.children("content").prefix(maxContents) {
            guard let name = content[attribute: "name"], let transport = content.child("transport", namespace: iceUDP) else { continue }
            for c in transport.children("candidate").prefix(maxCandidates) {
                if let line = try? candidateLine(c) { out.append((name, line)) }
            }
        }
        return out
    }

    /// `candidate:F C PROTO PRIO IP PORT typ T [raddr A rport P] [tcptype X] [generation G]`
    /// as XEP-0176's `<candidate/>`.
    static func candidateElement(_ text: String) throws(Failure) -> XML.Element {
        var t = Substring(text)
        if t.hasPrefix("a=") { t = t.dropFirst(2) }
        if t.hasPrefix("candidate:") { t = t.dropFirst(10) }
        let w = t.split(separator: " ").map(String.init)
        guard w.count >= 8, w[6] == "typ" else { throw Failure("not an ICE candidate: '\(text.prefix(80))'") }
        var attributes = [
            ("foundation", w[0]), ("component", w[1]), ("protocol", w[2].lowercased()), ("priority", w[3]),
            ("ip", w[4]), ("port", w[5]), ("type", w[7]), ("generation", "0")
        ]
        var i = 8
        while i + 1 < w.count {
            switch w[i] {
            case "raddr": attributes.append(("rel-addr", w[i + 1]))
            case "rport": attributes.append(("rel-port", w[i + 1]))
            case "tcptype": attributes.append(("tcptype", w[i + 1]))
            case "generation": attributes[7] = ("generation", w[i + 1])
            case "network-id": attributes.append(("network", w[i + 1]))
            default: break
            }
            i += 2
        }
        attributes.append(("id", "c" + String(UInt32.random(in: 0...UInt32.max), radix: 36)))
        return XML.Element("candidate", namespace: iceUDP, attributes: attributes)
    }

    /// XEP-0176's `<candidate/>` as `candidate:…`, every field checked.
    static func candidateLine(_ c: XML.Element) throws(Failure) -> String {
        let foundation = try token(c[attribute: "foundation"], "candidate foundation")
        let component = try digits(c[attribute: "component"] ?? "", "candidate component")
        let proto = try token(c[attribute: "protocol"], "candidate protocol").uppercased()
        let priority = try digits(c[attribute: "priority"] ?? "", "candidate priority")
        let ip = try token(c[attribute: "ip"], "candidate ip")
        let port = try digits(c[attribute: "port"] ?? "", "candidate port")
        let type = try token(c[attribute: "type"], "candidate type")
        guard ["host", "srflx", "prflx", "relay"].contains(type) else { throw Failure("candidate type '\(type.prefix(12))'") }
        var line = "candidate:\(foundation) \(component) \(proto) \(priority) \(ip) \(port) typ \(type)"
        if let a = c[attribute: "rel-addr"], let p = c[attribute: "rel-port"] {
            line += " raddr \(try token(a, "rel-addr")) rport \(try digits(p, "rel-port"))"
        }
        if let t = c[attribute: "tcptype"] { line += " tcptype \(try token(t, "tcptype"))" }
        if let g = c[attribute: "generation"] { line += " generation \(try digits(g, "generation"))" }
        return line
    }

    // MARK: Checked values

    /// A value that goes into SDP: no CR, LF or NUL, at most 1024 bytes.
    static func clean(_ value: String, _ what: String) throws(Failure) -> String {
        guard value.utf8.count <= 1024, !value.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" || $0 == "\r\n" }) else {
            throw Failure("\(what) '\(value.prefix(40).debugDescription)' holds a line break or is too long")
        }
        return value
    }

    /// A present, non-empty value without spaces or line breaks.
    static func token(_ value: String?, _ what: String) throws(Failure) -> String {
        guard let value, !value.isEmpty else { throw Failure("missing \(what)") }
        let v = try clean(value, what)
        guard !v.contains(where: { $0 == " " || $0 == "\t" }) else { throw Failure("\(what) '\(v.prefix(40))' holds a space") }
        return v
    }

    static func digits(_ value: String, _ what: String) throws(Failure) -> String {
        guard !value.isEmpty, value.count <= 10, value.allSatisfy(\.isASCIIDigit) else {
            throw Failure("\(what) '\(value.prefix(20).debugDescription)' is not a number")
        }
        return value
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
