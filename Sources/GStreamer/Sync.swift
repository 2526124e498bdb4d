import Synchronization

/// A one-way flag shared between threads.
public final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    public init() {}
    public func set() { flag.store(true, ordering: .releasing) }
    public var isSet: Bool { flag.load(ordering: .acquiring) }
}
