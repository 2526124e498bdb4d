import CGStreamer
import CGStreamerShim

/// A GstWebRTCSessionDescription: an SDP offer or answer, owned.
///
/// `@unchecked Sendable`: the description is never modified after creation.
public final class SessionDescription: @unchecked Sendable, CustomStringConvertible {
    let raw: UnsafeMutablePointer<GstWebRTCSessionDescription>

    /// The SDP type (`GstWebRTCSDPType`).
    public enum Kind: Sendable, Equatable {
        /// `offer` (`GST_WEBRTC_SDP_TYPE_OFFER`), `answer` (`_ANSWER`), `pranswer` (`_PRANSWER`, a
        /// provisional answer) and `rollback` (`_ROLLBACK`, back to the last stable state).
        case offer, answer, pranswer, rollback
        var raw: GstWebRTCSDPType {
            switch self {
            case .offer: GST_WEBRTC_SDP_TYPE_OFFER
            case .answer: GST_WEBRTC_SDP_TYPE_ANSWER
            case .pranswer: GST_WEBRTC_SDP_TYPE_PRANSWER
            case .rollback: GST_WEBRTC_SDP_TYPE_ROLLBACK
            }
        }
    }

    init(full raw: UnsafeMutablePointer<GstWebRTCSessionDescription>) { self.raw = raw }
    deinit { gst_webrtc_session_description_free(raw) }

    /// Parses SDP text; throws with GStreamer's reason if it does not parse.
    public init(kind: Kind, sdp text: String) throws(GstError) {
        Gst.initialize()
        // gst_sdp_message_new_from_text accepts almost anything; insist on the version line
        // and at least an origin and a session name, as RFC 8866 requires.
        let lines = text.split(whereSeparator: \.isNewline)
        guard lines.first == "v=0", lines.contains(where: { $0.hasPrefix("o=") }),
            lines.contains(where: { $0.hasPrefix("s=") })
        else {
            throw GstError("the SDP does not parse: it must start with v=0 and have o= and s= lines")
        }
        var msg: UnsafeMutablePointer<GstSDPMessage>?
        guard gst_sdp_message_new_from_text(text, &msg) == GST_SDP_OK, let msg else {
            if let msg { gst_sdp_message_free(msg) }
            throw GstError("the SDP does not parse")
        }
        raw = gst_webrtc_session_description_new(kind.raw, msg)
    }

    /// Copies the description out of a promise reply's field (`offer` or `answer`).
    public convenience init?(from reply: Structure, field: String) {
        guard let v = reply.rawValue(field),
            sluice_value_type(v) == sluice_type_webrtc_session_description(),
            let boxed = g_value_get_boxed(v)
        else { return nil }
        self.init(full: gst_webrtc_session_description_copy(boxed.assumingMemoryBound(to: GstWebRTCSessionDescription.self)))
    }

    /// The description's SDP type; a C value the bindings do not know reads as `offer`.
    public var kind: Kind {
        switch raw.pointee.type {
        case GST_WEBRTC_SDP_TYPE_ANSWER: .answer
        case GST_WEBRTC_SDP_TYPE_PRANSWER: .pranswer
        case GST_WEBRTC_SDP_TYPE_ROLLBACK: .rollback
        default: .offer
        }
    }

    /// The SDP as text.
    public var sdp: String {
        guard let s = gst_sdp_message_as_text(raw.pointee.sdp) else { return "" }
        defer { g_free(s) }
        return String(cString: s)
    }

    /// The SDP text, as `sdp`.
    public var description: String { sdp }

    /// A GValue holding this description, for `set-local-description` and friends.
    public func asValue() -> Value {
        let v = Value(type: sluice_type_webrtc_session_description())
        g_value_set_boxed(&v.raw, raw)
        return v
    }
}

extension SessionDescription: SignalArgument {}

/// libnice's NiceAgent, as webrtcbin's `ice-agent` exposes it.
public enum ICEAgent {
    /// Turns off libnice's UPnP port mapping for a webrtcbin. UPnP multicasts discovery on
    /// the local network and starts a thread whose library (gssdp 1.6.2) leaks; WebRTC
    /// peers reach each other through STUN/TURN instead.
    public static func disableUPnP(on webrtcbin: Element) {
        guard let ice = webrtcbin.objectProperty("ice-agent", as: Object.self),
            let agent = ice.objectProperty("agent", as: Object.self), agent.hasProperty("upnp")
        else { return }
        try? agent.set("upnp", false)
    }

    /// Sets libnice's `stun-pacing-timer` (Ta: the time between connectivity checks, 20 ms by
    /// default). Checks for a pair, the answer, the triggered check and the nomination each
    /// wait a tick: on loopback, 60 ms from candidates to connected at 20 ms.
    public static func setCheckPacing(milliseconds: UInt32, on webrtcbin: Element) {
        guard let ice = webrtcbin.objectProperty("ice-agent", as: Object.self),
            let agent = ice.objectProperty("agent", as: Object.self), agent.hasProperty("stun-pacing-timer")
        else { return }
        try? agent.set("stun-pacing-timer", milliseconds)
    }

    /// Whether the ICE agent behind a webrtcbin's `ice-agent` gathers TCP candidates
    /// (`ice-tcp`, on by default in 1.22). Call it before gathering starts.
    public static func setTCP(_ enabled: Bool, on webrtcbin: Element) throws(GstError) {
        guard let ice = webrtcbin.objectProperty("ice-agent", as: Object.self), ice.hasProperty("ice-tcp") else {
            throw GstError("webrtcbin's ICE agent cannot turn TCP candidates on or off")
        }
        try ice.set("ice-tcp", enabled)
    }

    /// Limits the local ports the ICE agent behind a webrtcbin binds to `range`
    /// (`min-rtp-port`, `max-rtp-port`). Call it before gathering starts.
    public static func setPortRange(_ range: ClosedRange<Int>, on webrtcbin: Element) throws(GstError) {
        guard let ice = webrtcbin.objectProperty("ice-agent", as: Object.self), ice.hasProperty("min-rtp-port") else {
            throw GstError("webrtcbin's ICE agent cannot limit its ports")
        }
        // Widen first so that min never passes max on the way (the agent refuses min > max).
        try ice.set("max-rtp-port", UInt32(65535))
        try ice.set("min-rtp-port", UInt32(range.lowerBound))
        try ice.set("max-rtp-port", UInt32(range.upperBound))
    }

    /// Pins host-candidate gathering of a webrtcbin to `addresses` (IPv4 or IPv6 literals, e.g.
    /// `127.0.0.1`) with `nice_agent_add_local_address` on the libnice agent behind its `ice-agent`.
    /// Call it before gathering starts (before the first offer or answer): libnice then gathers on
    /// these addresses only instead of enumerating interfaces, which skips loopback.
    /// Throws `GstError` if the webrtcbin has no ICE agent or no libnice agent, if an address is
    /// not an IP address, or if libnice refuses one; addresses before it stay added.
    public static func addLocalAddresses(_ addresses: [String], to webrtcbin: Element) throws(GstError) {
        guard let ice = webrtcbin.objectProperty("ice-agent", as: Object.self) else {
            throw GstError("webrtcbin has no ICE agent")
        }
        guard let agent = ice.objectProperty("agent", as: Object.self) else {
            throw GstError("webrtcbin's ICE agent (\(ice.typeName)) has no libnice agent")
        }
        for address in addresses {
            guard let addr = nice_address_new() else { throw GstError("out of memory") }
            defer { nice_address_free(addr) }
            guard nice_address_set_from_string(addr, address) != 0 else {
                throw GstError("'\(address)' is not an IP address")
            }
            guard nice_agent_add_local_address(OpaquePointer(agent.pointer), addr) != 0 else {
                throw GstError("libnice refused local address \(address)")
            }
        }
    }
}

/// DTLS fingerprints as webrtcbin computes them.
public enum DTLSFingerprint {
    /// The `a=fingerprint:sha-256` value webrtcbin 1.22 writes for a DTLS agent given `pem`.
    ///
    /// webrtcbin base64-decodes every line of the transport's `certificate` that does not
    /// start with `-----` and hashes the result. For the certificate it generates itself that
    /// text is the certificate alone; for a `pem` given to the DTLS decoder it is the whole
    /// text, private key included, so the SDP carries a hash no peer can match. This computes
    /// that value exactly as webrtcbin does (same GLib decoder, same line split), so callers
    /// can recognise it and put the certificate's real fingerprint in its place.
    public static func asWrittenByWebRTCBin(pem: String) -> String {
        var decoded: [UInt8] = []
        var state: gint = 0
        var save: guint = 0
        for line in pem.split(separator: "\n", omittingEmptySubsequences: true) where !line.hasPrefix("-----") {
            let bytes = Array(line.utf8)
            var out = [UInt8](repeating: 0, count: bytes.count / 4 * 3 + 3)
            let n = bytes.withUnsafeBufferPointer { inp in
                out.withUnsafeMutableBufferPointer { o in
                    g_base64_decode_step(
                        UnsafeRawPointer(inp.baseAddress!).assumingMemoryBound(to: gchar.self),
                        gsize(bytes.count), o.baseAddress, &state, &save)
                }
            }
            decoded += out.prefix(Int(n))
        }
        let checksum = g_checksum_new(G_CHECKSUM_SHA256)
        defer { g_checksum_free(checksum) }
        g_checksum_update(checksum, decoded, gssize(decoded.count))
        var digest = [UInt8](repeating: 0, count: 32)
        var length = gsize(32)
        g_checksum_get_digest(checksum, &digest, &length)
        return digest.prefix(Int(length)).map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }
            .joined(separator: ":")
    }
}
