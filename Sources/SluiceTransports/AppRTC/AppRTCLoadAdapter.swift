import SluiceRun
import SluiceMeasure
import SluiceLoad
/// `transport.kind: apprtc` under load: the crowd in calls of two. Clients 2k and 2k+1 join
/// room `<room>-<k>` of the room server, which makes whoever comes first the initiator (it
/// offers) and the other the joiner (it answers). Every member sends the crowd's one shared
/// stream (`LoadPublisherHub`) and plays what the other member sends (`LoadMemberMedia`).
package struct AppRTCLoadAdapter: LoadAdapter {
    package let kind = TransportKind.apprtc
    package let roles: Set<LoadRole> = [.member]

    /// The room client `client` meets its partner in: `<room>-<client / 2>`.
    package static func room(of client: Int, in room: String) -> String { "\(room)-\(client / 2)" }

    /// Calls are of two. (Churn replaces whole calls: `LoadCallChurn`.)
    package func check(_ load: LoadSpec, for spec: PipelineSpec) throws(RunError) {
        guard load.clients % 2 == 0 else {
            throw RunError(
                "apprtc load clients meet in calls of two, so the crowd needs an even number of clients; it has \(load.clients)",
                at: load.location ?? spec.transport.location)
        }
    }

    /// The room server and the rooms the calls meet in.
    package func target(of spec: PipelineSpec) -> String {
        guard let settings = spec.transport.settings(as: AppRTCSettings.self) else { return kind.rawValue }
        return "\(settings.endpoint) rooms \(settings.room)-0, \(settings.room)-1, …"
    }

    package func session(for spec: PipelineSpec, role: LoadRole, client: Int) throws(RunError) -> any LoadSession {
        let settings = spec.transport.settings(as: AppRTCSettings.self)
        return AppRTCLoadSession(
            server: settings?.endpoint ?? "", room: Self.room(of: client, in: settings?.room ?? ""),
            timeout: spec.transport.ice.connectTimeout)
    }
}
