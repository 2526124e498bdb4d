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

    /// Calls are of two. (Churn replaces whole calls: `LoadCallChurn`.) A member takes one
    /// stream, so simulcast layers would never be sent past the first.
    package func check(_ load: LoadSpec, for spec: PipelineSpec) throws(RunError) {
        guard load.clients % 2 == 0 else {
            throw RunError(
                "apprtc load clients meet in calls of two, so the crowd needs an even number of clients; it has \(load.clients)",
                at: load.location ?? spec.transport.location)
        }
        if let layer = spec.send?.video?.encode.simulcast.first {
            throw RunError(
                "apprtc load members take one stream from each other, so only the first simulcast layer would be sent: "
                    + "remove 'simulcast' (or load a server that forwards layers: whip or janus)", at: layer.location)
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
