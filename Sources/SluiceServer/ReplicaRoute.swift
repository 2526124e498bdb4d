import SluiceSignalling

/// Which replica holds a WHEP or WHIP session, written into its Location URL so a proxy in
/// front of several `sluice serve` replicas can send the session's PATCH and DELETE to the
/// one that has it (`--instance NAME`; `deploy/nginx/replicas.conf` routes on it).
///
/// With an instance, a session `ab12…` of stream `cam` lives at `/whep/cam/NAME.ab12…`;
/// without one, at `/whep/cam/ab12…` as before.
public struct ReplicaRoute: Sendable, Equatable {
    /// This replica's name: 1 to 32 lowercase letters, digits or `-`; nil for one server.
    public let instance: String?

    /// A route for `instance` (nil: no replicas). Throws the reason a name is refused.
    public init(instance: String?) throws(ReplicaRouteError) {
        if let instance {
            let allowed = instance.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
            guard (1...32).contains(instance.count), allowed, !instance.hasPrefix("-") else {
                throw ReplicaRouteError(name: instance)
            }
        }
        self.instance = instance
    }

    private init() { instance = nil }

    /// One server, no replicas: Location URLs carry the session id alone.
    public static let single = ReplicaRoute()

    /// The session's name in its Location URL.
    public func external(_ id: String) -> String {
        instance.map { "\($0).\(id)" } ?? id
    }

    /// The session id of a Location's last segment. A session named for another replica was
    /// sent to the wrong one: 421 Misdirected Request, saying which replica holds it.
    public func session(_ segment: String) -> Result<String, WHIP.HTTPError> {
        guard let dot = segment.firstIndex(of: ".") else { return .success(segment) }
        let owner = String(segment[..<dot])
        guard owner == instance else {
            let here = instance ?? "(none)"
            let message =
                "session '\(segment)' is held by replica '\(owner)', not '\(here)': "
                + "route requests by the replica named in the session URL (deploy/nginx/replicas.conf)"
            return .failure(WHIP.HTTPError(421, message))
        }
        return .success(String(segment[segment.index(after: dot)...]))
    }
}

/// `--instance` was not a name a URL segment and a proxy rule can carry.
public struct ReplicaRouteError: Error, CustomStringConvertible, Sendable {
    /// The refused name.
    public let name: String
    /// What to write instead.
    public var description: String {
        "--instance '\(name)' must be 1 to 32 lowercase letters, digits or '-', e.g. sluice-0 (a pod's name)"
    }
}
