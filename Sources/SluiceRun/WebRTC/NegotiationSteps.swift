import Foundation

/// How long each step of a negotiation took, for the debug log (where start-up time goes):
/// a loopback run's six steps, a served viewer's answer.
package struct NegotiationSteps: CustomStringConvertible {
    private struct Step {
        var name: String
        var ms: Double
    }
    private var last = ContinuousClock.now
    private var taken: [Step] = []

    /// Notes that `step` ended now.
    package mutating func done(_ step: String) {
        let now = ContinuousClock.now
        taken.append(Step(name: step, ms: (now - last).seconds * 1000))
        last = now
    }

    package var description: String { taken.map { "\($0.name) \(String(format: "%.1f", $0.ms)) ms" }.joined(separator: ", ") }
}
