import Foundation
import Yams

/// Turns pipeline-file text into a `SpecNode` tree, reporting YAML syntax errors and
/// duplicate keys as diagnostics at their `FILE:LINE:COL`.
///
/// Yams stops at the first duplicate key and names only its first occurrence. To report the
/// second one (the one to delete) and to find every duplicate, the reader renames the first
/// occurrence in a private copy of the text to a placeholder of the same length, parses again,
/// and then looks for the next key of the same name in the placeholder's mapping. The
/// placeholder entries are dropped, so the last occurrence wins and decoding continues.
package enum SpecYAMLReader {
    /// At most this many nodes after expanding aliases (guards against "billion laughs").
    package static let nodeBudget = 100_000
    /// At most this many levels of nesting (a pipeline file needs about eight).
    package static let depthLimit = 64
    /// At most this many duplicate keys are resolved before giving up.
    package static let duplicateLimit = 32

    /// The tree of `text` and the diagnostics found while reading it (nil root: the file
    /// cannot be read at all). Duplicate keys are renamed away and parsed again, one at a time.
    package static func read(_ text: String, file: String) -> (root: SpecNode?, diagnostics: [Diagnostic]) {
        let positions = SpecTextPositions(text)
        func location(_ mark: Mark?) -> SourceLocation {
            locationAt(mark?.line ?? 1, mark?.column ?? 1)
        }
        func locationAt(_ line: Int, _ column: Int) -> SourceLocation {
            let (line, column) = positions.clamp(line: line, column: column)
            return SourceLocation(file: file, line: line, column: column)
        }
        if let refused = refuseBeforeParsing(text, positions: positions, location: locationAt) {
            return (nil, [refused])
        }
        var source = positions.scalars
        var originals: [String] = [] // placeholder index → the key it replaced
        while true {
            let node: Node?
            do {
                var view = String.UnicodeScalarView()
                view.append(contentsOf: source)
                node = try Yams.compose(yaml: String(view), Resolver.default, Constructor.default, .utf8)
            } catch let YamlError.duplicatedKeysInMapping(duplicates, context) {
                let name = duplicates.first ?? ""
                if originals.count < duplicateLimit,
                    let renamed = neutralizeKey(
                        in: source, positions: positions, at: context.mark,
                        index: originals.count)
                {
                    source = renamed
                    originals.append(name)
                    continue
                }
                return (nil, [Diagnostic("duplicate key '\(name)'; keep only one of them", at: location(context.mark))])
            } catch {
                return (nil, [syntaxDiagnostic(error, positions: positions, location: locationAt)])
            }
            guard let node else { return (nil, []) }
            return convert(node, originals: originals, location: location, locationAt: locationAt)
        }
    }

    /// Refuses text that Yams cannot be given safely: nesting too deep for a small thread
    /// stack, or keys built from lists, mappings or aliases (nil: it may be parsed).
    private static func refuseBeforeParsing(
        _ text: String, positions: SpecTextPositions,
        location locationAt: (Int, Int) -> SourceLocation
    ) -> Diagnostic? {
        // Yams composes recursively; refuse absurd nesting before it can exhaust a small
        // thread stack (libyaml's own limit, 1000 levels, is too deep for 512 KiB).
        if let line = nestingTooDeep(positions) {
            return Diagnostic(
                "the file nests more than \(depthLimit) levels deep; a pipeline file needs far fewer",
                at: locationAt(line, 1))
        }
        // Yams hashes mapping keys to find duplicates; a key built from nested aliases takes
        // exponential time to hash. Pipeline keys are plain names, so refuse such keys early.
        if let line = aliasedComplexKeyLine(text) {
            return Diagnostic(
                "a list, mapping or alias used as a key; keys in a pipeline file are plain names such as `send:`",
                at: locationAt(line, 1))
        }
        return nil
    }

    /// The parsed node as a `SpecNode` tree with the diagnostics of converting it, or nothing
    /// but a diagnostic when aliases expand it past `nodeBudget` or it nests past `depthLimit`.
    private static func convert(
        _ node: Node, originals: [String], location: @escaping (Mark?) -> SourceLocation,
        locationAt: (Int, Int) -> SourceLocation
    ) -> (root: SpecNode?, diagnostics: [Diagnostic]) {
        var converter = Converter(location: location, originals: originals)
        let root = converter.convert(node)
        if converter.overBudget {
            return (
                nil,
                [
                    Diagnostic(
                        "the file expands to more than \(nodeBudget) YAML nodes (through aliases); simplify it",
                        at: locationAt(1, 1))
                ]
            )
        }
        if let tooDeep = converter.tooDeep {
            return (
                nil,
                [
                    Diagnostic(
                        "the file nests more than \(depthLimit) levels deep; a pipeline file needs far fewer",
                        at: tooDeep)
                ]
            )
        }
        return (root, converter.diagnostics)
    }

    // MARK: - Nesting

    /// The first line where an over-estimate of the nesting depth (open flow brackets plus
    /// the block indentation stack plus leading `- ` / `? ` indicators) exceeds twice
    /// `depthLimit`, if any. Over-estimating is safe: the exact depth is checked again while
    /// converting, against `depthLimit`.
    package static func nestingTooDeep(_ positions: SpecTextPositions) -> Int? {
        let limit = 2 * depthLimit
        let scalars = positions.scalars
        var flow = 0
        var indents: [Int] = []
        var line = 1
        var i = 0
        while i < scalars.count {
            // Start of a line: measure indentation and leading sequence/key indicators.
            var indent = 0
            while i < scalars.count, scalars[i] == " " { indent += 1; i += 1 }
            var compact = 0
            while i + 1 < scalars.count, scalars[i] == "-" || scalars[i] == "?", scalars[i + 1] == " " {
                compact += 1
                i += 2
                while i < scalars.count, scalars[i] == " " { i += 1 }
            }
            let blank = i >= scalars.count || ["\n", "\r", "#"].contains(scalars[i])
            if !blank {
                while let last = indents.last, last > indent { indents.removeLast() }
                if indents.last.map({ $0 < indent }) ?? true { indents.append(indent) }
            }
            // Rest of the line: count flow brackets.
            while i < scalars.count, scalars[i] != "\n", scalars[i] != "\r" {
                switch scalars[i] {
                case "[", "{": flow += 1
                case "]", "}": flow = max(0, flow - 1)
                default: break
                }
                if flow + indents.count + compact > limit { return line }
                i += 1
            }
            if indents.count + compact > limit { return line }
            if i < scalars.count, scalars[i] == "\r", i + 1 < scalars.count, scalars[i + 1] == "\n" { i += 1 }
            i += 1
            line += 1
        }
        return nil
    }

    /// The first line with an explicit (`? `) key, a flow collection used as a key (`]: `,
    /// `}: `) or an alias used as a key (`*a: `) — checked only when the text has anchors and
    /// aliases, since only they make such keys expensive.
    package static func aliasedComplexKeyLine(_ text: String) -> Int? {
        guard text.contains("&"), text.contains("*") else { return nil }
        let nameCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-".unicodeScalars)
        func isSpace(_ c: Unicode.Scalar) -> Bool { c == " " || c == "\t" }
        /// Whether `line[i...]` is optional spaces, then ':' at the end or before a space.
        func colonFollows(_ line: [Unicode.Scalar], _ i: Int) -> Bool {
            var j = i
            while j < line.count, isSpace(line[j]) { j += 1 }
            return j < line.count && line[j] == ":" && (j + 1 == line.count || isSpace(line[j + 1]))
        }
        /// Whether `line[i]` is a '?' indicator (followed by a space or the end).
        func questionIndicator(_ line: [Unicode.Scalar], _ i: Int) -> Bool {
            i < line.count && line[i] == "?" && (i + 1 == line.count || isSpace(line[i + 1]))
        }
        var number = 0
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            number += 1
            let line = Array(rawLine.unicodeScalars)
            var i = 0
            while i < line.count, isSpace(line[i]) || (line[i] == "-" && (i + 1 == line.count || isSpace(line[i + 1]))) {
                i += 1
            }
            if questionIndicator(line, i) { return number }
            var previous: Unicode.Scalar = " "
            var k = 0
            while k < line.count {
                let c = line[k]
                if c == "#", isSpace(previous) { break }
                if c == "]" || c == "}", colonFollows(line, k + 1) { return number }
                if (c == "{" || c == ","), questionIndicator(line, (k + 1..<line.count).first { !isSpace(line[$0]) } ?? line.count) {
                    return number
                }
                if c == "*", isSpace(previous) || "[{,".unicodeScalars.contains(previous) {
                    var end = k + 1
                    while end < line.count, nameCharacters.contains(line[end]) { end += 1 }
                    if end > k + 1, colonFollows(line, end) { return number }
                }
                previous = c
                k += 1
            }
        }
        return nil
    }

    // MARK: - Duplicate keys

    /// First scalar of a placeholder key: U+F0000 + index (Supplementary Private Use Area-A).
    package static func placeholderIndex(of key: String) -> Int? {
        guard let first = key.unicodeScalars.first, first.value >= 0xF0000,
            first.value < 0xF0000 + UInt32(duplicateLimit)
        else { return nil }
        return Int(first.value - 0xF0000)
    }

    /// Replaces the first character of the key that starts at `mark` with a placeholder
    /// scalar, keeping every position in the text unchanged. nil if the key is not a simple
    /// plain or quoted scalar.
    private static func neutralizeKey(
        in source: [Unicode.Scalar], positions: SpecTextPositions,
        at mark: Mark, index: Int
    ) -> [Unicode.Scalar]? {
        guard var offset = positions.offset(line: mark.line, column: mark.column),
            offset < source.count,
            let placeholder = Unicode.Scalar(0xF0000 + UInt32(index))
        else { return nil }
        let first = source[offset]
        if first == "\"" || first == "'" {
            offset += 1
            guard offset < source.count else { return nil }
            let c = source[offset]
            if c == first || c == "\\" || c == "\n" || c == "\r" { return nil }
        } else if "-?:,[]{}#&*!|>%@`".unicodeScalars.contains(first) || first == " " || first == "\t"
            || first == "\n" || first == "\r"
        {
            return nil
        }
        var out = source
        out[offset] = placeholder
        return out
    }

    // MARK: - Conversion

    /// Converts Yams nodes, counting them against the budget, expanding merge keys (`<<`),
    /// and reporting duplicate keys.
    private struct Converter {
        let location: (Mark?) -> SourceLocation
        let originals: [String]
        var diagnostics: [Diagnostic] = []
        var count = 0
        var overBudget: Bool { count > SpecYAMLReader.nodeBudget }
        /// Where nesting first exceeded `depthLimit`.
        var tooDeep: SourceLocation?
        private var depth = 0

        init(location: @escaping (Mark?) -> SourceLocation, originals: [String]) {
            self.location = location
            self.originals = originals
        }

        mutating func convert(_ node: Node) -> SpecNode {
            count += 1
            let here = location(node.mark)
            if overBudget || tooDeep != nil { return SpecNode(.reported, at: here) }
            if depth >= SpecYAMLReader.depthLimit {
                tooDeep = here
                return SpecNode(.reported, at: here)
            }
            depth += 1
            defer { depth -= 1 }
            switch node {
            case .scalar(let scalar):
                let isNull = scalar.style == .plain && SpecNode.isNullText(scalar.string)
                return SpecNode(.scalar(scalar.string, isNull: isNull), at: here)
            case .sequence(let sequence):
                var items: [SpecNode] = []
                for item in sequence {
                    items.append(convert(item))
                    if overBudget { break }
                }
                return SpecNode(.sequence(items), at: here)
            case .mapping(let mapping):
                return SpecNode(.mapping(convertMapping(mapping)), at: here)
            case .alias:
                // Yams resolves aliases while composing; nothing else produces this case.
                return SpecNode(.reported, at: here)
            }
        }

        private mutating func convertMapping(_ mapping: Node.Mapping) -> [SpecEntry] {
            var entries: [SpecEntry] = []
            var placeholders: [(position: Int, original: String)] = []
            for (keyNode, valueNode) in mapping {
                guard case .scalar(let keyScalar) = keyNode else {
                    diagnostics.append(
                        Diagnostic(
                            "a key must be a plain name, got \(keyNode.isMappingOrSequenceDescription); write `name: value`",
                            at: location(keyNode.mark)))
                    continue
                }
                let value = convert(valueNode)
                if overBudget { return entries }
                var key = keyScalar.string
                if keyScalar.style == .plain, key == "<<" { key = Self.mergeKey }
                if let index = SpecYAMLReader.placeholderIndex(of: key), index < originals.count {
                    placeholders.append((entries.count, originals[index] == "<<" ? Self.mergeKey : originals[index]))
                }
                entries.append(SpecEntry(key: key, keyLocation: location(keyNode.mark), value: value))
            }
            // Report each renamed (earlier) occurrence at the next key of the same name.
            func effectiveName(_ i: Int) -> String {
                placeholders.first { $0.position == i }?.original ?? entries[i].key
            }
            for placeholder in placeholders {
                var j = placeholder.position + 1
                while j < entries.count {
                    if effectiveName(j) == placeholder.original {
                        diagnostics.append(
                            duplicate(
                                placeholder.original, second: entries[j],
                                first: entries[placeholder.position].keyLocation))
                        break
                    }
                    j += 1
                }
            }
            let dropped = Set(placeholders.map(\.position))
            entries = entries.indices.filter { !dropped.contains($0) }.map { entries[$0] }
            // Keys equal as text but not as YAML values (`1` and `"1"`) are duplicates too.
            var seen: [String: SourceLocation] = [:]
            var unique: [SpecEntry] = []
            for entry in entries {
                if let first = seen[entry.key] {
                    diagnostics.append(duplicate(entry.key, second: entry, first: first))
                    unique.removeAll { $0.key == entry.key }
                }
                seen[entry.key] = entry.keyLocation
                unique.append(entry)
            }
            let merges = unique.filter { $0.key == Self.mergeKey }.map(\.value)
            return merge(merges, into: unique.filter { $0.key != Self.mergeKey })
        }

        /// Stands for a plain `<<` key until merging (a quoted "<<" is an ordinary key).
        private static let mergeKey = "\u{F00FF}<<"

        private func duplicate(_ name: String, second: SpecEntry, first: SourceLocation) -> Diagnostic {
            let name = name == Self.mergeKey ? "<<" : name
            return Diagnostic(
                "duplicate key '\(name)' (first at line \(first.line)); keep only one of them",
                at: second.keyLocation)
        }

        /// YAML merge keys: `<<: *defaults` or `<<: [*a, *b]`; explicit keys win, then
        /// earlier merged mappings.
        private mutating func merge(_ merges: [SpecNode], into entries: [SpecEntry]) -> [SpecEntry] {
            var result = entries
            for value in merges {
                let sources: [SpecNode]
                if case .sequence(let items) = value.content { sources = items } else { sources = [value] }
                for source in sources {
                    guard let merged = source.entries else {
                        diagnostics.append(
                            Diagnostic(
                                "'<<' merges a mapping, e.g. `<<: *defaults`; got \(source.kindDescription)",
                                at: source.location))
                        continue
                    }
                    for entry in merged where !result.contains(where: { $0.key == entry.key }) {
                        result.append(entry)
                    }
                }
            }
            return result
        }
    }

    // MARK: - Syntax errors

    private static func syntaxDiagnostic(
        _ error: any Error, positions: SpecTextPositions,
        location locationAt: (Int, Int) -> SourceLocation
    ) -> Diagnostic {
        func location(_ mark: Mark?) -> SourceLocation { locationAt(mark?.line ?? 1, mark?.column ?? 1) }
        guard let yamlError = error as? YamlError else {
            return Diagnostic("cannot parse YAML: \(error)", at: location(nil))
        }
        switch yamlError {
        case .scanner(let context, let problem, let mark, _),
            .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            return Diagnostic(
                syntaxMessage(problem: problem, context: context, mark: mark, positions: positions),
                at: location(mark))
        case .reader(let problem, let offset, _, let yaml):
            var position = (line: 1, column: 1)
            if let offset, offset >= 0,
                let index = yaml.index(yaml.startIndex, offsetBy: offset, limitedBy: yaml.endIndex)
            {
                let scalarOffset = yaml.unicodeScalars.distance(from: yaml.unicodeScalars.startIndex, to: index)
                position = positions.position(ofOffset: scalarOffset)
            }
            return Diagnostic(
                "YAML syntax error: \(problem); remove or replace that character",
                at: locationAt(position.line, position.column))
        default:
            return Diagnostic("cannot parse YAML: \(yamlError)", at: location(nil))
        }
    }

    private static func syntaxMessage(
        problem: String, context: YamlError.Context?, mark: Mark,
        positions: SpecTextPositions
    ) -> String {
        if problem.contains("another document") {
            return "more than one YAML document; a pipeline file holds a single document, so remove the extra '---'"
        }
        var message = "YAML syntax error: \(problem)"
        if let context, !context.text.isEmpty {
            message += " (\(context.text) at line \(context.mark.line))"
        }
        let atTab =
            positions.offset(line: mark.line, column: mark.column)
            .map { $0 < positions.scalars.count && positions.scalars[$0] == "\t" } ?? false
        let opened = context.map { " opened at line \($0.mark.line)" } ?? ""
        let hint: String
        if atTab {
            hint = "indent with spaces, not tabs"
        } else if problem.contains("mapping values are not allowed") {
            hint = "check the indentation, and quote values that contain ': '"
        } else if problem.contains("expected ',' or '}'") {
            hint = "close the '{'\(opened) with '}', and separate its entries with ','"
        } else if problem.contains("expected ',' or ']'") {
            hint = "close the '['\(opened) with ']', and separate its items with ','"
        } else if problem.contains("could not find expected ':'") {
            hint = "write `key: value` with a space after the colon, or quote the text"
        } else if problem.contains("did not find expected key") || problem.contains("did not find expected '-'") {
            hint = "check the indentation of this line"
        } else if problem.contains("expected node content") {
            hint = "a value is missing here, or starts with a reserved character; quote it"
        } else if problem.contains("cannot start any token") {
            hint = "quote the value"
        } else if problem.contains("undefined alias") {
            hint = "define the anchor (&name) before using *name"
        } else if problem.contains("end of stream") || problem.contains("unexpected end") {
            hint = context?.text.contains("quoted") == true ? "close the quote\(opened)" : "close the open quote or bracket"
        } else {
            hint = "check the YAML syntax here"
        }
        return message + "; " + hint
    }
}

private extension Node {
    var isMappingOrSequenceDescription: String {
        switch self {
        case .mapping: "a mapping"
        case .sequence: "a list"
        default: "a non-scalar"
        }
    }
}
