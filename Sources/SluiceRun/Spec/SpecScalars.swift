import Foundation

/// Parsers for the scalar forms a pipeline file uses: integers, numbers, booleans, values with
/// units (bitrates, durations), IP addresses and STUN/TURN URLs. All are total: any input
/// yields a value or a failure, never a trap (no overflow, no out-of-range indexing).
package enum SpecScalars {
    package enum IntegerParse: Equatable {
        case value(Int)
        /// Written as an integer but does not fit in `Int`.
        case tooLarge
        case notAnInteger
    }

    /// A decimal integer with optional sign.
    package static func integer(_ raw: String) -> IntegerParse {
        let text = raw.trimmingCharacters(in: .whitespaces)
        if let value = Int(text) { return .value(value) }
        var digits = Substring(text)
        if digits.first == "+" || digits.first == "-" { digits = digits.dropFirst() }
        if !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) { return .tooLarge }
        return .notAnInteger
    }

    /// A finite decimal number.
    package static func number(_ raw: String) -> Double? {
        let text = raw.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty,
            text.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) || "+-.eE".unicodeScalars.contains($0) }),
            let value = Double(text), value.isFinite
        else { return nil }
        return value
    }

    /// YAML 1.1 booleans: true/false, yes/no, on/off (any case).
    package static func bool(_ raw: String) -> Bool? {
        switch raw.trimmingCharacters(in: .whitespaces).lowercased() {
        case "true", "yes", "on": true
        case "false", "no", "off": false
        default: nil
        }
    }

    /// Splits `"2.5M"` into `("2.5", "M")`.
    package static func splitUnit(_ raw: String) -> (number: String, unit: String) {
        let text = raw.trimmingCharacters(in: .whitespaces)
        var split = text.endIndex
        while split > text.startIndex {
            let before = text.index(before: split)
            let c = text[before]
            guard c.isLetter || c == "/" else { break }
            split = before
        }
        return (text[..<split].trimmingCharacters(in: .whitespaces), String(text[split...]))
    }

    /// A number times `scale` as an exact integer, or nil (non-integral, out of range).
    private static func exactInteger(_ number: String, scale: Double, allowFraction: Bool) -> Int? {
        if !allowFraction {
            guard case .value(let v) = integer(number) else { return nil }
            let (scaled, overflow) = v.multipliedReportingOverflow(by: Int(scale))
            return overflow ? nil : scaled
        }
        guard let value = self.number(number) else { return nil }
        let scaled = value * scale
        guard scaled.isFinite, abs(scaled) < 1e15, scaled.rounded() == scaled else { return nil }
        return Int(exactly: scaled)
    }

    /// kbit/s from `2000`, `"2000k"`, `"64kbps"`, `"2M"`, `"2.5Mbps"`.
    package static func bitrateKbps(_ raw: String) -> Int? {
        let (number, unit) = splitUnit(raw)
        switch unit {
        case "": return exactInteger(number, scale: 1, allowFraction: false)
        case "k", "K", "kbps", "kbit/s", "kb/s": return exactInteger(number, scale: 1, allowFraction: true)
        case "M", "Mbps", "mbps", "Mbit/s", "Mb/s": return exactInteger(number, scale: 1000, allowFraction: true)
        default: return nil
        }
    }

    /// Seconds from `10`, `2.5`, `"10s"`, `"500ms"`, `"30m"`, `"24h"`, `"7d"`.
    package static func durationSeconds(_ raw: String) -> Double? {
        let (number, unit) = splitUnit(raw)
        guard let value = self.number(number) else { return nil }
        switch unit {
        case "", "s": return value
        case "ms": return value / 1000
        case "m", "min": return value * 60
        case "h": return value * 3600
        case "d": return value * 86_400
        default: return nil
        }
    }

    /// Milliseconds from `50`, `"50ms"`, `"0.2s"`.
    package static func milliseconds(_ raw: String) -> Int? {
        let (number, unit) = splitUnit(raw)
        switch unit {
        case "", "ms": return exactInteger(number, scale: 1, allowFraction: false)
        case "s": return exactInteger(number, scale: 1000, allowFraction: true)
        default: return nil
        }
    }

    // MARK: - Addresses

    package static func isIPv4(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        return parts.allSatisfy { part in
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }),
                let value = Int(part)
            else { return false }
            return value <= 255
        }
    }

    package static func isIPv6(_ raw: Substring) -> Bool {
        var text = raw
        if let percent = text.firstIndex(of: "%") {
            guard text.index(after: percent) < text.endIndex else { return false }
            text = text[..<percent]
        }
        guard !text.isEmpty, text.count <= 45 else { return false }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return false }
        var groups = 0
        for (h, half) in halves.enumerated() where !half.isEmpty {
            let parts = half.split(separator: ":", omittingEmptySubsequences: false)
            for (i, part) in parts.enumerated() {
                let isLastOverall = h == halves.count - 1 && i == parts.count - 1
                if isLastOverall, part.contains(".") {
                    guard isIPv4(part) else { return false }
                    groups += 2
                    continue
                }
                guard (1...4).contains(part.count), part.allSatisfy(\.isHexDigit) else { return false }
                groups += 1
            }
        }
        return halves.count == 2 ? groups <= 7 : groups == 8
    }

    package static func isIPAddress(_ text: String) -> Bool {
        isIPv4(Substring(text)) || isIPv6(Substring(text))
    }

    /// nil if `host[:port]` (host a name, an IPv4 address or `[IPv6]`) is valid, else why not.
    package static func hostPortProblem(_ text: Substring) -> String? {
        var host = text
        var port: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return "missing ']' after the IPv6 address" }
            host = text[text.index(after: text.startIndex)..<close]
            guard isIPv6(host) else { return "'\(host)' is not an IPv6 address" }
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.first == ":" else { return "unexpected '\(rest)' after the address" }
                port = rest.dropFirst()
            }
        } else {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { return "too many ':' (write IPv6 addresses as [addr])" }
            host = parts[0]
            if parts.count == 2 { port = parts[1] }
            guard !host.isEmpty else { return "the host is missing" }
            guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") }) else {
                return "'\(host)' is not a host name or address"
            }
        }
        if let port {
            guard case .value(let value) = integer(String(port)), (1...65535).contains(value),
                port.allSatisfy({ $0.isASCII && $0.isNumber })
            else {
                return "port '\(port)' is not a number from 1 to 65535"
            }
        }
        return nil
    }

    /// nil if `text` is a valid STUN URL (`stun://host[:port]` or `stun:host[:port]`).
    package static func stunProblem(_ text: String) -> String? {
        let rest: Substring
        if text.hasPrefix("stun://") {
            rest = text.dropFirst("stun://".count)
        } else if text.hasPrefix("stun:") {
            rest = text.dropFirst("stun:".count)
        } else {
            return "invalid STUN server '\(text)': it must start with stun://; write stun://HOST[:PORT]"
        }
        if let problem = hostPortProblem(rest) {
            return "invalid STUN server '\(text)': \(problem); write stun://HOST[:PORT]"
        }
        return nil
    }

    /// nil if `text` is a valid TURN URL (`turn[s]://user:password@host[:port][?transport=udp|tcp]`).
    package static func turnProblem(_ text: String) -> String? {
        let usage = "write turn://USER:PASSWORD@HOST[:PORT] (or turns://)"
        var rest: Substring
        if text.hasPrefix("turn://") {
            rest = text.dropFirst("turn://".count)
        } else if text.hasPrefix("turns://") {
            rest = text.dropFirst("turns://".count)
        } else {
            return "invalid TURN server '\(text)': it must start with turn:// or turns://; \(usage)"
        }
        if let query = rest.firstIndex(of: "?") {
            let params = rest[rest.index(after: query)...]
            guard params == "transport=udp" || params == "transport=tcp" else {
                return "invalid TURN server '\(text)': the only query allowed is ?transport=udp or ?transport=tcp"
            }
            rest = rest[..<query]
        }
        guard let at = rest.lastIndex(of: "@") else {
            return "turn server '\(text)' has no credentials: it must contain user:pass@; \(usage)"
        }
        let credentials = rest[..<at]
        let parts = credentials.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty else {
            return "turn server '\(text)' needs user:pass@ before the host; \(usage)"
        }
        if let problem = hostPortProblem(rest[rest.index(after: at)...]) {
            return "invalid TURN server '\(text)': \(problem); \(usage)"
        }
        return nil
    }
}
