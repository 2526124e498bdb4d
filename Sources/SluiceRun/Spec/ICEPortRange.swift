import Foundation

/// `MIN-MAX`, the local ports an ICE agent may bind: `transport.ice.port_range` in a pipeline
/// file, `--ice-port-range` on the command line.
public enum ICEPortRange {
    /// Why a port range was refused, in words for the user.
    public struct Problem: Error, Sendable, Equatable {
        /// The message, which says what to write instead.
        public let message: String
    }

    /// The range `text` names, or why it does not name one.
    public static func parse(_ text: String) -> Result<ClosedRange<Int>, Problem> {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let low = Int(parts[0]), let high = Int(parts[1]) else {
            return .failure(Problem(message: "'\(text)' is not a port range; write MIN-MAX, such as 40000-40099"))
        }
        guard (1024...65535).contains(low), (1024...65535).contains(high) else {
            return .failure(Problem(message: "port range \(text) must lie within 1024-65535"))
        }
        guard high > low else {
            return .failure(Problem(message: "port range \(text) needs MIN below MAX, and at least two ports"))
        }
        return .success(low...high)
    }
}
