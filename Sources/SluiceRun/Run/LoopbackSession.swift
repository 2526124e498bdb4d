import Foundation
import GStreamer
import Logging
import SluiceSignalling
import Synchronization

/// `kind: loopback`'s session: the offer, the answer and (through the peers' candidate
/// handlers) the candidates pass between the two webrtcbins of this process. Checks what
/// the receive section accepts against what the offer describes, as a remote peer would.
package final class LoopbackSession: RemoteSession {
    package let sender: WebRTCPeer
    package let receiver: WebRTCPeer
    private let spec: PipelineSpec
    private let logger: Logger
    private let offers = Atomic<Int>(0)
    /// Offers made (1 after the negotiation; `PipelineRun.offersMade`).
    package var offersMade: Int { offers.load(ordering: .relaxed) }
    /// Both sides are this process's.
    package var peerMayLeave: Bool { false }

    package init(sender: WebRTCPeer, receiver: WebRTCPeer, spec: PipelineSpec, logger: Logger) {
        self.sender = sender; self.receiver = receiver; self.spec = spec; self.logger = logger
    }

    package func negotiate(stop: StopFlag, deadline: ContinuousClock.Instant?) async throws(RunError) -> Bool {
        do {
            offers.add(1, ordering: .relaxed)
            var steps = NegotiationSteps()
            let offer = try await sender.createOffer()
            steps.done("create-offer")
            let offered = SDPSummary(offer.sdp).media.filter { !$0.rejected }.count
            let branches = spec.sendBranches.count
            if offered < branches {
                throw RunError(
                    "the offer describes \(offered) of \(branches) send branches: webrtcbin could not read the encoded caps", at: spec.transport.location)
            }
            try await sender.setLocalDescription(offer)
            steps.done("set-local offer")
            var restricted: [String: [String]] = [:]
            for b in spec.receiveBranches where !b.codecs.isEmpty {
                restricted[b.media.rawValue] = b.codecs.map(\.encodingName)
            }
            if let refused = SDPSummary.incompatibilities(offer: SDPSummary(offer.sdp), accepts: restricted).first {
                throw RunError(refused + "; make send.<media>.encode.codec one the receiver accepts", at: spec.transport.location)
            }
            try await receiver.setRemoteDescription(offer)
            steps.done("set-remote offer")
            let answer = try await receiver.createAnswer()
            steps.done("create-answer")
            try await receiver.setLocalDescription(answer)
            steps.done("set-local answer")
            try await sender.setRemoteDescription(answer)
            steps.done("set-remote answer")
            logger.debug("loopback negotiation: \(steps)")
            logger.debug("offer:\n\(offer.sdp)\nanswer:\n\(answer.sdp)")

            var accepts: [String: [String]] = [:]
            for b in spec.receiveBranches {
                accepts[b.media.rawValue] = (b.codecs.isEmpty ? Codec.allCases.filter { $0.media == b.media } : b.codecs).map(\.encodingName)
            }
            let rejected = SDPSummary.rejections(
                offer: SDPSummary(offer.sdp), answer: SDPSummary(answer.sdp),
                answererAccepts: accepts)
            if let first = rejected.first {
                throw RunError(first + "; make send.<media>.encode.codec one the receiver accepts", at: spec.transport.location)
            }
            return true
        } catch let e as NegotiationError {
            throw RunError("negotiation failed: \(e.message)", at: spec.transport.location)
        } catch let e as RunError {
            throw e
        } catch {
            throw RunError("negotiation failed: \(error)")
        }
    }

    package func tick() async throws(RunError) -> String? { nil }
    package func end() async {}
    package var report: RunSummary.Session? { nil }
}
