/// The media sections of an SDP, parsed as far as negotiation needs: payload types with
/// their codec, parameters and feedback, RTX pairs, header extensions, direction, MID and
/// SSRCs. Plain text parsing (no GStreamer), bounded against hostile input.
public struct SDPSession: Sendable, Equatable {
    /// The `m=` sections, in order.
    public var media: [SDPMediaDescription]
    /// Mids of the `a=group:BUNDLE` line.
    public var bundleGroup: [String]

    /// Parses `sdp`. Unknown lines are ignored; malformed ones are skipped, never trusted.
    public init(_ sdp: String) {
        var media: [SDPMediaDescription] = []
        var bundle: [String] = []
        for raw in sdp.split(whereSeparator: \.isNewline) {
            let line = Substring(raw)
            if line.hasPrefix("m=") {
                media.append(SDPMediaDescription(mLine: line.dropFirst(2)))
            } else if media.isEmpty {
                if line.hasPrefix("a=group:BUNDLE") {
                    bundle = line.dropFirst("a=group:BUNDLE".count).split(separator: " ").map(String.init)
                }
            } else {
                media[media.count - 1].add(attribute: line)
            }
        }
        self.media = media
        bundleGroup = bundle
    }
}

/// One `m=` section.
public struct SDPMediaDescription: Sendable, Equatable {
    /// One payload type of the section.
    public struct Format: Sendable, Equatable {
        /// The payload type number.
        public var payloadType: Int
        /// Upper-cased encoding name (`VP8`, `H264`, `OPUS`, `RTX`).
        public var encoding: String = ""
        /// The RTP clock rate from `a=rtpmap` (90000 for video).
        public var clockRate: Int = 0
        /// The channel count from `a=rtpmap`, if given (audio).
        public var channels: Int?
        /// `a=fmtp` parameters, keys lower-cased.
        public var parameters: [String: String] = [:]
        /// `a=rtcp-fb` values (`nack`, `nack pli`, `ccm fir`, `goog-remb`, `transport-cc`).
        public var feedback: [String] = []
        /// For RTX: the payload type it repairs (`apt`).
        public var associatedPayloadType: Int? { parameters["apt"].flatMap { Int($0) } }
    }

    /// `video`, `audio`, `application`.
    public var kind: String
    /// The m-line's port; 0 means the section was rejected (or is bundle-only).
    public var port: Int
    /// The transport protocol (`UDP/TLS/RTP/SAVPF`).
    public var proto: String
    /// Payload types in the m-line's order (preference order).
    public var formats: [Format]
    /// `sendrecv`, `sendonly`, `recvonly`, `inactive`.
    public var direction = "sendrecv"
    /// The section's `a=mid`, if it has one.
    public var mid: String?
    /// Header extensions: id → URI.
    public var extensions: [Int: String] = [:]
    /// `a=ssrc:` ids, in order of appearance, without duplicates.
    public var ssrcs: [UInt32] = []
    /// Whether the section has an `a=ssrc-group` line (e.g. `FID` pairing RTX).
    public var hasSSRCGroup = false
    /// `a=msid:` value, if any.
    public var msid: String?

    /// The most payload types one section may declare (RFC 3551 allows 128).
    public static let maxFormats = 128

    init(mLine: Substring) {
        let parts = mLine.split(separator: " ")
        kind = parts.first.map(String.init) ?? ""
        port = parts.count > 1 ? Int(parts[1].split(separator: "/").first ?? "") ?? 0 : 0
        proto = parts.count > 2 ? String(parts[2]) : ""
        formats = parts.dropFirst(3).prefix(Self.maxFormats).compactMap { Int($0) }
            .filter { (0...127).contains($0) }.map { Format(payloadType: $0) }
    }

    mutating func add(attribute line: Substring) {
        guard line.hasPrefix("a=") else { return }
        let body = line.dropFirst(2)
        let name = body.prefix { $0 != ":" }
        let value = body.count > name.count ? body.dropFirst(name.count + 1) : ""
        switch name {
        case "sendrecv", "sendonly", "recvonly", "inactive": direction = String(name)
        case "mid": mid = String(value.prefix(64))
        case "msid": msid = String(value.prefix(128))
        case "rtpmap":
            guard let (pt, rest) = Self.payloadValue(value), let i = formats.firstIndex(where: { $0.payloadType == pt }) else { return }
            let codec = rest.split(separator: "/")
            formats[i].encoding = codec.first.map { String($0.prefix(32)).uppercased() } ?? ""
            formats[i].clockRate = codec.count > 1 ? Int(codec[1]) ?? 0 : 0
            formats[i].channels = codec.count > 2 ? Int(codec[2]) : nil
        case "fmtp":
            guard let (pt, rest) = Self.payloadValue(value), let i = formats.firstIndex(where: { $0.payloadType == pt }) else { return }
            for pair in rest.split(separator: ";").prefix(32) {
                let kv = pair.split(separator: "=", maxSplits: 1)
                guard let k = kv.first else { continue }
                formats[i].parameters[k.trimmingSpaces.lowercased()] = kv.count > 1 ? String(kv[1].trimmingSpaces.prefix(256)) : ""
            }
        case "rtcp-fb":
            guard let (pt, rest) = Self.payloadValue(value), let i = formats.firstIndex(where: { $0.payloadType == pt }),
                formats[i].feedback.count < 16
            else { return }
            formats[i].feedback.append(String(rest.prefix(64)).lowercased())
        case "extmap":
            let parts = value.split(separator: " ")
            guard parts.count >= 2, let id = Int(parts[0].split(separator: "/").first ?? ""), (1...255).contains(id),
                extensions.count < 32
            else { return }
            extensions[id] = String(parts[1].prefix(256))
        case "ssrc":
            guard let id = UInt32(value.prefix { $0 != " " }), !ssrcs.contains(id), ssrcs.count < 64 else { return }
            ssrcs.append(id)
        case "ssrc-group": hasSSRCGroup = true
        default: break
        }
    }

    /// `<pt> <rest>` of rtpmap/fmtp/rtcp-fb values.
    private static func payloadValue(_ value: Substring) -> (Int, Substring)? {
        guard let space = value.firstIndex(of: " "), let pt = Int(value[..<space]) else { return nil }
        return (pt, value[value.index(after: space)...])
    }

    /// The header extension id of `uri`, if the section offers it.
    public func extensionID(_ uri: String) -> Int? {
        extensions.filter { $0.value == uri }.keys.min()
    }

    /// Whether the remote side of this section may receive (an answer may send on it).
    public var remoteReceives: Bool { direction == "sendrecv" || direction == "recvonly" }
    /// Whether the remote side of this section sends.
    public var remoteSends: Bool { direction == "sendrecv" || direction == "sendonly" }

    /// The RTX payload type repairing `pt`, if offered.
    public func rtxPayloadType(for pt: Int) -> Int? {
        formats.first { $0.encoding == "RTX" && $0.associatedPayloadType == pt }?.payloadType
    }
}

/// RTP header extension URIs Sluice negotiates.
public enum RTPHeaderExtension {
    /// RFC 8843: the media section (MID) an RTP packet belongs to.
    public static let mid = "urn:ietf:params:rtp-hdrext:sdes:mid"
    /// Transport-wide sequence numbers for congestion control feedback
    /// (draft-holmer-rmcat-transport-wide-cc-extensions-01).
    public static let transportWideCC = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"
    /// RFC 8852: the RTP stream id (`a=rid`) of a simulcast layer a packet belongs to.
    public static let streamID = "urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id"
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while s.first == " " { s.removeFirst() }
        while s.last == " " { s.removeLast() }
        return s
    }
}
