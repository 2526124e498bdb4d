/// 1:1 NAT for ICE: a server whose host address is private (a pod, a container, a cloud VM)
/// behind a NAT that forwards a public address (and its ports) to it announces each host
/// candidate a second time with the public address, as Janus's `nat_1_1_mapping` and
/// MediaMTX's `webrtcAdditionalHosts` do. A viewer outside then checks the public address; the
/// NAT forwards the check to the private one, where the agent answers.
public enum PublicCandidates {
    /// The copies of host candidate `candidate` (a line, with or without `a=`) with its
    /// address replaced by each of `addresses`, in order: same port, transport and component,
    /// `typ host`, a foundation of their own and a priority just below the original's. Empty
    /// for a candidate that is not a host candidate or cannot be read, and for an address the
    /// candidate already has.
    public static func copies(of candidate: String, announcing addresses: [String]) -> [String] {
        let prefix = candidate.hasPrefix("a=") ? "a=" : ""
        let body = candidate.dropFirst(prefix.count)
        var fields = body.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        // candidate:<foundation> <component> <transport> <priority> <address> <port> typ <type> …
        guard fields.count >= 8, fields[0].hasPrefix("candidate:"), fields[6] == "typ", fields[7] == "host",
            let priority = UInt32(fields[3]), priority > UInt32(addresses.count)
        else { return [] }
        let foundation = String(fields[0].dropFirst("candidate:".count))
        let original = fields[4]
        var out: [String] = []
        for (i, address) in addresses.enumerated() where address != original {
            fields[0] = "candidate:\(foundation)p\(i + 1)"
            fields[3] = String(priority - UInt32(i + 1))
            fields[4] = address
            out.append(prefix + fields.joined(separator: " "))
        }
        return out
    }
}
