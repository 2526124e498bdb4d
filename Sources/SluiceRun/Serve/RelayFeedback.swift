import GStreamer
import SluiceSignalling

/// Transport-wide congestion control feedback for a relayed WHIP publisher.
///
/// A publisher that offers TWCC (`a=extmap:<id> …transport-wide-cc…` and `transport-cc`
/// feedback) estimates its link from the server's feedback: a simulcast publisher with
/// `adaptive_layers` (and browsers) switch layers by it, a single stream adapts its bitrate.
/// webrtcbin 1.22 answers only the header extensions a transceiver's codec preferences name,
/// and the transceiver it makes for an offer has none: the relay sends no feedback. So before
/// answering, the relay adds a receive-only video transceiver whose preferences are the
/// offer's own video formats (nothing it accepts changes) with the TWCC extension at the
/// offer's id; the offer's video section takes it.
enum RelayFeedback {
    /// The codec preferences for `offer`'s first video section, or nil when it offers no
    /// transport-wide feedback.
    static func preferences(for offer: String) -> String? {
        guard let video = SDPSession(offer).media.first(where: { $0.kind == "video" && $0.remoteSends }),
            let id = video.extensionID(RTPHeaderExtension.transportWideCC)
        else { return nil }
        let twcc = EncoderPresets.twccReceiveCaps(id: id)
        let formats = video.formats.filter { $0.encoding != "RTX" && $0.clockRate > 0 && !$0.encoding.isEmpty }
        guard !formats.isEmpty else { return nil }
        return formats.map { f in
            var caps = "application/x-rtp,media=video,encoding-name=(string)\(f.encoding),clock-rate=(int)\(f.clockRate),payload=(int)\(f.payloadType)"
            for (key, value) in f.parameters.sorted(by: { $0.key < $1.key }) where Self.isPlain(key) && Self.isPlain(value) {
                caps += ",\(key)=(string)\(value)"
            }
            return caps + twcc
        }.joined(separator: ";")
    }

    /// Adds the receive-only transceiver to `bin` for `offer` (nothing without TWCC, or if
    /// webrtcbin refuses it: the relay then answers as before, without feedback).
    static func prepare(_ bin: Element, for offer: String) {
        guard let text = preferences(for: offer), let caps = try? Caps(text) else { return }
        _ = try? bin.emit("add-transceiver", "recvonly", caps)
    }

    /// Letters, digits and `-` only: what may go into a caps string unquoted.
    private static func isPlain(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= 64 && s.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }
    }
}
