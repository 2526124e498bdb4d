import GStreamer

/// The one recipe every webrtcbin Sluice makes follows — a pipeline file's peers, served
/// viewers, WHIP publishers and relays alike — so a setting (STUN, TURN, ICE policy, the DTLS
/// certificate, loss repair) cannot apply to some sessions and not others.
public struct WebRTCRecipe: Sendable {
    /// `none`, `balanced`, `max-compat`, `max-bundle`.
    public var bundlePolicy: String = "max-bundle"
    /// Receiver jitter buffer, in ms.
    public var latencyMs: Int = 50
    /// Host addresses ICE gathers on (loopback needs naming: libnice skips it otherwise).
    public var addresses: [String] = []
    /// `stun://host:port`.
    public var stun: String?
    /// `turn://user:pass@host:port`, in order.
    public var turn: [String] = []
    /// `all` or `relay`.
    public var policy: String = "all"
    /// What DTLS presents (ECDSA P-256 by default).
    public var certificate: DTLSCertificate = .processDefault
    /// Whether ICE also gathers TCP candidates (libnice's default: yes).
    public var iceTCP: Bool = true
    /// The local ports ICE may bind; nil: any.
    public var portRange: ClosedRange<Int>?
    /// Public addresses a NAT forwards to this host (1:1 NAT): every host candidate is also
    /// announced with each of them. Give the peer them with `peer(_:label:)`.
    public var publicAddresses: [String] = []

    /// ICE connectivity-check pacing (Ta), ms, until ICE connects.
    public static let checkPacingMs: UInt32 = 5
    /// The pacing once ICE is connected (RFC 8445's default Ta): libnice keeps ticking at Ta
    /// for the whole session, and at 5 ms that was 200 wake-ups a second per peer (about 1%
    /// of a loopback run's CPU); only a restart's checks would use it now.
    public static let settledPacingMs: UInt32 = 50

    /// A recipe from its settings; the defaults are max-bundle, a 50 ms jitter buffer, no STUN or TURN,
    /// ICE policy `all` and the process's default DTLS certificate.
    public init(
        bundlePolicy: String = "max-bundle", latencyMs: Int = 50, addresses: [String] = [],
        stun: String? = nil, turn: [String] = [], policy: String = "all",
        certificate: DTLSCertificate = .processDefault
    ) {
        self.bundlePolicy = bundlePolicy; self.latencyMs = latencyMs; self.addresses = addresses
        self.stun = stun; self.turn = turn; self.policy = policy; self.certificate = certificate
    }

    /// The recipe a pipeline file's transport section describes.
    public init(transport t: TransportSpec, certificate: DTLSCertificate = .processDefault) {
        self.init(
            bundlePolicy: t.bundlePolicy.rawValue, latencyMs: t.latencyMs, addresses: t.ice.addresses,
            stun: t.ice.stun, turn: t.ice.turn, policy: t.ice.policy.rawValue,
            certificate: t.dtlsCertificate ?? certificate)
        iceTCP = t.ice.tcp ?? true
        portRange = t.ice.portRange
    }

    /// The peer of a webrtcbin this recipe made, announcing the recipe's public addresses.
    public func peer(_ webrtcbin: Element, label: String) -> WebRTCPeer {
        WebRTCPeer(webrtcbin, label: label, announcing: publicAddresses)
    }

    /// A new webrtcbin named `name`, configured, and added to `pipeline` if given.
    public func make(_ name: String, in pipeline: Pipeline? = nil) throws(GstError) -> Element {
        let bin: Element
        do { bin = try Element.make("webrtcbin", name: name) } catch {
            throw GstError(KnownElements.missingHint(for: "webrtcbin"))
        }
        try bin.set("bundle-policy", fromString: bundlePolicy)
        try bin.set("latency", UInt32(clamping: latencyMs))
        if let stun { try bin.set("stun-server", stun) }
        if let first = turn.first { try bin.set("turn-server", first) }
        for extra in turn.dropFirst() { _ = try bin.emit("add-turn-server", extra) }
        if bin.hasProperty("ice-transport-policy") { try bin.set("ice-transport-policy", fromString: policy) }
        if !addresses.isEmpty { try ICEAgent.addLocalAddresses(addresses, to: bin) }
        if !iceTCP { try ICEAgent.setTCP(false, on: bin) }
        if let portRange { try ICEAgent.setPortRange(portRange, on: bin) }
        ICEAgent.disableUPnP(on: bin)
        // RFC 8445 §14 lets RTP sessions pace checks at 5 ms (libnice: 20 ms).
        ICEAgent.setCheckPacing(milliseconds: Self.checkPacingMs, on: bin)
        certificate.apply(to: bin)
        WebRTCDefaults.apply(to: bin)
        if let pipeline { try pipeline.add(bin) }
        return bin
    }
}
