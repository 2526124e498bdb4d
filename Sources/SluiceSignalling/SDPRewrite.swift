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
        // "\r\n" is one Character in Swift: split on newlines, whatever their form.
        let lines = sdp.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        var sections: [[String]] = [[]]
        for line in lines {
            if line.hasPrefix("m=") { sections.append([]) }
            sections[sections.count - 1].append(line)
        }
        guard let groupIndex = sections[0].firstIndex(where: { $0.hasPrefix("a=group:BUNDLE ") }) else { return sdp }
        let bundle = sections[0][groupIndex].dropFirst("a=group:BUNDLE ".count).split(separator: " ").map(String.init)
        guard let tag = bundle.first else { return sdp }
        var gone: Set<String> = []
        for i in sections.indices.dropFirst() {
            let section = sections[i]
            guard section.contains("a=inactive"),
                  let mid = section.first(where: { $0.hasPrefix("a=mid:") }).map({ String($0.dropFirst(6)) }),
                  mid != tag, bundle.contains(mid) else { continue }
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
}
