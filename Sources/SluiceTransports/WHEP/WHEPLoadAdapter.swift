import Foundation
import GStreamer
import SluiceSignalling
import Synchronization
import SluiceRun
import SluiceMeasure
import SluiceLoad

/// `transport.kind: whep` under load: each client POSTs its complete recvonly offer to the
/// endpoint, applies the answer and DELETEs its session when it leaves.
package struct WHEPLoadAdapter: LoadAdapter {
    package let kind = TransportKind.whep
    package let roles: Set<LoadRole> = [.viewer]

    package func session(for spec: PipelineSpec, role: LoadRole, client: Int) throws(RunError) -> any LoadSession {
        try OfferPostSession.make(for: spec, client: client, protocolName: "WHEP")
    }
}
