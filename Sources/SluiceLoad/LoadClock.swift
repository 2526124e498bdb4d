import SluiceRun
import SluiceMeasure
/// Seconds since a load run started: the one timeline every client's observation uses.
public struct LoadClock: Sendable {
    private let start = ContinuousClock.now

    /// A clock that starts now.
    public init() {}

    /// Seconds since the clock started.
    public var now: Double { (ContinuousClock.now - start).seconds }
}
