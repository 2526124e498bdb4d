/// Which of a sender's simulcast layers the other peer takes (RFC 8853 §5.3): those its
/// description's video section lists in `a=simulcast:recv`. A peer whose description has no
/// such line takes one ordinary stream, so the sender must send one layer alone: browsers
/// answering in a call between two peers do that, and a receiver given several SSRCs on one
/// MID flips between them.
///
/// ```
/// a=rid:h recv
/// a=rid:l recv
/// a=simulcast:recv h;l
/// ```
public enum SimulcastAcceptance {
    /// The layers of `offered` (best first) that `description` (the peer's answer, or its
    /// offer when this side answers) takes, in `offered`'s order: those its video section
    /// (the one with `mid`, or the first video section) lists in `a=simulcast:recv`, taking
    /// the first of each list of alternatives and leaving out paused ones (`~h`). Empty: the
    /// peer takes no simulcast.
    public static func taken(of offered: [String], in description: String, mid: String?) -> [String] {
        let sections = SDPRewrite.sections(of: description)
        guard let i = SDPRewrite.videoSection(in: sections, mid: mid), let line = sections[i].first(where: { $0.hasPrefix("a=simulcast:") })
        else { return [] }
        let parts = line.dropFirst("a=simulcast:".count).split(separator: " ")
        // `a=simulcast:send a;b recv c;d` lists both directions; only `recv` is this peer taking.
        guard let recv = parts.firstIndex(of: "recv"), recv + 1 < parts.count else { return [] }
        let listed = parts[recv + 1].prefix(512).split(separator: ";").compactMap { alternatives -> String? in
            guard let first = alternatives.split(separator: ",").first, !first.hasPrefix("~") else { return nil }
            return String(first)
        }
        return offered.filter { listed.contains($0) }
    }

    /// This side's answer to an `offer` that takes the layers `taken` (empty: none), as the
    /// peer should read it. webrtcbin 1.22 answers `a=rid:<id> send` and `a=simulcast:send`
    /// for every layer its input's caps name, whatever the offer asked, and header
    /// extensions the offer never offered (the MID and RID ones the layers' payloaders
    /// write): RFC 8853 §5.3 and RFC 8285 let an answer hold neither. So the video section
    /// keeps the `a=rid` lines of the layers taken and a `a=simulcast:send` of them (none of
    /// either without simulcast), and only the extensions `offer`'s video section offers.
    public static func answer(_ answer: String, to offer: String, taking taken: [String], mid: String?) -> String {
        var sections = SDPRewrite.sections(of: answer)
        guard let i = SDPRewrite.videoSection(in: sections, mid: mid) else { return answer }
        let offerSections = SDPRewrite.sections(of: offer)
        let offered = Set(SDPRewrite.videoSection(in: offerSections, mid: mid).map { offerSections[$0].compactMap(extensionURI) } ?? [])
        sections[i] = sections[i].compactMap { line -> String? in
            if line.hasPrefix("a=rid:") {
                let id = line.dropFirst("a=rid:".count).prefix { $0 != " " }
                return taken.count > 1 && taken.contains(String(id)) ? line : nil
            }
            if line.hasPrefix("a=simulcast:") { return taken.count > 1 ? "a=simulcast:send " + taken.joined(separator: ";") : nil }
            if let uri = extensionURI(line), !offered.contains(uri) { return nil }
            return line
        }
        return sections.flatMap { $0 }.joined(separator: "\r\n")
    }

    /// The extension URI of an `a=extmap:<id>[/<direction>] <uri>` line; nil for other lines.
    private static func extensionURI(_ line: String) -> String? {
        guard line.hasPrefix("a=extmap:") else { return nil }
        let parts = line.split(separator: " ")
        return parts.count >= 2 ? String(parts[1]) : nil
    }
}
