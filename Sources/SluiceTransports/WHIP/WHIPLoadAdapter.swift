import SluiceRun
import SluiceMeasure
import SluiceLoad
/// `transport.kind: whip` under load: each client is a publisher of the file's send
/// section (one shared capture and encoder for the crowd, `LoadPublisherHub`) that POSTs its
/// complete sendonly offer to the endpoint, applies the answer and DELETEs its session when
/// it leaves. `{client}` in the endpoint is the client's number, so each publisher can have
/// a stream of its own (`/whip/load-{client}`).
package struct WHIPLoadAdapter: LoadAdapter {
    package let kind = TransportKind.whip
    package let roles: Set<LoadRole> = [.publisher]

    package func session(for spec: PipelineSpec, role: LoadRole, client: Int) throws(RunError) -> any LoadSession {
        try OfferPostSession.make(for: spec, client: client, protocolName: "WHIP")
    }
}
