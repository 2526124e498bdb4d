import SluiceSignalling
import Synchronization

/// The Janus session and plugin handle of one load client (viewer, publisher or AudioBridge
/// member): made by `attach`, kept for `leave`, which sends the plugin's `leave` and destroys
/// the session (both plugins take `{"request": "leave"}`). What was made before a failure is
/// still left: a client refused at `join` does not stay in Janus.
package final class JanusLoadConnection: Sendable {
    private struct State {
        var client: JanusClient?
        var handle: Int64?
    }
    private let state = Mutex(State())

    /// Nothing made yet.
    package init() {}

    /// Connects to `spec`'s server (requests bounded by `timeout` seconds) and attaches
    /// `plugin`, keeping both for `leave()`.
    package func attach(_ plugin: String, spec: JanusSpec, timeout: Double) async throws(JanusClient.Failure) -> (client: JanusClient, handle: Int64) {
        let client = try await JanusClient.connect(spec.clientConfiguration(timeout: timeout))
        state.withLock { $0.client = client }
        let handle = try await client.attach(plugin)
        state.withLock { $0.handle = handle }
        return (client, handle)
    }

    /// `leave`, then `destroy` (which detaches the handle): two requests, each bounded by the
    /// timeout, and none once the connection is gone. Forgets both.
    package func leave() async {
        let (client, handle) = state.withLock { s in
            defer { s = State() }
            return (s.client, s.handle)
        }
        guard let client else { return }
        if let handle { _ = try? await client.message(JanusVideoRoom.leave, handle: handle) }
        await client.close()
    }
}
