import Foundation
import SluiceSignalling
import SluiceRun
import SluiceMeasure
import SluiceLoad

/// `transport.kind: janus` under load: in a Janus VideoRoom each client is a subscriber of the
/// room's publishers (those `subscribe` names, or all of them; Janus offers, the client
/// answers) or a publisher; in an AudioBridge room (`plugin: audiobridge`) each is a member
/// that sends audio into the mix and hears the others. Each has a Janus session of its own.
package struct JanusLoadAdapter: LoadAdapter {
    package let kind = TransportKind.janus
    package let roles: Set<LoadRole> = [.viewer, .publisher, .member]

    /// VideoRoom clients view or publish; AudioBridge clients are members; EchoTest has no crowd.
    package func check(_ load: LoadSpec, for spec: PipelineSpec) throws(RunError) {
        guard let janus = spec.transport.settings(as: JanusSpec.self) else { return }
        let role = try role(for: spec)
        let at = janus.pluginLocation ?? spec.transport.location
        switch janus.plugin {
        case .echotest:
            throw RunError(
                "Janus's EchoTest is one PeerConnection, not a crowd: measure it with `sluice measure`, or load a VideoRoom or AudioBridge room", at: at)
        case .audiobridge where role != .member:
            throw RunError("AudioBridge load clients send audio into the mix and hear the others: the file needs send.audio and receive.audio", at: at)
        case .videoroom where role == .member:
            throw RunError(
                "janus VideoRoom load clients either view or publish, not both: keep one section, or join an AudioBridge room (`plugin: audiobridge`)", at: at)
        default:
            break
        }
    }

    /// An AudioBridge room mixes its members' audio: they speak in turns (`SpeakingTurns`).
    package func mixesAudio(of spec: PipelineSpec) -> Bool { spec.transport.settings(as: JanusSpec.self)?.plugin == .audiobridge }

    package func serviceOffers(as role: LoadRole) -> Bool { role == .viewer }

    /// The Janus server and its VideoRoom.
    package func target(of spec: PipelineSpec) -> String {
        spec.transport.settings(as: JanusSpec.self).map { "\($0.server) \($0.plugin == .audiobridge ? "AudioBridge " : "")room \($0.room)" } ?? kind.rawValue
    }

    package func session(for spec: PipelineSpec, role: LoadRole, client: Int) throws(RunError) -> any LoadSession {
        guard let janus = spec.transport.settings(as: JanusSpec.self) else {
            throw RunError("transport kind 'janus' needs 'server' and 'room'", at: spec.transport.location)
        }
        let timeout = JanusSpec.requestTimeout(spec.transport)
        switch role {
        case .viewer: return JanusLoadSession(spec: janus, timeout: timeout)
        case .publisher: return JanusPublisherLoadSession(spec: janus, display: "\(janus.display ?? "sluice-load")-\(client)", timeout: timeout)
        case .member: return JanusAudioBridgeLoadSession(spec: janus, display: "\(janus.display ?? "sluice-load")-\(client)", timeout: timeout)
        }
    }
}

/// One load viewer of a Janus room: create a session, attach to the VideoRoom, list the
/// room's publishers, `join` as a subscriber of their streams, answer Janus's offer (complete,
/// candidates included) with `start`; JanusClient keeps the session alive while the client
/// stays; `leave` and `destroy` at the end.
package final class JanusLoadSession: LoadSession {
    private let spec: JanusSpec
    private let timeout: Double
    private let connection = JanusLoadConnection()

    /// A subscriber of `spec`'s room whose requests to Janus wait at most `timeout` seconds.
    package init(spec: JanusSpec, timeout: Double) {
        self.spec = spec
        self.timeout = timeout
    }

    package func join(_ peer: WebRTCPeer, sending: any LoadSendSetup) async throws(LoadJoinFailure) {
        let client: JanusClient, handle: Int64, reply: JanusClient.Reply
        do throws(JanusClient.Failure) {
            (client, handle) = try await connection.attach(JanusVideoRoom.plugin, spec: spec, timeout: timeout)
            let feeds = try await publishers(client: client, handle: handle)
            reply = try await client.message(
                JanusVideoRoom.subscribe(room: .init(spec.room), feeds: feeds, privateID: nil, pin: spec.pin, substream: spec.substream), handle: handle)
        } catch {
            throw Self.failure(error)
        }
        guard let offer = reply.jsep, offer.type == "offer" else {
            throw .badAnswer("Janus answered the subscriber's 'join' without an offer: \(reply.data.text.prefix(200))")
        }
        if let problem = SDPCheck.problem(in: offer.sdp) { throw .badAnswer("Janus's offer is malformed: \(problem)") }
        let answer: String
        do { answer = try await peer.answer(offer: offer.sdp) } catch {
            throw .badAnswer("Janus's offer could not be answered: \(error.message)")
        }
        do {
            _ = try await client.message(JanusVideoRoom.start, jsep: .init(type: "answer", sdp: answer), handle: handle)
        } catch {
            throw Self.failure(error)
        }
    }

    /// The feeds to subscribe to: the room's publishers (`listparticipants`), those
    /// `subscribe` names (display names or ids) if it names any, at most 32.
    private func publishers(client: JanusClient, handle: Int64) async throws(JanusClient.Failure) -> [Int64] {
        let room: JSONValue =
            switch JanusVideoRoom.RoomID(spec.room) {
            case .number(let n): .int(n)
            case .name(let s): .string(s)
            }
        var body: [String: JSONValue] = ["request": "listparticipants", "room": room]
        if let pin = spec.pin { body["pin"] = .string(pin) }
        let reply = try await client.message(.object(body), handle: handle)
        let publishing = (reply.data["participants"]?.array ?? []).filter { $0["publisher"]?.bool == true }
        let wanted = publishing.compactMap { p -> Int64? in
            guard let id = p["id"]?.int else { return nil }
            guard let names = spec.subscribe else { return id }
            return names.contains(p["display"]?.string ?? "") || names.contains(String(id)) ? id : nil
        }
        guard !wanted.isEmpty else {
            let whom = spec.subscribe.map { "none of \($0.joined(separator: ", ")) publishes" } ?? "nobody publishes"
            throw JanusClient.Failure(
                "Janus: room \(spec.room) has nothing to view: \(whom) (\(publishing.count) publishing)", code: Self.nothingToView)
        }
        return Array(wanted.prefix(32))
    }

    /// The code of the failure `publishers` throws when the room has no one to view (not one of
    /// Janus's codes, but a refusal all the same: Janus answered, and there is nothing to join).
    private static let nothingToView = -1

    /// A refusal when Janus or its plugin gave an error code; otherwise Janus did not answer.
    package static func failure(_ e: JanusClient.Failure) -> LoadJoinFailure {
        e.code != nil ? .refused(e.description) : .unreachable(e.description)
    }

    package func leave() async { await connection.leave() }
}
