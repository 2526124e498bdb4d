/// What a request asks to do, in the terms of a token's `sluice_permissions` claim (after
/// MediaMTX's `mediamtx_permissions`): an action on a stream name.
public struct AccessRequest: Sendable, Equatable, CustomStringConvertible {
    /// The kinds of access a permission grants.
    public enum Action: String, Sendable, CaseIterable {
        /// Playing: WHEP, the stream lists, a pipeline's graph, the camera API.
        case read
        /// Publishing: WHIP.
        case publish
        /// The control API (`/api/v1`).
        case api
        /// `/metrics`.
        case metrics
    }

    /// What is asked.
    public var action: Action
    /// The stream, receiver or pipeline name; nil for lists and `/metrics`, which any
    /// permission with the action grants.
    public var path: String?

    /// A request for `action` on `path`.
    public init(_ action: Action, _ path: String? = nil) {
        self.action = action
        self.path = path
    }

    /// `read 'cam-1'`, or `metrics` for a request on no name.
    public var description: String { path.map { "\(action.rawValue) '\($0.prefix(64))'" } ?? action.rawValue }

    /// The access a request to `uriPath` needs, by the route it reaches.
    public static func forPath(_ uriPath: String) -> AccessRequest {
        let parts = uriPath.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        switch parts.first {
        case "whep": return AccessRequest(.read, parts.count > 1 ? parts[1] : nil)
        case "whip": return AccessRequest(.publish, parts.count > 1 ? parts[1] : nil)
        case "pipelines": return AccessRequest(.read, parts.count > 1 ? parts[1] : nil)
        case "metrics": return AccessRequest(.metrics)
        case "api": return AccessRequest(.api, parts.count > 3 ? parts[3] : nil)
        default: return AccessRequest(.read)
        }
    }
}

/// One entry of a token's `sluice_permissions`: `{"action": "read", "path": "cam-*"}`. A path
/// is a stream-name pattern where `*` stands for any run of characters; no path: every name.
public struct Permission: Codable, Sendable, Equatable {
    /// `read`, `publish`, `api` or `metrics`; another word grants nothing.
    public var action: String
    /// The names it covers; nil or empty: all.
    public var path: String?

    /// A permission for `action` on names matching `path`.
    public init(action: String, path: String? = nil) {
        self.action = action
        self.path = path
    }

    /// Whether this permission grants `request`.
    public func allows(_ request: AccessRequest) -> Bool {
        guard action == request.action.rawValue else { return false }
        guard let pattern = path, !pattern.isEmpty, pattern != "*" else { return true }
        guard let name = request.path else { return true } // a list: any permission for the action
        return Self.matches(Array(pattern.utf8), Array(name.utf8))
    }

    /// Glob matching with `*` only, iterative (no recursion a hostile pattern could deepen).
    static func matches(_ pattern: [UInt8], _ name: [UInt8]) -> Bool {
        var p = 0, n = 0, star = -1, mark = 0
        while n < name.count {
            if p < pattern.count, pattern[p] != UInt8(ascii: "*"), pattern[p] == name[n] {
                p += 1; n += 1
            } else if p < pattern.count, pattern[p] == UInt8(ascii: "*") {
                star = p; mark = n; p += 1
            } else if star >= 0 {
                p = star + 1; mark += 1; n = mark
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == UInt8(ascii: "*") { p += 1 }
        return p == pattern.count
    }
}
