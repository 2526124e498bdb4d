import Synchronization

/// The kinds of one extension point (transports, captures, sinks): the built-in ones, in the
/// order messages list them, and those added at run time (tests; a program embedding Sluice).
/// A kind added under a built-in kind's name replaces it.
package final class KindRegistry<Kind: Sendable>: Sendable {
    package let builtIn: [Kind]
    private let name: @Sendable (Kind) -> String
    private let added = Mutex<[Kind]>([])

    package init(_ builtIn: [Kind], name: @escaping @Sendable (Kind) -> String) {
        self.builtIn = builtIn
        self.name = name
    }

    /// Adds `kind`, replacing one of the same name added before.
    package func register(_ kind: Kind) {
        let n = name(kind)
        added.withLock { list in
            list.removeAll { name($0) == n }
            list.append(kind)
        }
    }

    /// Removes the kind called `kindName` added with `register` (a built-in one comes back).
    package func unregister(_ kindName: String) {
        added.withLock { $0.removeAll { name($0) == kindName } }
    }

    /// Every kind, built-in first.
    package var all: [Kind] {
        let extra = added.withLock { $0 }
        let names = Set(extra.map(name))
        return builtIn.filter { !names.contains(name($0)) } + extra
    }

    /// Every kind's name, in order.
    package var names: [String] { all.map(name) }

    /// The kind called `kindName`, if there is one.
    package func kind(named kindName: String) -> Kind? { all.first { name($0) == kindName } }

    /// `["a", "b", "c"]` → "a, b and c" (`conjunction` "or": "a, b or c").
    package static func list(_ names: [String], conjunction: String = "and") -> String {
        names.count <= 1 ? names.joined() : names.dropLast().joined(separator: ", ") + " \(conjunction) " + names[names.count - 1]
    }
}
