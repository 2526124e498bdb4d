/// How long each step of a negotiation took, for the debug log (where start-up time goes):
/// a loopback run's six steps, a served viewer's answer.
struct NegotiationSteps: CustomStringConvertible {
    private var last = ContinuousClock.now
    private var taken: [(step: String, ms: Double)] = []

    /// Notes that `step` ended now.
    mutating func done(_ step: String) {
        let now = ContinuousClock.now
        taken.append((step, (now - last).seconds * 1000))
        last = now
    }

    var description: String { taken.map { "\($0.step) \(String(format: "%.1f", $0.ms)) ms" }.joined(separator: ", ") }
}
