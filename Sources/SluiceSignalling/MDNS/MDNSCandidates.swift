/// ICE candidates whose address is a multicast DNS name (`1f2e….local`): what Chromium,
/// Safari and Firefox write instead of a host address they keep private. libnice cannot use
/// them; Sluice resolves the name (`MDNSResolver`) and hands over the candidate with the
/// address instead.
public enum MDNSCandidates {
    /// The `.local` name of a candidate line (with or without `a=` / `candidate:`), if its
    /// connection address is one.
    public static func host(of candidate: String) -> String? {
        // candidate:<foundation> <component> <transport> <priority> <address> <port> typ …
        let fields = candidate.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 6, fields[0].lowercased().hasSuffix("candidate:") || fields[0].contains("candidate:") else { return nil }
        let address = fields[4]
        guard address.lowercased().hasSuffix(".local"), address.count <= 255 else { return nil }
        return String(address)
    }

    /// The candidate with its `.local` address replaced by `address`.
    public static func replacing(host: String, with address: String, in candidate: String) -> String {
        var fields = candidate.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        if fields.count > 4, fields[4] == host { fields[4] = address }
        return fields.joined(separator: " ")
    }

    /// Takes the `a=candidate` lines with `.local` addresses out of an SDP; returns the rest
    /// and those candidates with the index of their media section (the m-line index).
    public static func separating(_ sdp: String) -> (sdp: String, candidates: [(mlineIndex: Int, candidate: String, host: String)]) {
        let sections = SDPRewrite.sections(of: sdp)
        var found: [(Int, String, String)] = []
        var kept: [[String]] = []
        for (i, lines) in sections.enumerated() {
            kept.append(
                lines.filter { line in
                    guard line.hasPrefix("a=candidate:"), let host = host(of: String(line.dropFirst(2))) else { return true }
                    if i > 0 { found.append((i - 1, String(line.dropFirst(2)), host)) }
                    return false
                })
        }
        guard !found.isEmpty else { return (sdp, []) }
        return (kept.flatMap { $0 }.joined(separator: "\r\n"), found)
    }
}
