import GStreamer
import Synchronization

extension WebRTCPeer {
    /// Answers a remote offer in one round trip, as WHIP, WHEP and the camera API do: sets
    /// the offer, creates and sets the answer, waits (bounded) for ICE gathering to complete,
    /// and returns the answer SDP with every local candidate written into it, so the remote
    /// side needs no trickle.
    public func answer(offer sdp: String, gatheringTimeout: Double = 5) async throws(NegotiationError) -> String {
        var steps = NegotiationSteps()
        return try await answer(offer: sdp, gatheringTimeout: gatheringTimeout, steps: &steps)
    }

    /// `answer(offer:gatheringTimeout:)`, noting each step's time in `steps`.
    package func answer(offer sdp: String, gatheringTimeout: Double = 5, steps: inout NegotiationSteps) async throws(NegotiationError) -> String {
        let collected = CandidateLog()
        onLocalCandidate { collected.add($0) }
        let offer: SessionDescription
        do { offer = try SessionDescription(kind: .offer, sdp: sdp) } catch {
            throw NegotiationError("\(label): \(error.message)")
        }
        try await setRemoteDescription(offer)
        steps.done("set-remote offer")
        let answer = try await createAnswer()
        steps.done("create-answer")
        try await setLocalDescription(answer)
        steps.done("set-local answer")
        let complete = try await withGatheredCandidates(answer.sdp, from: collected, timeout: gatheringTimeout)
        steps.done("ICE gathered")
        return complete
    }

    /// Creates an offer and returns it once ICE gathering is complete (bounded), with every
    /// local candidate written into it: the complete, non-trickle offer WHIP/WHEP clients
    /// and the camera API expect.
    public func offerWithCandidates(gatheringTimeout: Double = 5) async throws(NegotiationError) -> String {
        let collected = CandidateLog()
        onLocalCandidate { collected.add($0) }
        let offer = try await createOffer()
        try await setLocalDescription(offer)
        return try await withGatheredCandidates(offer.sdp, from: collected, timeout: gatheringTimeout)
    }

    /// Waits (bounded) for ICE gathering to complete, then writes what was gathered into `sdp`.
    private func withGatheredCandidates(
        _ sdp: String, from collected: CandidateLog,
        timeout: Double
    ) async throws(NegotiationError) -> String {
        let complete = await wait(timeout: timeout) { $0.iceGathering == "complete" }
        let candidates = collected.all
        if !complete && candidates.isEmpty {
            throw NegotiationError(
                "\(label): ICE gathered no candidates within \(timeout) s; "
                    + "set the ICE addresses to gather on (e.g. 127.0.0.1)")
        }
        return Self.insert(candidates, into: sdp, complete: complete)
    }

    /// Writes `a=candidate:` lines (and `a=end-of-candidates` once gathering is complete)
    /// into each media section of `sdp`, by m-line index.
    package static func insert(_ candidates: [ICECandidate], into sdp: String, complete: Bool) -> String {
        var sections: [[Substring]] = [[]]
        for line in sdp.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("m=") { sections.append([]) }
            sections[sections.count - 1].append(line)
        }
        var out: [String] = sections[0].map(String.init)
        for (i, section) in sections.dropFirst().enumerated() {
            out += section.map(String.init)
            let mine = candidates.filter { Int($0.mlineIndex) == i }
            let existing = Set(section.filter { $0.hasPrefix("a=candidate:") }.map(String.init))
            for c in mine {
                let line = c.candidate.hasPrefix("a=") ? c.candidate : "a=" + c.candidate
                if !existing.contains(line) { out.append(line) }
            }
            if complete, !section.contains("a=end-of-candidates") { out.append("a=end-of-candidates") }
        }
        return out.joined(separator: "\r\n") + "\r\n"
    }
}

/// Local candidates collected while gathering.
package final class CandidateLog: Sendable {
    private let list = Mutex<[ICECandidate]>([])
    package func add(_ c: ICECandidate) { list.withLock { $0.append(c) } }
    package var all: [ICECandidate] { list.withLock { $0 } }
}
