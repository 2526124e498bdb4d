/// SDP as a list of media sections, read leniently and written for webrtcbin: what the
/// Jingle translation works on. Values that would inject SDP lines (CR, LF) are refused.
struct SDPMedia: Equatable {
    var media: String
    var port: Int = 9
    var proto: String
    var formats: [String]
    var mid: String?
    var direction: String?
    var ufrag: String?
    var pwd: String?
    var fingerprint: (hash: String, value: String)?
    var setup: String?
    var rtcpMux = false
    var rtcpRsize = false
    var bundleOnly = false
    var rtpmaps: [String: (name: String, clock: String, channels: String?)] = [:]
    var fmtps: [String: String] = [:]
    var rtcpFB: [(pt: String, type: String, subtype: String?)] = []
    var extmaps: [(id: String, uri: String, direction: String?)] = []
    var extmapAllowMixed = false
    var ssrcs: [(ssrc: String, attribute: String, value: String?)] = []
    var ssrcGroups: [(semantics: String, ssrcs: [String])] = []
    var candidates: [String] = []
    var sctpPort: String?
    var maxMessageSize: String?
    /// Lines kept as they are (`a=framerate:30`, `a=msid:…`), written back unchanged.
    var other: [String] = []

    static func == (a: SDPMedia, b: SDPMedia) -> Bool { a.lines == b.lines }

    var isApplication: Bool { media == "application" }

    /// The section as SDP lines (m= first).
    var lines: [String] {
        var out = ["m=\(media) \(port) \(proto) \(formats.joined(separator: " "))", "c=IN IP4 0.0.0.0"]
        if let mid { out.append("a=mid:\(mid)") }
        if let ufrag { out.append("a=ice-ufrag:\(ufrag)") }
        if let pwd { out.append("a=ice-pwd:\(pwd)") }
        if let f = fingerprint { out.append("a=fingerprint:\(f.hash) \(f.value)") }
        if let setup { out.append("a=setup:\(setup)") }
        if bundleOnly { out.append("a=bundle-only") }
        if let direction { out.append("a=\(direction)") }
        if rtcpMux { out.append("a=rtcp-mux") }
        if rtcpRsize { out.append("a=rtcp-rsize") }
        if extmapAllowMixed { out.append("a=extmap-allow-mixed") }
        for e in extmaps { out.append("a=extmap:\(e.id)\(e.direction.map { "/\($0)" } ?? "") \(e.uri)") }
        for pt in formats where !isApplication {
            if let m = rtpmaps[pt] { out.append("a=rtpmap:\(pt) \(m.name)/\(m.clock)\(m.channels.map { "/\($0)" } ?? "")") }
            for fb in rtcpFB where fb.pt == pt { out.append("a=rtcp-fb:\(pt) \(fb.type)\(fb.subtype.map { " \($0)" } ?? "")") }
            if let f = fmtps[pt] { out.append("a=fmtp:\(pt) \(f)") }
        }
        for fb in rtcpFB where fb.pt == "*" { out.append("a=rtcp-fb:* \(fb.type)\(fb.subtype.map { " \($0)" } ?? "")") }
        for g in ssrcGroups { out.append("a=ssrc-group:\(g.semantics) \(g.ssrcs.joined(separator: " "))") }
        for s in ssrcs { out.append("a=ssrc:\(s.ssrc) \(s.attribute)\(s.value.map { ":\($0)" } ?? "")") }
        if let sctpPort { out.append("a=sctp-port:\(sctpPort)") }
        if let maxMessageSize { out.append("a=max-message-size:\(maxMessageSize)") }
        out += other
        out += candidates.map { "a=" + $0 }
        return out
    }

    /// Reads an SDP into its session-level `a=` lines and media sections. Session-level ICE
    /// credentials, fingerprint and setup apply to sections without their own.
    static func parse(_ sdp: String) -> (session: [String], media: [SDPMedia]) {
        var session: [String] = []
        var media: [SDPMedia] = []
        for raw in sdp.split(whereSeparator: \.isNewline) {
            let line = String(raw)
            if line.hasPrefix("m=") {
                let parts = line.dropFirst(2).split(separator: " ").map(String.init)
                guard parts.count >= 3 else { continue }
                media.append(SDPMedia(media: parts[0], port: Int(parts[1]) ?? 9, proto: parts[2], formats: Array(parts.dropFirst(3))))
                continue
            }
            guard line.hasPrefix("a=") else { continue }
            if media.isEmpty { session.append(line); continue }
            media[media.count - 1].read(String(line.dropFirst(2)))
        }
        for i in media.indices {
            for line in session {
                let a = line.dropFirst(2)
                if media[i].ufrag == nil, a.hasPrefix("ice-ufrag:") { media[i].ufrag = String(a.dropFirst(10)) }
                if media[i].pwd == nil, a.hasPrefix("ice-pwd:") { media[i].pwd = String(a.dropFirst(8)) }
                if media[i].setup == nil, a.hasPrefix("setup:") { media[i].setup = String(a.dropFirst(6)) }
                if media[i].fingerprint == nil, a.hasPrefix("fingerprint:") {
                    let f = a.dropFirst(12).split(separator: " ", maxSplits: 1)
                    if f.count == 2 { media[i].fingerprint = (String(f[0]), String(f[1])) }
                }
            }
        }
        return (session, media)
    }

    private mutating func read(_ a: String) {
        let (key, value) = a.firstIndex(of: ":").map { (String(a[..<$0]), String(a[a.index(after: $0)...])) } ?? (a, "")
        let words = value.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        switch key {
        case "mid": mid = value
        case "sendrecv", "sendonly", "recvonly", "inactive": direction = key
        case "ice-ufrag": ufrag = value
        case "ice-pwd": pwd = value
        case "setup": setup = value
        case "rtcp-mux": rtcpMux = true
        case "rtcp-rsize": rtcpRsize = true
        case "bundle-only": bundleOnly = true
        case "extmap-allow-mixed": extmapAllowMixed = true
        case "rtcp-mux-only", "ice-options", "end-of-candidates": break
        case "fingerprint" where words.count == 2: fingerprint = (words[0], words[1])
        case "rtpmap" where words.count == 2:
            let enc = words[1].split(separator: "/").map(String.init)
            if enc.count >= 2 { rtpmaps[words[0]] = (enc[0], enc[1], enc.count > 2 ? enc[2] : nil) }
        case "fmtp" where words.count >= 2:
            fmtps[words[0]] = String(value.drop { $0 != " " }.dropFirst())
        case "rtcp-fb" where words.count >= 2:
            rtcpFB.append((words[0], words[1], words.count > 2 ? words[2...].joined(separator: " ") : nil))
        case "extmap" where words.count >= 2:
            let id = words[0].split(separator: "/").map(String.init)
            extmaps.append((id[0], words[1], id.count > 1 ? id[1] : nil))
        case "ssrc" where words.count >= 2:
            let attr = words[1...].joined(separator: " ")
            let (name, v) = attr.firstIndex(of: ":").map { (String(attr[..<$0]), String(attr[attr.index(after: $0)...])) } ?? (attr, nil)
            ssrcs.append((words[0], name, v))
        case "ssrc-group" where words.count >= 2: ssrcGroups.append((words[0], Array(words.dropFirst())))
        case "candidate": candidates.append(a)
        case "sctp-port": sctpPort = value
        case "max-message-size": maxMessageSize = value
        case "sctpmap" where words.count >= 2: sctpPort = words[0]
        default: other.append("a=" + a)
        }
    }
}
