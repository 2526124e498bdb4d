/// Edits of SDP text that signalling applies on top of what webrtcbin produces.
public enum SDPRewrite {
    /// Marks as rejected (port 0, out of the BUNDLE group) each media section the answer
    /// declares `a=inactive`, except the first section of the BUNDLE group, which carries
    /// the shared transport.
    ///
    /// webrtcbin 1.22 answers a medium it has nothing for (audio, for a video-only stream)
    /// as inactive but keeps it in the BUNDLE group, and its RTP carries neither a MID header
    /// extension nor signalled SSRCs: a browser then cannot tell which section the packets
    /// belong to ("Failed to demux RTP packet") and decodes nothing. With the section
    /// rejected, one receiving section is left and the browser demultiplexes by payload type.
    public static func rejectingInactive(_ sdp: String) -> String {
        var sections = Self.sections(of: sdp)
        guard let groupIndex = sections[0].firstIndex(where: { $0.hasPrefix("a=group:BUNDLE ") }) else { return sdp }
        let bundle = sections[0][groupIndex].dropFirst("a=group:BUNDLE ".count).split(separator: " ").map(String.init)
        guard let tag = bundle.first else { return sdp }
        var gone: Set<String> = []
        for i in sections.indices.dropFirst() {
            let section = sections[i]
            guard section.contains("a=inactive"),
                let mid = section.first(where: { $0.hasPrefix("a=mid:") }).map({ String($0.dropFirst(6)) }),
                mid != tag, bundle.contains(mid)
            else { continue }
            gone.insert(mid)
            // m=<media> <port> <proto> <fmt…> → port 0.
            var parts = section[0].split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            if parts.count > 1 { parts[1] = "0" }
            sections[i][0] = parts.joined(separator: " ")
            sections[i].removeAll { $0.hasPrefix("a=candidate:") || $0 == "a=end-of-candidates" }
        }
        guard !gone.isEmpty else { return sdp }
        sections[0][groupIndex] = "a=group:BUNDLE " + bundle.filter { !gone.contains($0) }.joined(separator: " ")
        return sections.flatMap { $0 }.joined(separator: "\r\n")
    }

    /// Drops the `a=extmap` lines of header extensions not in `uris`, so that an answer made
    /// from this offer negotiates only the extensions the answerer writes (webrtcbin 1.22
    /// echoes every extension of the offer, implemented or not).
    public static func keepingExtensions(_ uris: Set<String>, in sdp: String) -> String {
        let lines = sdp.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        let kept = lines.filter { line in
            guard line.hasPrefix("a=extmap:") else { return true }
            let parts = line.split(separator: " ")
            return parts.count >= 2 && uris.contains(String(parts[1]))
        }
        return kept.count == lines.count ? sdp : kept.joined(separator: "\r\n")
    }

    /// Adds a media-level `a=msid:<stream> <track>` (RFC 8830) to each section that signals
    /// its stream only in `a=ssrc:<id> msid:` lines, as webrtcbin 1.22 does. Unified-plan
    /// stacks (Firefox, Pion, current Chromium) read the media-level line to name the track
    /// and group audio and video into one stream.
    public static func addingMediaMsid(_ sdp: String) -> String {
        var sections = Self.sections(of: sdp)
        var changed = false
        for i in sections.indices.dropFirst() where !sections[i].contains(where: { $0.hasPrefix("a=msid:") }) {
            guard let ssrcLine = sections[i].first(where: { $0.hasPrefix("a=ssrc:") && $0.contains(" msid:") }),
                let range = ssrcLine.range(of: " msid:")
            else { continue }
            let value = ssrcLine[range.upperBound...]
            guard value.split(separator: " ").count == 2 else { continue }
            // After the direction/mid attributes; before the first ssrc line keeps it readable.
            let at = sections[i].firstIndex(where: { $0.hasPrefix("a=ssrc") }) ?? sections[i].count
            sections[i].insert("a=msid:" + value, at: at)
            changed = true
        }
        return changed ? sections.flatMap { $0 }.joined(separator: "\r\n") : sdp
    }

    /// The session part, then each media section, as lines. "\r\n" is one Character in
    /// Swift: lines are split on newlines, whatever their form.
    public static func sections(of sdp: String) -> [[String]] {
        var sections: [[String]] = [[]]
        for line in sdp.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            if line.hasPrefix("m=") { sections.append([]) }
            sections[sections.count - 1].append(String(line))
        }
        return sections
    }

    /// The index among `sections` (as `sections(of:)` gives them) of the media section with
    /// `mid`, or without one (or with no section carrying it) the first video section.
    public static func videoSection(in sections: [[String]], mid: String?) -> Int? {
        let media = sections.indices.dropFirst()
        return media.first { i in mid.map { sections[i].contains("a=mid:\($0)") } ?? false }
            ?? media.first { sections[$0].first?.hasPrefix("m=video ") == true }
    }
}
