/// The simulcast a publisher's offer announces (RFC 8853 `a=simulcast`, RFC 8851 `a=rid`):
/// the layers of its video section, by RTP stream id, and the header extension id that tags
/// each layer's packets with its id. Parsed from text, bounded against hostile input.
///
/// ```
/// a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id
/// a=rid:h send
/// a=rid:m send
/// a=rid:l send
/// a=simulcast:send h;m;l
/// ```
public struct SimulcastOffer: Sendable, Equatable {
    /// The video section's MID, if it has one.
    public var mid: String?
    /// The RTP stream ids in the order `a=simulcast` lists them (the first of each list of
    /// alternatives; a paused `~id` is listed too: it may start later).
    public var rids: [String]
    /// The id of the RTP stream id header extension (nil: not offered; the layers are then
    /// told apart by picture size alone).
    public var ridExtensionID: Int?

    /// The most layers a publisher may send (every SFU takes three; four leaves room).
    public static let maxLayers = 4
    /// The longest RTP stream id (RFC 8852 carries it in a header extension of at most 16 bytes).
    public static let maxRIDLength = 16

    /// The simulcast of `sdp`'s video section: nil without one; throws, with the reason
    /// for a WHIP 400, when what it announces cannot be taken.
    public static func parse(_ sdp: String) throws(SimulcastOfferError) -> SimulcastOffer? {
        var found: SimulcastOffer?
        for section in SDPRewrite.sections(of: sdp).dropFirst() {
            guard let line = section.first(where: { $0.hasPrefix("a=simulcast:") }) else { continue }
            let kind = section[0].dropFirst(2).prefix { $0 != " " }
            guard kind == "video" else { throw SimulcastOfferError("simulcast is for video; the \(kind) section announces it") }
            guard found == nil else { throw SimulcastOfferError("only one video section may send simulcast") }
            found = try parse(section: section, simulcast: String(line.dropFirst("a=simulcast:".count)))
        }
        return found
    }

    /// One section's `a=simulcast` value against its `a=rid` lines.
    private static func parse(section: [String], simulcast value: String) throws(SimulcastOfferError) -> SimulcastOffer {
        let parts = value.split(separator: " ")
        guard parts.count == 2, parts[0] == "send" else {
            throw SimulcastOfferError("a publisher's a=simulcast must be 'send <rid>;<rid>…', got '\(value.prefix(64))'")
        }
        let rids = parts[1].split(separator: ";", omittingEmptySubsequences: false).map { layer in
            String((layer.split(separator: ",", omittingEmptySubsequences: false).first ?? "").drop { $0 == "~" })
        }
        guard rids.count >= 2 else { throw SimulcastOfferError("simulcast needs at least two layers, got \(rids.count)") }
        guard rids.count <= maxLayers else { throw SimulcastOfferError("at most \(maxLayers) simulcast layers are taken, got \(rids.count)") }
        var declared: Set<String> = []
        for line in section where line.hasPrefix("a=rid:") {
            let fields = line.dropFirst("a=rid:".count).split(separator: " ")
            if fields.count >= 2, fields[1] == "send" { declared.insert(String(fields[0])) }
        }
        var seen: Set<String> = []
        for rid in rids {
            guard isValid(rid) else {
                throw SimulcastOfferError(
                    "the RTP stream id '\(rid.prefix(32))' is not 1 to \(maxRIDLength) letters, digits, '-' or '_' (RFC 8851)")
            }
            guard seen.insert(rid).inserted else { throw SimulcastOfferError("the simulcast layers name '\(rid)' twice") }
            guard declared.contains(rid) else { throw SimulcastOfferError("the layer '\(rid)' has no 'a=rid:\(rid) send' line") }
        }
        let mid = section.first { $0.hasPrefix("a=mid:") }.map { String($0.dropFirst("a=mid:".count).prefix(64)) }
        let extensionID = section.lazy.compactMap { line -> Int? in
            let parts = line.split(separator: " ")
            guard line.hasPrefix("a=extmap:"), parts.count >= 2, parts[1] == RTPHeaderExtension.streamID else { return nil }
            return Int(parts[0].dropFirst("a=extmap:".count).prefix { $0 != "/" })
        }.first
        return SimulcastOffer(mid: mid, rids: rids, ridExtensionID: extensionID.flatMap { (1...14).contains($0) ? $0 : nil })
    }

    /// RFC 8851's rid-id (`1*(alpha-numeric / "-" / "_")`), at most `maxRIDLength` long.
    public static func isValid(_ rid: String) -> Bool {
        !rid.isEmpty && rid.utf8.count <= maxRIDLength
            && rid.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") }
    }

    /// `answer` with the layers accepted: `a=rid:<id> recv` per layer, `a=simulcast:recv …`
    /// and the RID extension in its section for this offer's MID (the video section without
    /// one). webrtcbin 1.22 answers none of them, and a browser whose simulcast the answer
    /// does not accept sends one layer only.
    public func accepting(in answer: String) -> String {
        var sections = SDPRewrite.sections(of: answer)
        guard let i = SDPRewrite.videoSection(in: sections, mid: mid), !sections[i].contains(where: { $0.hasPrefix("a=simulcast:") })
        else { return answer }
        var lines = rids.map { "a=rid:\($0) recv" } + ["a=simulcast:recv " + rids.joined(separator: ";")]
        // Browsers refuse simulcast without the RID extension, which webrtcbin does not answer.
        if let id = ridExtensionID, !sections[i].contains(where: { $0.hasPrefix("a=extmap:") && $0.hasSuffix(" " + RTPHeaderExtension.streamID) }) {
            lines.insert("a=extmap:\(id) \(RTPHeaderExtension.streamID)", at: 0)
        }
        // Before the candidates and SSRC lines, after the rest: where browsers put them.
        let at = sections[i].firstIndex { $0.hasPrefix("a=candidate:") || $0.hasPrefix("a=ssrc") || $0.isEmpty } ?? sections[i].count
        sections[i].insert(contentsOf: lines, at: at)
        return sections.flatMap { $0 }.joined(separator: "\r\n")
    }
}

/// Why a publisher's simulcast cannot be taken (a WHIP 400's reason).
public struct SimulcastOfferError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The reason, for the publisher.
    public let description: String
    init(_ description: String) { self.description = description }
}

extension SimulcastOffer {
    /// `offer` with `a=msid:<stream> <track>` in each section that sends simulcast and names
    /// no track. webrtcbin 1.22 writes a track's MSID only in `a=ssrc` lines, which a
    /// simulcast section has none of, and Pion (under LiveKit, MediaMTX, go2rtc) takes a
    /// section's layers as one track only when the section names it: without the line
    /// every layer was "unhandled RTP … no trackStreams found for RID".
    public static func namingTrack(in offer: String, stream: String, track: String) -> String {
        var sections = SDPRewrite.sections(of: offer)
        var changed = false
        for i in sections.indices.dropFirst() {
            guard sections[i].contains(where: { $0.hasPrefix("a=simulcast:send") }), !sections[i].contains(where: { $0.hasPrefix("a=msid:") })
            else { continue }
            let at = sections[i].firstIndex { $0.hasPrefix("a=rid:") } ?? sections[i].count
            sections[i].insert("a=msid:\(stream) \(track)", at: at)
            changed = true
        }
        return changed ? sections.flatMap { $0 }.joined(separator: "\r\n") : offer
    }
}
