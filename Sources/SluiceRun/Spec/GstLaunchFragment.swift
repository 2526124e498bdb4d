import Foundation

/// gst-launch fragments as pipeline files use them.
///
/// A stage fragment may begin or end with caps (`videotestsrc ! video/x-raw,width=640`),
/// which gst-launch syntax only allows between two elements. Since the stage is linked to
/// its neighbours anyway, such leading/trailing caps are made into links to an `identity`.
public enum GstLaunchFragment {
    /// The fragment with leading or trailing caps linked to an `identity`, so gst-launch accepts it as a stage; otherwise the fragment trimmed.
    public static func normalized(_ fragment: String) -> String {
        let segments = fragment.split(separator: "!", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = segments.first, let last = segments.last else { return fragment }
        var out = fragment.trimmingCharacters(in: .whitespaces)
        if looksLikeCaps(first) { out = "identity ! " + out }
        if looksLikeCaps(last) { out += " ! identity" }
        return out
    }

    /// `video/x-raw,width=640`, `audio/x-raw`, `application/x-rtp,media=video`: the first
    /// token (up to a comma or space) is `letters/name`.
    package static func looksLikeCaps(_ segment: String) -> Bool {
        let token = segment.prefix { $0 != "," && $0 != " " }
        guard let slash = token.firstIndex(of: "/") else { return false }
        let type = token[..<slash], name = token[token.index(after: slash)...]
        return !type.isEmpty && type.allSatisfy(\.isLetter) && !name.isEmpty && !name.contains("=")
    }
}
