import Dispatch
import GStreamer
import Logging
import SluiceSignalling
import Synchronization

/// The connection states of a peer, as the native WebRTC API tracks them
/// (signalling stable, ICE connected, gathering complete).
public struct PeerStates: Sendable, Equatable {
    /// webrtcbin's `signaling-state` (`stable`, `have-local-offer`, ...).
    public var signaling: String = "stable"
    /// webrtcbin's `ice-connection-state` (`new`, `checking`, `connected`, ...).
    public var iceConnection: String = "new"
    /// webrtcbin's `ice-gathering-state` (`new`, `gathering`, `complete`).
    public var iceGathering: String = "new"
    /// webrtcbin's `connection-state` (`new`, `connecting`, `connected`, ...).
    public var connection: String = "new"

    /// ICE reached connected or completed.
    public var iceConnected: Bool { iceConnection == "connected" || iceConnection == "completed" }
    /// ICE gave up.
    public var iceFailed: Bool { iceConnection == "failed" }
}

/// An ICE candidate as signalling carries it.
public struct ICECandidate: Sendable, Equatable {
    /// The index of the SDP media section (m-line) the candidate belongs to.
    public var mlineIndex: UInt32
    /// The candidate line (`candidate:...`) as SDP and trickle ICE carry it.
    public var candidate: String
    /// A candidate for the media section at `mlineIndex`.
    public init(mlineIndex: UInt32, candidate: String) {
        self.mlineIndex = mlineIndex; self.candidate = candidate
    }
}

/// One webrtcbin and the operations signalling needs: offer/answer through promises,
/// candidates (queued until the remote description arrives) and state tracking.
public final class WebRTCPeer: Sendable {
    /// The webrtcbin element this peer drives.
    public let webrtcbin: Element
    /// A name for the peer (`offerer`, `viewer`, `whip`, ...) that prefixes its error messages.
    public let label: String
    /// Public addresses every local host candidate is also announced with (1:1 NAT), in the
    /// SDP and trickled alike: `WebRTCRecipe.publicAddresses`.
    public let publicAddresses: [String]

    private struct Shared {
        var states = PeerStates()
        var hasRemoteDescription = false
        var pendingCandidates: [ICECandidate] = []
        var onCandidate: (@Sendable (ICECandidate) -> Void)?
        var gatheredCandidates = 0
        var negotiationNeeded = 0
        var waiters: [(id: Int, predicate: @Sendable (PeerStates) -> Bool, resume: CheckedContinuation<Bool, Never>)] = []
        var nextWaiter = 0
        /// The check pacing went back to its settled value (`settleCheckPacing`).
        var pacingSettled = false
    }
    private let shared = Mutex(Shared())

    /// Wraps `webrtcbin` and starts tracking its states.
    public init(_ webrtcbin: Element, label: String, announcing publicAddresses: [String] = []) {
        self.webrtcbin = webrtcbin
        self.label = label
        self.publicAddresses = publicAddresses
        for (property, keyPath) in [
            ("signaling-state", \PeerStates.signaling),
            ("ice-connection-state", \PeerStates.iceConnection),
            ("ice-gathering-state", \PeerStates.iceGathering),
            ("connection-state", \PeerStates.connection)
        ] {
            webrtcbin.connect("notify::\(property)") { [weak self] (_: borrowing SignalArguments) in
                guard let self else { return }
                let value = self.webrtcbin.property(property)?.serialized ?? "unknown"
                self.update { $0[keyPath: keyPath] = value }
                if property == "ice-connection-state" { self.settleCheckPacing(after: value) }
            }
        }
        webrtcbin.connect("on-negotiation-needed") { [weak self] (_: borrowing SignalArguments) in
            self?.shared.withLock { $0.negotiationNeeded += 1 }
        }
        webrtcbin.connect("on-ice-candidate") { [weak self] (args: borrowing SignalArguments) in
            guard let self, let mline = args.get(1, as: UInt32.self), let cand = args.get(2, as: String.self) else { return }
            let handler = self.shared.withLock { s -> (@Sendable (ICECandidate) -> Void)? in
                s.gatheredCandidates += 1
                return s.onCandidate
            }
            handler?(ICECandidate(mlineIndex: mline, candidate: cand))
            for copy in PublicCandidates.copies(of: cand, announcing: self.publicAddresses) {
                handler?(ICECandidate(mlineIndex: mline, candidate: copy))
            }
        }
    }

    /// Once ICE is connected, checks go back to RFC 8445's pace (`WebRTCRecipe.settledPacingMs`).
    /// libnice 0.1.21 keeps its check timer ticking every Ta for as long as the agent lives:
    /// at the 5 ms that makes the connection come up fast, 200 wake-ups a second per peer.
    /// At `completed` (the pair is nominated) at once; at `connected`, 2 s later, in case the
    /// other side's nomination is still to come (a controlled agent may stay `connected`).
    private func settleCheckPacing(after state: String) {
        switch state {
        case "completed":
            settleCheckPacingNow()
        case "connected":
            DispatchQueue.global().asyncAfter(deadline: .now() + 2) { [weak self] in self?.settleCheckPacingNow() }
        default:
            break
        }
    }

    private func settleCheckPacingNow() {
        let first = shared.withLock { s -> Bool in
            defer { s.pacingSettled = true }
            return !s.pacingSettled
        }
        if first { ICEAgent.setCheckPacing(milliseconds: WebRTCRecipe.settledPacingMs, on: webrtcbin) }
    }

    /// Current states.
    public var states: PeerStates { shared.withLock { $0.states } }

    /// How often webrtcbin asked for (re)negotiation.
    public var negotiationNeededCount: Int { shared.withLock { $0.negotiationNeeded } }

    /// Local candidates gathered so far.
    public var gatheredCandidateCount: Int { shared.withLock { $0.gatheredCandidates } }

    /// Where local ICE candidates go (to the remote peer through signalling).
    public func onLocalCandidate(_ handler: @escaping @Sendable (ICECandidate) -> Void) {
        shared.withLock { $0.onCandidate = handler }
    }

    private func update(_ change: (inout PeerStates) -> Void) {
        let ready = shared.withLock { s -> [CheckedContinuation<Bool, Never>] in
            change(&s.states)
            let st = s.states
            let hit = s.waiters.filter { $0.predicate(st) }
            s.waiters.removeAll { $0.predicate(st) }
            return hit.map(\.resume)
        }
        for r in ready { r.resume(returning: true) }
    }

    /// Waits until `predicate` holds for the peer's states, or `timeout` seconds pass, or the
    /// task is cancelled. Returns whether the predicate held.
    public func wait(timeout: Double, until predicate: @escaping @Sendable (PeerStates) -> Bool) async -> Bool {
        let id = shared.withLock { s -> Int in
            s.nextWaiter += 1; return s.nextWaiter
        }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: .milliseconds(Int(timeout * 1000)))
            self?.expire(waiter: id)
        }
        defer { timer.cancel() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
                let now = shared.withLock { s -> Bool in
                    if predicate(s.states) { return true }
                    s.waiters.append((id, predicate, c))
                    return false
                }
                if now { c.resume(returning: true) }
                // Cancelled before the waiter was listed: the handler found nothing to end.
                if !now, Task.isCancelled { expire(waiter: id) }
            }
        } onCancel: {
            expire(waiter: id)
        }
    }

    private func expire(waiter id: Int) {
        let c = shared.withLock { s -> CheckedContinuation<Bool, Never>? in
            guard let i = s.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return s.waiters.remove(at: i).resume
        }
        c?.resume(returning: false)
    }

    // MARK: Offer / answer

    /// Creates an SDP offer (`create-offer`).
    public func createOffer() async throws(NegotiationError) -> SessionDescription {
        try await create("create-offer", field: "offer")
    }

    /// Creates an SDP answer to the remote offer (`create-answer`).
    public func createAnswer() async throws(NegotiationError) -> SessionDescription {
        try await create("create-answer", field: "answer")
    }

    private func create(_ signal: String, field: String) async throws(NegotiationError) -> SessionDescription {
        let promise = Promise()
        do { try webrtcbin.emit(signal, NullArgument(), promise) } catch {
            throw NegotiationError("\(label): \(signal) failed: \(error.message)")
        }
        guard case .replied(let reply?) = await promise.reply(timeout: Self.replyTimeout) else {
            throw NegotiationError("\(label): \(signal) got no reply within \(Self.replyTimeout)")
        }
        if let desc = SessionDescription(from: reply, field: field) {
            // webrtcbin miscomputes the fingerprint of a certificate given as PEM: what
            // leaves Sluice carries the real one. Its offers pair RTX with the first video
            // codec only: every codec gets one (`RTXCompletion`); its audio sections name an RTX
            // SSRC Chromium refuses (`AudioSSRCGroup`).
            var sdp = DTLSFingerprintFix.correct(desc.sdp)
            if desc.kind == .offer { sdp = AudioSSRCGroup.removing(from: RTXCompletion.completing(sdp)) }
            guard sdp != desc.sdp else { return desc }
            do { return try SessionDescription(kind: desc.kind, sdp: sdp) } catch {
                throw NegotiationError("\(label): \(signal) produced SDP that does not parse: \(error.message)")
            }
        }
        let why = reply.string(describing: "error") ?? reply.description
        throw NegotiationError("\(label): \(signal) failed: \(why)")
    }

    /// Sets the local description on webrtcbin; throws `NegotiationError` if it fails or gets no reply within 10 s.
    public func setLocalDescription(_ desc: SessionDescription) async throws(NegotiationError) {
        try await setDescription("set-local-description", desc)
    }

    /// Sets the remote description and then adds candidates that arrived before it.
    /// Candidates whose address is a `.local` name (browsers hide host addresses so) are
    /// taken out and added once multicast DNS has resolved them (`MDNSResolver`).
    public func setRemoteDescription(_ desc: SessionDescription) async throws(NegotiationError) {
        var desc = desc
        let (sdp, hidden) = MDNSCandidates.separating(desc.sdp)
        if !hidden.isEmpty, let cleaned = try? SessionDescription(kind: desc.kind, sdp: sdp) { desc = cleaned }
        try await setDescription("set-remote-description", desc)
        for c in hidden { resolveThenAdd(ICECandidate(mlineIndex: UInt32(c.mlineIndex), candidate: c.candidate), host: c.host) }
        let queued = shared.withLock { s -> [ICECandidate] in
            s.hasRemoteDescription = true
            defer { s.pendingCandidates = [] }
            return s.pendingCandidates
        }
        for c in queued { addRemoteCandidateNow(c) }
    }

    private func setDescription(_ signal: String, _ desc: SessionDescription) async throws(NegotiationError) {
        let promise = Promise()
        do { try webrtcbin.emit(signal, desc, promise) } catch {
            throw NegotiationError("\(label): \(signal) failed: \(error.message)")
        }
        switch await promise.reply(timeout: Self.replyTimeout) {
        case .replied(let reply):
            if let reply, reply.has("error") {
                throw NegotiationError("\(label): \(signal) failed: \(reply.string(describing: "error") ?? "")")
            }
            if RTCPPacing.needsRaisedAllowance(by: desc.sdp, local: signal == "set-local-description") {
                RTCPPacing.apply(to: webrtcbin)
            }
        case .interrupted, .expired:
            throw NegotiationError("\(label): \(signal) got no reply within \(Self.replyTimeout)")
        }
    }

    /// Adds a remote candidate, queuing it until the remote description is set (as the
    /// room-server pattern requires: candidates can overtake the SDP).
    public func addRemoteCandidate(_ candidate: ICECandidate) {
        let now = shared.withLock { s -> Bool in
            if s.hasRemoteDescription { return true }
            s.pendingCandidates.append(candidate)
            return false
        }
        if now { addRemoteCandidateNow(candidate) }
    }

    /// Adds a candidate whose address is the `.local` name `host` once multicast DNS
    /// resolves it; drops it (logged) when nothing answers.
    private func resolveThenAdd(_ c: ICECandidate, host: String) {
        let label = label
        Task.detached { [weak self] in
            guard let address = await MDNSResolver.shared.resolve(host) else {
                Logger(label: "sluice.mdns").info(
                    "an ICE candidate's .local name did not resolve; it is left out",
                    metadata: ["peer": "\(label)", "name": "\(host)"])
                return
            }
            self?.addRemoteCandidateNow(
                ICECandidate(
                    mlineIndex: c.mlineIndex,
                    candidate: MDNSCandidates.replacing(host: host, with: address, in: c.candidate)))
        }
    }

    private func addRemoteCandidateNow(_ c: ICECandidate) {
        if let host = MDNSCandidates.host(of: c.candidate) { resolveThenAdd(c, host: host); return }
        _ = try? webrtcbin.emit("add-ice-candidate", c.mlineIndex, c.candidate)
    }

    // MARK: Statistics

    /// How long an offer, answer or description may take: webrtcbin answers these in
    /// milliseconds, so a missing reply means a stuck session, not a slow one.
    package static let replyTimeout: Duration = .seconds(10)

    /// webrtcbin's `get-stats` for the whole connection; nil if it does not answer within 5 s (a stuck session must not
    /// stop the run's statistics loop, and with it the run's end).
    public func stats() async -> Structure? {
        let promise = Promise()
        do { try webrtcbin.emit("get-stats", NullArgument(), promise) } catch { return nil }
        if case .replied(let s) = await promise.reply(timeout: .seconds(5)) { return s }
        return nil
    }
}

/// Offer/answer or ICE went wrong.
public struct NegotiationError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, prefixed with the peer's label.
    public var message: String
    /// An error with this message.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
