import Foundation
import HTTPTypes
import Hummingbird
import Synchronization

/// Whether the server is draining: after SIGTERM it takes no new sessions (`503` with
/// `Retry-After`, and `/readyz` fails) while the sessions it has finish.
public final class DrainState: Sendable {
    private let draining = Atomic<Bool>(false)
    /// A server that is not draining.
    public init() {}
    /// Whether `begin()` has been called: new sessions are refused from then on.
    public var isDraining: Bool { draining.load(ordering: .relaxed) }
    /// Starts draining; true the first time.
    @discardableResult
    public func begin() -> Bool { !draining.exchange(true, ordering: .relaxed) }

    /// Seconds a refused client is told to wait before retrying (another replica, or this
    /// one after a restart).
    static let retryAfterSeconds = 5
}

/// Refuses requests that would start a session while the server drains: `POST /whep/<s>`,
/// `POST /whip/<n>` and `POST /join/<room>` (answers, DELETEs, PATCHes and room messages of
/// existing sessions still pass). The refusal is the group's own (WHIP's plain text, the
/// rooms' JSON), with `Retry-After`.
struct DrainMiddleware<Context: RequestContext>: RouterMiddleware {
    let drain: DrainState
    let refuse: @Sendable () -> Response

    func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard drain.isDraining, request.method == .post, Self.startsSession(request.uri.path) else {
            return try await next(request, context)
        }
        var response = refuse()
        response.headers[.retryAfter] = "\(DrainState.retryAfterSeconds)"
        return response
    }

    /// `/whep/<x>`, `/whip/<x>`, `/join/<x>`: a new session's path.
    static func startsSession(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        return parts.count == 2 && ["whep", "whip", "join"].contains(parts[0])
    }
}
