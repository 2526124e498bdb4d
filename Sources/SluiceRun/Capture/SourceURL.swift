import Foundation

/// The `url:` of a network source (rtsp, srt, rtmp, uri): read from the file with its scheme
/// checked, and shown in messages without its password.
public enum SourceURL {
    /// The settings of a kind that reads only `url:` (rtmp, uri).
    public struct Settings: KindSettings, Equatable {
        /// `url:`.
        public var url: String
    }

    /// `url` without the password of its user information (`rtsp://user@host/…`).
    package static func redacted(_ url: String) -> String {
        guard var parts = URLComponents(string: url), parts.password != nil else { return url }
        parts.password = nil
        return parts.string ?? url
    }

    /// The password in `url`, if it has one.
    package static func password(in url: String) -> String? {
        URLComponents(string: url)?.password.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The lower-cased scheme of `url` (`rtsp`), or nil if it has none.
    package static func scheme(of url: String) -> String? {
        guard let colon = url.range(of: "://"), colon.lowerBound > url.startIndex else { return nil }
        return url[..<colon.lowerBound].lowercased()
    }
}

extension SpecDecoder {
    /// `capture.url` of a `kind` source: present, not empty, and one of `schemes`; errors
    /// name the kind and show `example`.
    package mutating func sourceURL(
        _ map: [SpecEntry], kind: String, schemes: [String], example: String, at location: SourceLocation
    ) -> String? {
        guard let e = map.entry("url") else {
            fail("\(kind) capture needs 'url', e.g. \(example)", at: location)
            return nil
        }
        guard let url = nonEmptyText(e) else { return nil }
        guard let scheme = SourceURL.scheme(of: url), schemes.contains(scheme) else {
            let names = schemes.map { "\($0)://" }.joined(separator: ", ")
            fail("'\(SourceURL.redacted(url))' is not a URL \(kind) capture reads (\(names)); write e.g. \(example)", at: e.value.location)
            return nil
        }
        return url
    }
}
