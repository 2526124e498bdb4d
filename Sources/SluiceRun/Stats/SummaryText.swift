import Foundation

/// What the run summary and the measurement report say alike: the CPU line, the start-up
/// steps, and their JSON form.
package enum SummaryText {
    /// `name` padded to `width` for the summary's columns, never cut: a longer name pushes
    /// the rest of its line right (`framestamp` stays `framestamp`, not `framesta`).
    package static func column(_ name: String, width: Int) -> String {
        name.count >= width ? name : name.padding(toLength: width, withPad: " ", startingAt: 0)
    }

    /// `  cpu            2.94 s (57% of one core)`.
    package static func cpuLine(seconds: Double, over duration: Double) -> String {
        String(format: "  cpu            %.2f s (%.0f%% of one core)", seconds, duration > 0 ? seconds / duration * 100 : 0)
    }

    /// `playing 52, DTLS key made 295, … ms`.
    package static func steps(_ steps: [StartUpStep]) -> String {
        steps.map { String(format: "%@ %.0f", $0.step as NSString, $0.at_ms) }.joined(separator: ", ") + " ms"
    }
}

/// A report written as pretty JSON with a stable key order (`--json`, `--report`).
public protocol SummaryJSON: Encodable {}

extension SummaryJSON {
    /// Pretty JSON with sorted keys.
    public func json() throws -> Data {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try e.encode(self)
    }
}
