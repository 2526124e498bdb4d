/// The media lines of an SDP, enough to explain a negotiation outcome.
///
/// Plain text parsing, independent of GStreamer, so signalling code and servers use it too.
public struct SDPSummary: Sendable, Equatable {
    /// One media line (`m=`) and what its attributes say.
    public struct Media: Sendable, Equatable {
        /// `video`, `audio`, `application`.
        public var kind: String
        /// 0 means the media line was rejected.
        public var port: Int
        /// Codec names from `a=rtpmap` (e.g. `VP8`, `OPUS`), in payload order, without
        /// retransmission and FEC helpers.
        public var codecs: [String]
        /// `sendrecv`, `sendonly`, `recvonly`, `inactive`.
        public var direction: String
        /// The line's `a=mid`, if it has one.
        public var mid: String?
        /// `a=bundle-only`: port 0 because the line rides on the bundle's transport.
        public var bundleOnly = false
        /// Whether the line's mid is in the session's BUNDLE group.
        public var bundled = false
        /// Port 0 without being bundled: the answerer refused this media.
        public var rejected: Bool { port == 0 && !bundleOnly && !bundled }
    }
    /// The media lines, in SDP order.
    public var media: [Media]
    /// Mids of the `a=group:BUNDLE` line.
    public var bundleGroup: [String] = []

    private static let helperCodecs: Set<String> = ["RTX", "RED", "ULPFEC", "FLEXFEC-03", "TELEPHONE-EVENT", "CN"]

    /// Reads the media lines of `sdp`; lines it does not understand are skipped, never an error.
    public init(_ sdp: String) {
        var media: [Media] = []
        var bundle: [String] = []
        for rawLine in sdp.split(whereSeparator: \.isNewline) {
            let line = String(rawLine)
            if media.isEmpty && line.hasPrefix("a=group:BUNDLE") {
                bundle = line.dropFirst("a=group:BUNDLE".count).split(separator: " ").map(String.init)
            } else if line.hasPrefix("m=") {
                let parts = line.dropFirst(2).split(separator: " ")
                let port = parts.count > 1 ? Int(parts[1].split(separator: "/").first ?? "") ?? 0 : 0
                media.append(Media(kind: parts.first.map(String.init) ?? "", port: port, codecs: [], direction: "sendrecv"))
            } else if !media.isEmpty {
                let i = media.count - 1
                if line.hasPrefix("a=rtpmap:") {
                    let parts = line.split(separator: " ")
                    if parts.count > 1, let name = parts[1].split(separator: "/").first {
                        let upper = name.uppercased()
                        if !Self.helperCodecs.contains(upper) && !media[i].codecs.contains(upper) { media[i].codecs.append(upper) }
                    }
                } else if ["a=sendrecv", "a=sendonly", "a=recvonly", "a=inactive"].contains(line) {
                    media[i].direction = String(line.dropFirst(2))
                } else if line.hasPrefix("a=mid:") {
                    media[i].mid = String(line.dropFirst(6))
                } else if line == "a=bundle-only" {
                    media[i].bundleOnly = true
                }
            }
        }
        for i in media.indices { media[i].bundled = media[i].mid.map(bundle.contains) ?? false }
        self.media = media
        self.bundleGroup = bundle
    }

    /// Explains each media line the answer rejected, naming what each side offered.
    /// Returns an empty list if nothing was rejected.
    /// `answererAccepts` is keyed by media name (`video`, `audio`).
    public static func rejections(offer: SDPSummary, answer: SDPSummary, answererAccepts: [String: [String]]) -> [String] {
        var out: [String] = []
        for (i, m) in answer.media.enumerated() where m.rejected {
            let offered = i < offer.media.count ? offer.media[i].codecs : []
            let accepted = answererAccepts[m.kind] ?? []
            out.append(noCommonCodec("the answer rejected the \(m.kind) media line (port 0: no common codec)", offered, accepted))
        }
        return out
    }

    /// What an answering side that accepts only `accepts` (per medium; a medium absent from
    /// the dictionary accepts anything) must refuse in `offer`, explained. webrtcbin itself
    /// answers any codec, so Sluice checks before answering.
    public static func incompatibilities(offer: SDPSummary, accepts: [String: [String]]) -> [String] {
        offer.media.compactMap { m in
            guard !m.rejected, let accepted = accepts[m.kind],
                Set(m.codecs).isDisjoint(with: accepted)
            else { return nil }
            return noCommonCodec("the \(m.kind) media line cannot be accepted (no common codec)", m.codecs, accepted)
        }
    }

    private static func noCommonCodec(_ what: String, _ offered: [String], _ accepted: [String]) -> String {
        "\(what): the offer had " + (offered.isEmpty ? "no codecs" : offered.joined(separator: ", "))
            + ", the answering side accepts " + (accepted.isEmpty ? "none" : accepted.joined(separator: ", "))
    }
}
