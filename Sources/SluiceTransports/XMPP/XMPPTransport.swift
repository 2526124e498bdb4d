import Foundation
import SluiceSignalling
import SluiceRun

extension TransportKind {
    /// Call a peer, or wait for calls, over XMPP with Jingle (`server`, `jid`, `password`;
    /// `peer` to call, `allow` for who may call). Both sections may be present.
    public static let xmpp = TransportKind(rawValue: "xmpp")
}

/// `kind: xmpp`: logs in to an XMPP server, then calls `peer` with Jingle (it offers) or
/// waits for a call from someone on the `allow` list (it answers).
package struct XMPPTransport: Transport {
    package let kind = TransportKind.xmpp
    package let keys = ["server", "jid", "password", "peer", "allow", "tls", "ca"]

    package func decodeSettings(_ map: [SpecEntry], at location: SourceLocation, with decoder: inout SpecDecoder) -> (any KindSettings)? {
        decoder.decodeXMPP(map, at: location)
    }

    package func prepare(_ c: TransportContext) async throws(RunError) -> TransportSetup {
        let spec = c.spec
        guard let xmpp = spec.transport.settings(as: XMPPSpec.self), var jid = JID(xmpp.jid) else {
            throw RunError("transport kind 'xmpp' needs 'jid' and 'password'", at: spec.transport.location)
        }
        // A callee is reached at a resource its callers can name.
        if jid.resource == nil { jid.resource = "sluice" }
        let config = XMPPClient.Configuration(
            jid: jid, password: xmpp.password, host: xmpp.host, port: xmpp.port,
            tls: xmpp.tlsRequired ? .required : .offered, trustRoots: xmpp.ca,
            timeout: max(2, min(spec.transport.ice.connectTimeout, 30)))
        let client: XMPPClient
        do { client = try await XMPPClient.connect(config, logger: c.logger) } catch {
            throw RunError("XMPP: \(error.description)", at: spec.transport.location)
        }
        c.logger.info("XMPP: logged in as \(client.jid) (\(client.mechanism)\(client.encrypted ? ", TLS" : ", no TLS"))")
        let target = xmpp.peer.flatMap(JID.init)
        let call = JingleCall(
            client: client, role: target == nil ? .callee : .caller,
            allow: xmpp.allow?.compactMap(JID.init), logger: c.logger)
        let p = try c.twoWayPeer(initiator: target != nil)
        // The callee answers: what it sends waits for the offer's payload types.
        if target == nil { c.builder.holdSend() }
        let remote = JingleSession(peer: p, call: call, target: target, builder: c.builder, spec: spec, logger: c.logger)
        return TransportSetup(
            peer: p, session: remote,
            opensChannels: target != nil ? p.webrtcbin : nil,
            acceptsChannels: target != nil ? nil : p.webrtcbin)
    }
}
