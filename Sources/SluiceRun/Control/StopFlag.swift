import Synchronization

/// A one-way flag shared between threads: a run, a measurement or a server stops once it is
/// set (by a signal handler, the control API, or the code that started them).
public final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    /// A flag not yet set.
    public init() {}

    /// Sets the flag; it stays set.
    public func set() { flag.store(true, ordering: .releasing) }

    /// Whether `set()` has been called.
    public var isSet: Bool { flag.load(ordering: .acquiring) }
}
