import Yams

/// `--set dotted.path=value` overrides, applied to the node tree after `${VAR}` substitution.
///
/// Intermediate mappings are created as needed. A path through a scalar or a list is an
/// error (lists are replaced whole: `--set transport.ice.addresses=[127.0.0.1, ::1]`). The
/// value is read as a YAML scalar or flow collection (`[a, b]`, `{kind: stats}`); anything
/// that does not parse as one is taken as plain text.
///
/// Locations: the pseudo-file `--set <argument>`, line 1; values at the column of the value,
/// new keys at the column of their path component, so an error renders as
/// `--set send.video.encode.codec=vp99:1:29: unknown codec 'vp99' ...`.
package enum SpecOverrides {
    /// A parsed `--set` argument.
    package struct Override {
        package var argument: String
        /// Path components with their 1-based column in the argument.
        package var path: [(key: String, column: Int)]
        package var value: SpecNode
        package var file: String { "--set \(argument)" }
    }

    /// A `--set` argument that cannot be parsed.
    package struct OverrideError: Error {
        package var diagnostic: Diagnostic
        package init(_ message: String, at location: SourceLocation) {
            diagnostic = Diagnostic(message, at: location)
        }
    }

    /// The pseudo-file name diagnostics about `argument` use.
    package static func fileName(for argument: String) -> String { "--set \(argument)" }

    package static func parse(_ argument: String) -> Result<Override, OverrideError> {
        let file = fileName(for: argument)
        let scalars = Array(argument.unicodeScalars)
        guard let eq = scalars.firstIndex(of: "=") else {
            return .failure(
                OverrideError(
                    "missing '=' in --set '\(argument)'; write --set path.to.key=value, e.g. --set send.video.encode.codec=vp9",
                    at: SourceLocation(file: file, line: 1, column: 1)))
        }
        guard eq > 0 else {
            return .failure(
                OverrideError(
                    "empty path in --set '\(argument)'; write --set path.to.key=value",
                    at: SourceLocation(file: file, line: 1, column: 1)))
        }
        var path: [(String, Int)] = []
        var start = 0
        for i in 0...eq where i == eq || scalars[i] == "." {
            let key = String(String.UnicodeScalarView(scalars[start..<i]))
            if key.isEmpty {
                return .failure(
                    OverrideError(
                        "empty key in path '\(String(String.UnicodeScalarView(scalars[0..<eq])))' of --set; separate keys with single dots, e.g. send.video.encode.codec",
                        at: SourceLocation(file: file, line: 1, column: start + 1)))
            }
            path.append((key, start + 1))
            start = i + 1
        }
        let valueColumn = eq + 2
        let valueText = String(String.UnicodeScalarView(scalars[(eq + 1)...]))
        let value = parseValue(valueText, file: file, column: valueColumn)
        return .success(Override(argument: argument, path: path, value: value))
    }

    /// The override value as a node: a YAML scalar, a flow list, a flow mapping, or text.
    private static func parseValue(_ text: String, file: String, column: Int) -> SpecNode {
        let here = SourceLocation(file: file, line: 1, column: column)
        let plain = SpecNode(.scalar(text, isNull: text.isEmpty), at: here)
        guard !text.isEmpty,
            let node = try? Yams.compose(yaml: text, Resolver.default, Constructor.default, .utf8)
        else {
            return plain
        }
        func convert(_ node: Node, depth: Int) -> SpecNode? {
            var location = here
            if let mark = node.mark, mark.line == 1 { location.column = column + max(0, mark.column - 1) }
            guard depth < 64 else { return nil }
            switch node {
            case .scalar(let s):
                return SpecNode(.scalar(s.string, isNull: s.style == .plain && SpecNode.isNullText(s.string)), at: location)
            case .sequence(let seq):
                var items: [SpecNode] = []
                for item in seq {
                    guard let converted = convert(item, depth: depth + 1) else { return nil }
                    items.append(converted)
                }
                return SpecNode(.sequence(items), at: location)
            case .mapping(let map):
                var entries: [SpecEntry] = []
                for (key, value) in map {
                    guard case .scalar(let k) = key, let v = convert(value, depth: depth + 1) else { return nil }
                    var keyLocation = here
                    if let mark = key.mark, mark.line == 1 { keyLocation.column = column + max(0, mark.column - 1) }
                    entries.append(SpecEntry(key: k.string, keyLocation: keyLocation, value: v))
                }
                return SpecNode(.mapping(entries), at: location)
            case .alias:
                return nil
            }
        }
        // Block mappings ("a: b") are almost certainly text such as a gst fragment.
        if case .mapping = node, !text.trimmingPrefix(while: { $0 == " " }).hasPrefix("{") { return plain }
        return convert(node, depth: 0) ?? plain
    }

    /// Applies the overrides in order; returns diagnostics for overrides that cannot apply.
    package static func apply(_ overrides: [Override], to root: inout SpecNode) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        for override in overrides {
            if let diagnostic = apply(override, at: 0, to: &root) { diagnostics.append(diagnostic) }
        }
        return diagnostics
    }

    private static func apply(_ override: Override, at depth: Int, to node: inout SpecNode) -> Diagnostic? {
        guard depth < override.path.count else { return nil }
        let (key, column) = override.path[depth]
        let keyLocation = SourceLocation(file: override.file, line: 1, column: column)
        var entries: [SpecEntry]
        switch node.content {
        case .mapping(let existing): entries = existing
        case .scalar(_, isNull: true), .reported: entries = []
        case .scalar, .sequence:
            let parent = depth == 0 ? "the top level" : "'\(override.path[depth - 1].key)'"
            let at =
                depth == 0
                ? keyLocation
                : SourceLocation(file: override.file, line: 1, column: override.path[depth - 1].column)
            return Diagnostic(
                "--set path '\(override.path.map(\.key).joined(separator: "."))' goes through \(parent), which is \(node.kindDescription), not a mapping; set \(parent == "the top level" ? "a key" : parent) as a whole instead",
                at: at)
        }
        let isLast = depth == override.path.count - 1
        var failure: Diagnostic?
        if let index = entries.firstIndex(where: { $0.key == key }) {
            if isLast {
                entries[index].value = override.value
            } else {
                failure = apply(override, at: depth + 1, to: &entries[index].value)
            }
        } else {
            var value = isLast ? override.value : SpecNode(.mapping([]), at: keyLocation)
            if !isLast { failure = apply(override, at: depth + 1, to: &value) }
            entries.append(SpecEntry(key: key, keyLocation: keyLocation, value: value))
        }
        if failure == nil { node.content = .mapping(entries) }
        return failure
    }
}
