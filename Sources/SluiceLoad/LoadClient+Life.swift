import Foundation
import SluiceRun
import SluiceMeasure

/// A load client's life: join, connect, stay its planned time while watching the media,
/// leave. Every way it can end is an outcome in its observation, never a throw.
extension LoadClient {
    /// How long a client stays and how long it may take to connect.
    package struct Plan: Sendable {
        /// Seconds the client stays once connected.
        package var stay: Double
        /// Seconds from the request to ICE and DTLS connected before the client gives up.
        package var connectTimeout: Double
        /// Seconds without a frame, once frames flowed, after which the service is taken as gone.
        package var mediaTimeout: Double = 5
        /// The medium whose silence means the service is gone: video, or audio where the
        /// client receives no video (an audio conference's member).
        package var watched: MediaKind = .video
    }

    /// Runs the client to its end; returns the outcome recorded in its observation.
    @discardableResult
    package func live(session: any LoadSession, plan: Plan, stop: StopFlag, clock: LoadClock) async -> ClientOutcome {
        var outcome: ClientOutcome
        do throws(LoadJoinFailure) {
            try await session.join(peer, sending: media)
            do throws(RunError) {
                try media.joined(peer: peer)
                outcome = await connectAndStay(session: session, plan: plan, stop: stop, clock: clock)
            } catch {
                outcome = .failedToConnect(reason: error.message)
            }
        } catch {
            switch error {
            case .refused(let why): outcome = .refused(reason: why)
            case .unreachable(let why): outcome = .failedToConnect(reason: "the service did not answer: \(why)")
            case .badAnswer(let why): outcome = .failedToConnect(reason: why)
            }
        }
        await session.leave()
        let end = clock.now
        note {
            $0.outcome = outcome
            $0.endedAt = end
        }
        return outcome
    }

    /// Waits for ICE, then DTLS, then stays `plan.stay` seconds watching the media.
    private func connectAndStay(session: any LoadSession, plan: Plan, stop: StopFlag, clock: LoadClock) async -> ClientOutcome {
        let started = observation.startedAt
        let left = { max(0.1, plan.connectTimeout - (clock.now - started)) }
        guard await peer.wait(timeout: left(), until: { $0.iceConnected || $0.iceFailed }), peer.states.iceConnected else {
            return .failedToConnect(reason: peer.states.iceFailed ? "ICE failed" : "ICE did not connect within \(Self.seconds(plan.connectTimeout))")
        }
        let ice = clock.now
        note { $0.iceConnectedAt = ice }
        guard await peer.wait(timeout: left(), until: { ["connected", "failed"].contains($0.connection) }), peer.states.connection == "connected" else {
            return .failedToConnect(reason: "DTLS did not connect within \(Self.seconds(plan.connectTimeout)) (connection \(peer.states.connection))")
        }
        let dtls = clock.now
        note { $0.dtlsConnectedAt = dtls }
        let until = dtls + plan.stay
        // Statistics every 5 s, the crowd's reads spread over those 5 s by client id.
        var nextStats = dtls + Double(id % 20) * 0.25
        var nextKeepAlive = dtls + 1
        while clock.now < until, !stop.isSet, !leaveEarly.isSet {
            if let gone = serviceGone(plan: plan, clock: clock) {
                await readNetwork()
                return .serviceGone(reason: gone)
            }
            if clock.now >= nextStats {
                await readNetwork()
                nextStats += 5
            }
            if clock.now >= nextKeepAlive {
                nextKeepAlive += 1
                if let ended = await session.keepAlive() {
                    await readNetwork()
                    return .serviceGone(reason: ended)
                }
            }
            try? await Task.sleep(for: .milliseconds(250))
        }
        await readNetwork()
        if let error = receiveError { return .serviceGone(reason: error) }
        if leaveEarly.isSet, !stop.isSet {
            note { $0.churned = true }
            return .leftAsPlanned
        }
        return stop.isSet && clock.now < until ? .stoppedEarly : .leftAsPlanned
    }

    /// Why the service looks gone from this client, if it does: the connection failed or
    /// closed, or no frame (no audio packet, where audio is watched) came for
    /// `plan.mediaTimeout` (counted from connected until the first, and from the last after it).
    private func serviceGone(plan: Plan, clock: LoadClock) -> String? {
        let states = peer.states
        if states.iceFailed || ["failed", "closed"].contains(states.connection) {
            return "the connection \(states.iceFailed ? "failed (ICE)" : states.connection)"
        }
        // A publisher sends whatever the service does; only its connection tells.
        guard media.framesComeFromService else { return nil }
        let o = observation
        let last = plan.watched == .video ? o.frames.lastAt : o.audio?.lastAt
        let what = plan.watched == .video ? (one: "frame", many: "frames") : (one: "audio", many: "audio packets")
        let quietSince = last ?? o.dtlsConnectedAt ?? clock.now
        if clock.now - quietSince > plan.mediaTimeout {
            return last == nil
                ? "no \(what.one) came within \(Self.seconds(plan.mediaTimeout)) of connecting"
                : "\(what.many) stopped for more than \(Self.seconds(plan.mediaTimeout))"
        }
        return nil
    }

    /// The client's network figures from its webrtcbin's statistics.
    private func readNetwork() async {
        guard let structure = await peer.stats() else { return }
        let stats = WebRTCStats(structure)
        var n = ClientNetwork()
        n.bytesReceived = stats.bytesReceived
        n.bytesSent = stats.bytesSent
        // A viewer's loss is what did not reach it; a publisher's, what the service reported.
        n.packetsLost = media.framesComeFromService ? stats.packetsLostReceiving : stats.packetsLost
        n.nacksSent = stats.nackCount
        n.plisSent = stats.pliCount
        n.firsSent = stats.firCount
        n.rttMs = stats.roundTripMs
        n.jitterMs = stats.jitterMs
        if let local = stats.localPath, let remote = stats.remotePath { n.path = "\(local) -> \(remote)" }
        note { [n] in $0.network = n }
    }

    package static func seconds(_ s: Double) -> String { String(format: "%g s", s) }
}
