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
/// A receiver keeps the large allowance even where no transport-wide feedback was
/// negotiated: rtpsession sends NACKs at once only in sessions of at most 3 sources (RFC
/// 4585's immediate mode), and past that one early packet per report interval. With the
/// default allowance, 8 audio and video viewers behind 3% loss froze 3–10 times in 15 s, with
/// it none (docs/benchmarks.md, calls of two).
enum RTCPPacing {
    /// RTCP bandwidth per session, bit/s (rtpsession's `rtcp-fraction` above 1 is absolute).
    static let rtcpBitsPerSecond = 150_000.0

    /// Whether the peer that sets `description` receives media by it: a local description
    /// that says `sendrecv` or `recvonly` for audio or video, or a remote one that says
    /// `sendrecv` or `sendonly`.
    static func receivesMedia(by description: String, local: Bool) -> Bool {
        let receiving: Set<String> = local ? ["sendrecv", "recvonly"] : ["sendrecv", "sendonly"]
        return SDPSummary(description).media.contains { m in
            (m.kind == "audio" || m.kind == "video") && !m.rejected && receiving.contains(m.direction)
        }
    }

    /// Sets the allowance on every RTP session of `webrtcbin` (they exist once a
    /// description is set; setting it again is harmless).
    static func apply(to webrtcbin: Element) {
        guard let bin = webrtcbin.cast(to: Bin.self) else { return }
        for session in bin.descendants where session.factoryName == "rtpsession" {
            if let current = session.get("rtcp-fraction", as: Double.self), current == rtcpBitsPerSecond { continue }
            try? session.set("rtcp-fraction", rtcpBitsPerSecond)
        }
    }
}
