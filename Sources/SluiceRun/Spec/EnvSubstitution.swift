/// `${VAR}` / `${VAR:-default}` substitution in pipeline-file values.
///
/// - `${VAR}` is the variable's value; an unset variable is an error.
/// - `${VAR:-default}` is the value, or `default` when the variable is unset or empty (as in
///   the shell). `default` runs to the first `}` and is taken literally.
/// - `$$` is a literal `$`. A `$` followed by anything else is kept as it is.
/// - Variable names are `[A-Za-z_][A-Za-z0-9_]*`.
package enum EnvSubstitution {
    package enum Failure: Error, Equatable {
        /// The message, e.g. `environment variable 'W' is not set; ...`.
        case unset(String)
        case malformed(String)

        package var message: String {
            switch self {
            case .unset(let name): "environment variable '\(name)' is not set; set it or write ${\(name):-default}"
            case .malformed(let message): message
            }
        }
    }

    /// Substitutes every occurrence in `text`.
    package static func substitute(_ text: String, environment: [String: String]) -> Result<String, Failure> {
        // Fast path: nothing to do.
        guard text.contains("$") else { return .success(text) }
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            guard c == "$", i + 1 < scalars.count else {
                out.append(c)
                i += 1
                continue
            }
            let next = scalars[i + 1]
            if next == "$" {
                out.append("$")
                i += 2
                continue
            }
            guard next == "{" else {
                out.append(c)
                i += 1
                continue
            }
            // ${ ... }
            guard let close = scalars[(i + 2)...].firstIndex(of: "}") else {
                return .failure(.malformed("unterminated '${' in '\(text)'; write ${NAME}, ${NAME:-default} or $$ for a literal '$'"))
            }
            let body = scalars[(i + 2)..<close]
            var name = String.UnicodeScalarView()
            var defaultValue: String.UnicodeScalarView?
            if let sep = body.indices.first(where: { body[$0] == ":" }) {
                name.append(contentsOf: body[body.startIndex..<sep])
                let rest = body[(sep + 1)...]
                guard rest.first == "-" else {
                    return .failure(.malformed("invalid '${\(String(String.UnicodeScalarView(body)))}' in '\(text)'; write ${NAME} or ${NAME:-default}"))
                }
                defaultValue = String.UnicodeScalarView(rest.dropFirst())
            } else {
                name.append(contentsOf: body)
            }
            let nameString = String(name)
            guard isValidName(nameString) else {
                return .failure(.malformed("invalid environment variable name '\(nameString)' in '\(text)'; names are letters, digits and '_', e.g. ${WIDTH}"))
            }
            if let value = environment[nameString], !(value.isEmpty && defaultValue != nil) {
                out.append(contentsOf: value.unicodeScalars)
            } else if let defaultValue {
                out.append(contentsOf: defaultValue)
            } else {
                return .failure(.unset(nameString))
            }
            i = close + 1
        }
        return .success(String(out))
    }

    package static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || (first.isASCII && first.properties.isAlphabetic) else {
            return false
        }
        return name.unicodeScalars.allSatisfy { $0 == "_" || ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) }
    }

    /// Substitutes in every scalar value of the tree (not in keys). A failing scalar becomes
    /// `.reported` and yields one diagnostic at its position.
    /// `unsetWarnings`: nil makes an unset variable an error; otherwise the text stays as
    /// written and a warning is added there (checking a file that is run elsewhere).
    package static func apply(
        to node: inout SpecNode, environment: [String: String], diagnostics: inout [Diagnostic],
        unsetWarnings: inout [Diagnostic]?
    ) {
        switch node.content {
        case .scalar(let text, let isNull):
            guard !isNull else { return }
            switch substitute(text, environment: environment) {
            case .success(let value):
                node.content = .scalar(value, isNull: false)
            case .failure(.unset(let name)) where unsetWarnings != nil:
                unsetWarnings?.append(
                    Diagnostic(
                        "warning: environment variable '\(name)' is not set; set it before running this file",
                        at: node.location))
            case .failure(let failure):
                diagnostics.append(Diagnostic(failure.message, at: node.location))
                node.content = .reported
            }
        case .sequence(var items):
            for index in items.indices {
                apply(to: &items[index], environment: environment, diagnostics: &diagnostics, unsetWarnings: &unsetWarnings)
            }
            node.content = .sequence(items)
        case .mapping(var entries):
            for index in entries.indices {
                apply(to: &entries[index].value, environment: environment, diagnostics: &diagnostics, unsetWarnings: &unsetWarnings)
            }
            node.content = .mapping(entries)
        case .reported:
            return
        }
    }
}
