import GStreamer
import SluiceSignalling

/// How often webrtcbin's RTP sessions may send RTCP.
///
/// rtpsession spaces RTCP by RFC 3550's rule: average compound size × members ÷ RTCP
/// bandwidth, where the bandwidth defaults to 5% of an assumed 1 Mbit/s. Transport-wide
/// congestion control feedback rides in that RTCP (an early packet is allowed once per
/// interval, RFC 4585), and it makes the compounds large, so the interval grows: on a
/// receiving webrtcbin feedback left in batches every 200–300 ms, and a sender learned
/// about a filling queue that late. A larger RTCP allowance brings the interval down to
/// tens of milliseconds, as browsers send it; RTCP stays small next to the media (a few
/// kbit/s more in practice).
///
/// Only a peer that *receives* media needs it: the feedback comes from the receiver. A
/// send-only peer (a served viewer, a WHIP publisher) keeps rtpsession's default, about one
/// compound a second. At the raised allowance such a peer sent ten sender reports a second
/// per viewer, each crossing srtpenc and dtlssrtpenc's funnel (which re-sends its sticky
/// events whenever its input switches between RTP and RTCP); that was a fifth of a served
/// viewer's CPU.
///
/// A receiver needs it where transport-wide feedback is negotiated, or where its session has
/// more than three members: rtpsession sends NACKs at once only in sessions of at most 3
/// (RFC 4585's immediate mode, `rtcp-immediate-feedback-threshold`), and past that one early
/// packet per report interval. With the default allowance, 8 audio and video viewers behind
/// 3% loss froze 3–10 times in 15 s, with it none (docs/benchmarks.md, calls of two). A
/// receiver of one video stream without transport-wide feedback (its sender, the sender's
/// retransmission SSRC and its own: three members) keeps the default: NACKs leave at once
/// there anyway, and the raised allowance cost it 1% of its process's CPU in
/// `Benchmarks/c-compare.sh` (the RTCP thread, 1.9% against plain C's 0.8%).
package enum RTCPPacing {
    /// RTCP bandwidth per session, bit/s (rtpsession's `rtcp-fraction` above 1 is absolute).
    package static let rtcpBitsPerSecond = 150_000.0

    /// The audio and video lines by which the peer that sets `description` receives media: in
    /// a local description those that say `sendrecv` or `recvonly`, in a remote one those that
    /// say `sendrecv` or `sendonly`.
    package static func receivedMedia(in description: String, local: Bool) -> [SDPSummary.Media] {
        let receiving: Set<String> = local ? ["sendrecv", "recvonly"] : ["sendrecv", "sendonly"]
        return SDPSummary(description).media.filter { m in
            (m.kind == "audio" || m.kind == "video") && !m.rejected && receiving.contains(m.direction)
        }
    }

    /// Whether the peer that sets `description` receives media by it.
    package static func receivesMedia(by description: String, local: Bool) -> Bool {
        !receivedMedia(in: description, local: local).isEmpty
    }

    /// Whether the peer that sets `description` needs the raised allowance: it receives media
    /// by it, and either transport-wide congestion control is offered or answered in it or it
    /// receives more than one media line (more than three members in a bundled session).
    /// Transport-wide feedback needs the header extension that numbers the packets: webrtcbin
    /// writes `a=rtcp-fb:PT transport-cc` into every video offer of its own, with or without
    /// it, so the extension is what is looked for.
    package static func needsRaisedAllowance(by description: String, local: Bool) -> Bool {
        let received = receivedMedia(in: description, local: local)
        guard !received.isEmpty else { return false }
        return description.contains(RTPHeaderExtension.transportWideCC) || received.count > 1
    }

    /// Sets the allowance on every RTP session of `webrtcbin` (they exist once a
    /// description is set; setting it again is harmless).
    package static func apply(to webrtcbin: Element) {
        guard let bin = webrtcbin.cast(to: Bin.self) else { return }
        for session in bin.descendants where session.factoryName == "rtpsession" {
            if let current = session.get("rtcp-fraction", as: Double.self), current == rtcpBitsPerSecond { continue }
            try? session.set("rtcp-fraction", rtcpBitsPerSecond)
        }
    }
}
