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
enum SpecYAMLReader {
    /// At most this many nodes after expanding aliases (guards against "billion laughs").
    static let nodeBudget = 100_000
    /// At most this many levels of nesting (a pipeline file needs about eight).
    static let depthLimit = 64
    /// At most this many duplicate keys are resolved before giving up.
    static let duplicateLimit = 32

    static func read(_ text: String, file: String) -> (root: SpecNode?, diagnostics: [Diagnostic]) {
        let positions = SpecTextPositions(text)
        func location(_ mark: Mark?) -> SourceLocation {
            locationAt(mark?.line ?? 1, mark?.column ?? 1)
        }
        func locationAt(_ line: Int, _ column: Int) -> SourceLocation {
            let (line, column) = positions.clamp(line: line, column: column)
            return SourceLocation(file: file, line: line, column: column)
        }

        var source = positions.scalars
        var originals: [String] = []  // placeholder index → the key it replaced
        while true {
            let node: Node?
            do {
                var view = String.UnicodeScalarView()
                view.append(contentsOf: source)
                node = try Yams.compose(yaml: String(view), Resolver.default, Constructor.default, .utf8)
            } catch let YamlError.duplicatedKeysInMapping(duplicates, context) {
                let name = duplicates.first ?? ""
                if originals.count < duplicateLimit,
                   let renamed = neutralizeKey(in: source, positions: positions, at: context.mark,
                                               index: originals.count) {
                    source = renamed
                    originals.append(name)
                    continue
                }
                return (nil, [Diagnostic("duplicate key '\(name)'; keep only one of them", at: location(context.mark))])
            } catch {
                return (nil, [syntaxDiagnostic(error, positions: positions, location: locationAt)])
            }
            guard let node else { return (nil, []) }
            var converter = Converter(location: location, originals: originals)
            let root = converter.convert(node)
            if converter.overBudget {
                return (nil, [Diagnostic(
                    "the file expands to more than \(nodeBudget) YAML nodes (through aliases); simplify it",
                    at: locationAt(1, 1))])
            }
            if let tooDeep = converter.tooDeep {
                return (nil, [Diagnostic(
                    "the file nests more than \(depthLimit) levels deep; a pipeline file needs far fewer",
                    at: tooDeep)])
            }
            return (root, converter.diagnostics)
        }
    }

    // MARK: - Duplicate keys

    /// First scalar of a placeholder key: U+F0000 + index (Supplementary Private Use Area-A).
    static func placeholderIndex(of key: String) -> Int? {
        guard let first = key.unicodeScalars.first, first.value >= 0xF0000,
              first.value < 0xF0000 + UInt32(duplicateLimit) else { return nil }
        return Int(first.value - 0xF0000)
    }

    /// Replaces the first character of the key that starts at `mark` with a placeholder
    /// scalar, keeping every position in the text unchanged. nil if the key is not a simple
    /// plain or quoted scalar.
    private static func neutralizeKey(in source: [Unicode.Scalar], positions: SpecTextPositions,
                                      at mark: Mark, index: Int) -> [Unicode.Scalar]? {
        guard var offset = positions.offset(line: mark.line, column: mark.column),
              offset < source.count,
              let placeholder = Unicode.Scalar(0xF0000 + UInt32(index)) else { return nil }
        let first = source[offset]
        if first == "\"" || first == "'" {
            offset += 1
            guard offset < source.count else { return nil }
            let c = source[offset]
            if c == first || c == "\\" || c == "\n" || c == "\r" { return nil }
        } else if "-?:,[]{}#&*!|>%@`".unicodeScalars.contains(first) || first == " " || first == "\t"
                    || first == "\n" || first == "\r" {
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
                    diagnostics.append(Diagnostic(
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
                        diagnostics.append(duplicate(placeholder.original, second: entries[j],
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
            return Diagnostic("duplicate key '\(name)' (first at line \(first.line)); keep only one of them",
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
                        diagnostics.append(Diagnostic(
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

    private static func syntaxDiagnostic(_ error: any Error, positions: SpecTextPositions,
                                         location locationAt: (Int, Int) -> SourceLocation) -> Diagnostic {
        func location(_ mark: Mark?) -> SourceLocation { locationAt(mark?.line ?? 1, mark?.column ?? 1) }
        guard let yamlError = error as? YamlError else {
            return Diagnostic("cannot parse YAML: \(error)", at: location(nil))
        }
        switch yamlError {
        case .scanner(let context, let problem, let mark, _),
             .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            return Diagnostic(syntaxMessage(problem: problem, context: context, mark: mark, positions: positions),
                              at: location(mark))
        case .reader(let problem, let offset, _, let yaml):
            var position = (line: 1, column: 1)
            if let offset, offset >= 0,
               let index = yaml.index(yaml.startIndex, offsetBy: offset, limitedBy: yaml.endIndex) {
                let scalarOffset = yaml.unicodeScalars.distance(from: yaml.unicodeScalars.startIndex, to: index)
                position = positions.position(ofOffset: scalarOffset)
            }
            return Diagnostic("YAML syntax error: \(problem); remove or replace that character",
                              at: locationAt(position.line, position.column))
        default:
            return Diagnostic("cannot parse YAML: \(yamlError)", at: location(nil))
        }
    }

    private static func syntaxMessage(problem: String, context: YamlError.Context?, mark: Mark,
                                      positions: SpecTextPositions) -> String {
        if problem.contains("another document") {
            return "more than one YAML document; a pipeline file holds a single document, so remove the extra '---'"
        }
        var message = "YAML syntax error: \(problem)"
        if let context, !context.text.isEmpty {
            message += " (\(context.text) at line \(context.mark.line))"
        }
        let atTab = positions.offset(line: mark.line, column: mark.column)
            .map { $0 < positions.scalars.count && positions.scalars[$0] == "\t" } ?? false
        let hint: String
        if atTab {
            hint = "indent with spaces, not tabs"
        } else if problem.contains("mapping values are not allowed") {
            hint = "check the indentation, and quote values that contain ': '"
        } else if problem.contains("did not find expected key") || problem.contains("did not find expected '-'") {
            hint = "check the indentation of this line"
        } else if problem.contains("cannot start any token") {
            hint = "quote the value"
        } else if problem.contains("undefined alias") {
            hint = "define the anchor (&name) before using *name"
        } else if problem.contains("end of the stream") || problem.contains("unexpected end") {
            hint = "close the open quote or bracket"
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
