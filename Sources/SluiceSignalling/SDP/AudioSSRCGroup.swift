/// Takes the retransmission SSRC out of an offer's audio sections.
///
/// With NACK on, GStreamer 1.22's webrtcbin offers audio with an RTX format and announces the
/// RTX stream's SSRC: `a=ssrc-group:FID <media> <rtx>` and `a=ssrc:<rtx> …` lines. Chromium's
/// voice engine takes one SSRC per audio stream and refuses the whole offer otherwise
/// ("Failed to add remote stream ssrc: … to {mid: audio, media_type: audio}"). Dropping the
/// group and the RTX SSRC's lines keeps the RTX format in the offer (a peer that repairs
/// audio with it learns the RTX SSRC from the first retransmission, as webrtcbin does) and
/// makes the offer one Chromium accepts. Video sections keep theirs. Line endings are kept.
public enum AudioSSRCGroup {
    /// `sdp` without FID groups, and the lines of the SSRCs they named second, in audio sections.
    public static func removing(from sdp: String) -> String {
        let crlf = sdp.contains("\r\n")
        let newline = crlf ? "\r\n" : "\n"
        // "\r\n" is one Character in Swift: this splits either kind of line ending.
        let lines = sdp.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map(String.init)
        var out: [String] = [], section: [String] = []
        var inAudio = false
        func flush() {
            out += inAudio ? withoutRTXSSRCs(section) : section
            section = []
        }
        for line in lines {
            if line.hasPrefix("m=") {
                flush()
                inAudio = line.hasPrefix("m=audio ")
            }
            section.append(line)
        }
        flush()
        return out.joined(separator: newline)
    }

    /// One audio section's lines without its FID groups and the lines of their RTX SSRCs.
    private static func withoutRTXSSRCs(_ lines: [String]) -> [String] {
        let groups = lines.filter { $0.hasPrefix("a=ssrc-group:FID ") }
        guard !groups.isEmpty else { return lines }
        let rtx = Set(groups.flatMap { $0.split(separator: " ").dropFirst(2).map(String.init) })
        return lines.filter { line in
            if line.hasPrefix("a=ssrc-group:FID ") { return false }
            guard line.hasPrefix("a=ssrc:"), let ssrc = line.dropFirst(7).split(separator: " ").first else { return true }
            return !rtx.contains(String(ssrc))
        }
    }
}
