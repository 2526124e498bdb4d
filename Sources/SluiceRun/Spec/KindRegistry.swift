import Synchronization

/// The kinds of one extension point (transports, captures, sinks): the built-in ones, in the
/// order messages list them, and those added at run time (tests; a program embedding Sluice).
/// A kind added under a built-in kind's name replaces it.
///
/// The module that defines the registry lists its own kinds; a module above it that ships
/// more (SluiceTransports) adds them with `addBuiltIn` when a program registers it.
package final class KindRegistry<Kind: Sendable>: Sendable {
    private let shipped: Mutex<[Kind]>
    private let name: @Sendable (Kind) -> String
    private let added = Mutex<[Kind]>([])

    package init(_ builtIn: [Kind], name: @escaping @Sendable (Kind) -> String) {
        self.shipped = Mutex(builtIn)
        self.name = name
    }

    /// The kinds Sluice ships, in the order messages list them.
    package var builtIn: [Kind] { shipped.withLock { $0 } }

    /// Adds kinds Sluice ships from a module above this registry's (once per name: a kind
    /// already there keeps its place).
    package func addBuiltIn(_ kinds: [Kind]) {
        shipped.withLock { list in
            let have = Set(list.map(name))
            list += kinds.filter { !have.contains(name($0)) }
        }
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
        let builtIn = self.builtIn
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
