import Foundation

/// A segmented recording's path: `rec/{name}-%Y%m%d-%H%M%S.mp4`. `{name}` is the pipeline's
/// name, `{n}` the segment's number (from 0), and `%Y %m %d %H %M %S %j %s` the local time
/// the segment starts, as strftime writes it. Each segment needs a name of its own, so the
/// path holds `%S`, `%s` or `{n}`.
package struct SegmentTemplate: Sendable, Equatable {
    /// One part of the path.
    package enum Piece: Sendable, Equatable {
        case literal(String)
        /// A strftime conversion (`Y`, `m`, …).
        case time(Character)
        case name
        case index
    }

    /// The path as written.
    package let text: String
    package let pieces: [Piece]

    /// The strftime conversions a path may hold, and the digits each one writes.
    package static let timeDigits: [Character: String] = [
        "Y": #"\d{4}"#, "m": #"\d{2}"#, "d": #"\d{2}"#, "H": #"\d{2}"#, "M": #"\d{2}"#, "S": #"\d{2}"#,
        "j": #"\d{3}"#, "s": #"\d+"#
    ]

    /// Parses `text`, or says what is wrong with it.
    package static func parse(_ text: String) -> Result<SegmentTemplate, SegmentTemplateError> {
        var pieces: [Piece] = []
        var literal = ""
        var rest = Substring(text)
        func flush() { if !literal.isEmpty { pieces.append(.literal(literal)); literal = "" } }
        while let c = rest.first {
            if c == "%" {
                guard let code = rest.dropFirst().first else { return .failure(.init("the path ends in a lone '%'; write %% for a percent sign")) }
                if code == "%" {
                    literal.append("%")
                } else if timeDigits[code] != nil {
                    flush(); pieces.append(.time(code))
                } else {
                    return .failure(.init("%\(code) is not a time a recording's path can hold; use %Y %m %d %H %M %S %j or %s"))
                }
                rest = rest.dropFirst(2)
            } else if rest.hasPrefix("{name}") {
                flush(); pieces.append(.name); rest = rest.dropFirst(6)
            } else if rest.hasPrefix("{n}") {
                flush(); pieces.append(.index); rest = rest.dropFirst(3)
            } else {
                literal.append(c); rest = rest.dropFirst()
            }
        }
        flush()
        guard pieces.contains(.time("S")) || pieces.contains(.time("s")) || pieces.contains(.index) else {
            return .failure(
                .init(
                    "each segment needs a file of its own: put the time to the second (%H%M%S) or {n} (the segment's number) in the path, e.g. rec/{name}-%Y%m%d-%H%M%S.mp4"
                ))
        }
        return .success(SegmentTemplate(text: text, pieces: pieces))
    }

    /// The file name extension the path ends in (lowercased), if any.
    package var pathExtension: String {
        guard case .literal(let last) = pieces.last, let dot = last.lastIndex(of: "."), !last[dot...].contains("/") else { return "" }
        return last[last.index(after: dot)...].lowercased()
    }

    /// The path of segment `index`, started at `date`, of the pipeline `name`.
    package func path(name: String, index: Int, at date: Date) -> String {
        var moment = time_t(date.timeIntervalSince1970)
        var local = tm()
        localtime_r(&moment, &local)
        return pieces.map { piece in
            switch piece {
            case .literal(let text): text
            case .name: GraphBuilder.fileSafe(name)
            case .index: String(format: "%05d", index)
            case .time(let code): Self.format(code, local)
            }
        }.joined()
    }

    private static func format(_ code: Character, _ local: tm) -> String {
        var local = local
        var buffer = [CChar](repeating: 0, count: 32)
        let count = strftime(&buffer, buffer.count, "%\(code)", &local)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The directory before the first placeholder: where every segment lies, at most
    /// `depth` levels further down.
    package var fixedDirectory: (path: String, depth: Int) {
        var prefix = ""
        for piece in pieces {
            guard case .literal(let text) = piece else { break }
            prefix += text
        }
        let directory = prefix.contains("/") ? String(prefix[..<prefix.lastIndex(of: "/")!]) : "."
        let rest = text.dropFirst(directory == "." ? 0 : directory.count + 1)
        return (directory.isEmpty ? "/" : directory, rest.split(separator: "/").count)
    }

    /// Whether `path` is a segment this template could have named for the pipeline `name`
    /// (with the `-N` a name already taken gets before its extension).
    package func names(_ path: String, name: String) -> Bool { matcher(name: name).names(path) }

    /// When the segment at `path` started, from the time in its name (local time, as it was
    /// written); nil when the template holds no time to the second or `path` is not its.
    package func startTime(of path: String, name: String) -> Date? { matcher(name: name).startTime(of: path) }

    /// The template's patterns for the pipeline `name`, compiled once for many paths.
    package func matcher(name: String) -> SegmentMatcher {
        let codes = pieces.compactMap { piece -> Character? in if case .time(let c) = piece { c } else { nil } }
        let full = Set("YmdHMS").isSubset(of: codes) || codes.contains("s")
        return SegmentMatcher(
            path: try? NSRegularExpression(pattern: pattern(name: name)),
            times: full ? try? NSRegularExpression(pattern: pattern(name: name, capturingTimes: true)) : nil, codes: codes)
    }

    /// The segments of the pipeline `name` that exist now, in the order they were written
    /// (their names sort so: times and numbers are zero-padded).
    package func existingSegments(name: String) -> [String] {
        let (directory, depth) = fixedDirectory
        let matcher = matcher(name: name)
        return SegmentNamer.files(under: directory, depth: depth).filter { matcher.names($0) }.sorted()
    }

    private func pattern(name: String, capturingTimes: Bool = false) -> String {
        var out = ""
        for (i, piece) in pieces.enumerated() {
            switch piece {
            case .literal(let text) where i == pieces.count - 1 && !pathExtension.isEmpty:
                let stem = text.dropLast(pathExtension.count + 1)
                out += NSRegularExpression.escapedPattern(for: String(stem)) + #"(-\d+)?"#
                out += NSRegularExpression.escapedPattern(for: "." + text.suffix(pathExtension.count))
            case .literal(let text): out += NSRegularExpression.escapedPattern(for: text)
            case .name: out += NSRegularExpression.escapedPattern(for: GraphBuilder.fileSafe(name))
            case .index: out += #"\d+"#
            case .time(let code):
                let digits = Self.timeDigits[code] ?? ""
                out += capturingTimes ? "(\(digits))" : digits
            }
        }
        return pathExtension.isEmpty ? out + #"(-\d+)?"# : out
    }
}

/// A template's patterns for one pipeline's segments, compiled once: which paths are its
/// segments, and when each started.
package struct SegmentMatcher: Sendable {
    private let path: NSRegularExpression?
    /// The same, capturing each time field (nil: the template holds no time to the second).
    private let times: NSRegularExpression?
    /// The template's time conversions, in the order they are captured.
    private let codes: [Character]

    package init(path: NSRegularExpression?, times: NSRegularExpression?, codes: [Character]) {
        self.path = path
        self.times = times
        self.codes = codes
    }

    /// Whether `candidate` is one of the segments.
    package func names(_ candidate: String) -> Bool {
        let range = NSRange(candidate.startIndex..., in: candidate)
        return path?.firstMatch(in: candidate, range: range)?.range == range
    }

    /// When the segment at `candidate` started (local time), or nil.
    package func startTime(of candidate: String) -> Date? {
        let range = NSRange(candidate.startIndex..., in: candidate)
        guard let times, let match = times.firstMatch(in: candidate, range: range), match.range == range else { return nil }
        var fields: [Character: Int] = [:]
        for (i, code) in codes.enumerated() {
            guard let r = Range(match.range(at: i + 1), in: candidate), let v = Int(candidate[r]) else { return nil }
            fields[code] = v
        }
        if let epoch = fields["s"] { return Date(timeIntervalSince1970: TimeInterval(epoch)) }
        var parts = DateComponents()
        (parts.year, parts.month, parts.day) = (fields["Y"], fields["m"], fields["d"])
        (parts.hour, parts.minute, parts.second) = (fields["H"], fields["M"], fields["S"])
        return Calendar.current.date(from: parts)
    }
}

/// Why a recording's path cannot be used.
package struct SegmentTemplateError: Error, Equatable {
    package let message: String
    package init(_ message: String) { self.message = message }
}
