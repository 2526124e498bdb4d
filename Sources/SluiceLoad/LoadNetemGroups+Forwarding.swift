import Foundation
import Synchronization
import SluiceRun
import SluiceMeasure

extension LoadNetemGroups {
    /// IPv4 forwarding in this namespace (`/proc/sys/net/ipv4/ip_forward`): on while netem
    /// groups run, so their packets can go on to a service on another host, then back to what
    /// it was.
    package final class Forwarding: Sendable {
        private static let path = "/proc/sys/net/ipv4/ip_forward"
        /// What the setting was before `enable`, once it changed it.
        private let before = Mutex<String?>(nil)

        /// Turns forwarding on, remembering what it was.
        package func enable() throws {
            let now = (try? String(contentsOfFile: Self.path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "0"
            guard now != "1" else { return }
            do { try "1".write(toFile: Self.path, atomically: false, encoding: .utf8) } catch {
                throw RunError("cannot turn on IPv4 forwarding (\(Self.path)) for the netem groups: \(error.localizedDescription)")
            }
            before.withLock { $0 = now }
        }

        /// Puts back what `enable` changed (nothing if it changed nothing).
        package func restore() {
            guard
                let value = before.withLock({ v in
                    defer { v = nil }; return v
                })
            else { return }
            try? value.write(toFile: Self.path, atomically: false, encoding: .utf8)
        }
    }
}
