import Foundation
import GStreamer
import Logging
import SluiceSignalling
import Synchronization
import SluiceRun

/// A Jingle call through an XMPP server: the caller offers in `session-initiate`, the
/// callee answers in `session-accept`; candidates trickle as `transport-info`;
/// `session-terminate` from the other side ends the run, and the summary says so.
package final class JingleSession: RemoteSession {
    package let peer: WebRTCPeer
    private let call: JingleCall
    private let negotiation: PeerNegotiation
    /// Caller: whom to call.
    private let target: JID?
    private let location: SourceLocation?
    private let logger: Logger

    private struct State {
        /// The session's offer (this side's as caller, the peer's as callee).
        var offer: String?
        /// The offer's m-line MIDs, in order: Jingle names candidates by MID, webrtcbin by index.
        var mids: [String] = []
        /// Remote candidates that came before the offer's MIDs were known.
        var early: [JingleCall.Candidate] = []
    }
    private let state = Mutex(State())
    private let status = SessionStatus()
    private let listener = Mutex<Task<Void, Never>?>(nil)

    package init(peer: WebRTCPeer, call: JingleCall, target: JID?, builder: GraphBuilder, spec: PipelineSpec, logger: Logger) {
        self.peer = peer
        self.call = call
        self.target = target
        self.location = spec.transport.location
        self.logger = logger
        self.negotiation = PeerNegotiation(
            peer: peer, builder: builder, spec: spec,
            session: target.map { "the call to \($0)" } ?? "the incoming call")
        peer.onLocalCandidate { [weak self] c in
            guard let self, !c.candidate.isEmpty else { return }
            let mid = self.state.withLock { s in Int(c.mlineIndex) < s.mids.count ? s.mids[Int(c.mlineIndex)] : nil }
            guard let mid else { return }
            call.sendCandidate(JingleCall.Candidate(mid: mid, candidate: c.candidate))
        }
    }

    /// Starts handling the call's events (the stream buffers them until then). Not in `init`:
    /// an offer that came while the pipeline was still on its way to PLAYING failed to apply
    /// ("set-remote-description failed", seen in CI when the caller was quicker).
    private func listen() {
        listener.withLock {
            guard $0 == nil else { return }
            $0 = Task { [weak self, call] in
                for await event in call.events {
                    guard let self else { return }
                    await self.handle(event)
                }
            }
        }
    }

    private func fail(_ error: RunError) {
        status.fail(error)
    }

    private func handle(_ event: JingleCall.Event) async {
        switch event {
        case .offer(let sdp, let from):
            logger.info("XMPP: \(from) calls")
            state.withLock {
                $0.offer = sdp
                $0.mids = Self.mids(of: sdp)
            }
            do {
                let answer = try await negotiation.answer(sdp)
                try await call.accept(answer: answer)
                status.negotiated()
            } catch {
                let why = (error as? RunError)?.message ?? "\(error)"
                // An offer this side could not even apply leaves webrtcbin as it was: refuse
                // that call and go on waiting, so one bad caller does not end the run.
                if peer.states.signaling == "stable" {
                    logger.warning("XMPP: refused the call from \(from): \(why)")
                    state.withLock {
                        $0.offer = nil
                        $0.mids = []
                        $0.early = []
                    }
                    await call.reject(reason: "failed-application", text: String(why.prefix(300)))
                    return
                }
                fail(RunError(why, at: location))
                await call.terminate(reason: "failed-application")
            }
            addEarlyCandidates()
        case .answer(let sdp):
            do {
                try await negotiation.apply(answer: sdp, to: state.withLock { $0.offer } ?? "")
                status.negotiated()
            } catch {
                fail(error)
            }
        case .candidates(let list):
            let ready = state.withLock { s -> Bool in
                if s.mids.isEmpty { s.early += list; return false }
                return true
            }
            if ready { add(list) }
        case .terminated(let reason):
            let who = call.peer.map { "\($0)" } ?? "the other peer"
            status.ended(by: "\(who) ended the Jingle session (\(reason))")
        case .failed(let why):
            fail(RunError("XMPP: \(why)", at: location))
        }
    }

    private func addEarlyCandidates() {
        let early = state.withLock { s in
            defer { s.early = [] }; return s.early
        }
        add(early)
    }

    private func add(_ list: [JingleCall.Candidate]) {
        let mids = state.withLock { $0.mids }
        for c in list {
            guard let index = mids.firstIndex(of: c.mid) else {
                logger.warning("XMPP: a candidate for unknown content '\(c.mid.prefix(40))' ignored")
                continue
            }
            peer.addRemoteCandidate(ICECandidate(mlineIndex: UInt32(index), candidate: c.candidate))
        }
    }

    /// The `a=mid` values of an SDP's m-sections, in order.
    package static func mids(of sdp: String) -> [String] {
        var mids: [String] = []
        var inMedia = false
        for raw in sdp.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
            if raw.hasPrefix("m=") {
                inMedia = true
                mids.append(String(mids.count))
            } else if inMedia, raw.hasPrefix("a=mid:") {
                mids[mids.count - 1] = String(raw.dropFirst(6))
            }
        }
        return mids
    }

    package func negotiate(stop: StopFlag, deadline: ContinuousClock.Instant?) async throws(RunError) -> Bool {
        listen()
        if let target {
            let offer: SessionDescription
            do {
                offer = try await peer.createOffer()
                // The MIDs first: candidates come as soon as the offer is applied.
                state.withLock {
                    $0.offer = offer.sdp
                    $0.mids = Self.mids(of: offer.sdp)
                }
                try await peer.setLocalDescription(offer)
            } catch {
                throw RunError("the call to \(target): \(error.message)", at: location)
            }
            let ring = deadline.map { max(1, ($0 - .now).seconds) } ?? 60
            logger.info("XMPP: calling \(target)")
            do { try await call.call(target, offer: offer.sdp, ringTimeout: ring) } catch {
                throw RunError("XMPP: \(error.description)", at: location)
            }
            addEarlyCandidates()
        } else {
            logger.info("XMPP: \(call.client.jid) waits for a call")
        }
        return try await status.waitUntilNegotiated(stop: stop, deadline: deadline)
    }

    package func tick() async throws(RunError) -> String? { try status.tick() }

    package func end() async {
        status.leave()
        await call.terminate()
        listener.withLock { $0?.cancel() }
    }

    package var report: RunSummary.Session? {
        var s = RunSummary.Session(
            role: target == nil ? "callee" : "caller", id: call.sid,
            ended_by_peer: status.endedBy)
        s.peer = call.peer?.description
        s.refused = call.refusals.isEmpty ? nil : call.refusals
        return s
    }
}
