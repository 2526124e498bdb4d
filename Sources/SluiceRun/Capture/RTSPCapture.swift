import Foundation
import GStreamer

extension CaptureSpec.Kind {
    /// An RTSP camera or server at `url` (rtspsrc).
    package static func rtsp(url: String, transport: RTSPCapture.LowerTransport = .auto, latencyMs: Int = 100) -> CaptureSpec.Kind {
        CaptureSpec.Kind(name: "rtsp", settings: RTSPCapture.Settings(url: url, lowerTransport: transport, latencyMs: latencyMs))
    }
}

/// `kind: rtsp`: an IP camera or RTSP server. Its streams are decoded into the branch's raw
/// format, or, with `encode: {passthrough: true}` (`encode: none`), only depayloaded and
/// parsed: the camera's H.264 goes to the viewers as it is. Video and audio branches of one
/// URL share one RTSP session (`RTSPSource`).
package struct RTSPCapture: Capture {
    package let name = "rtsp"
    package let reconnects = true

    /// How RTP travels from the camera (`transport:`): interleaved in the RTSP connection,
    /// over UDP, or UDP first with TCP as the fallback (rtspsrc's default).
    public enum LowerTransport: String, Sendable, CaseIterable {
        /// RTP interleaved in the RTSP connection (through firewalls and NATs).
        case tcp
        /// RTP over UDP ports of its own.
        case udp
        /// UDP first, then TCP if no packet comes (rtspsrc's default).
        case auto

        /// rtspsrc's `protocols` value (nil: its default).
        package var protocols: String? {
            switch self {
            case .tcp: "tcp"
            case .udp: "udp"
            case .auto: nil
            }
        }
    }

    /// What `capture:` says about the camera.
    public struct Settings: KindSettings, Equatable {
        /// `url:` (`rtsp://user:${PASSWORD}@camera/stream`).
        public var url: String
        /// `transport:`.
        public var lowerTransport: LowerTransport
        /// `latency:`: rtspsrc's jitter buffer, in milliseconds.
        public var latencyMs: Int
    }

    package static let schemes = ["rtsp", "rtsps", "rtspt", "rtspu", "rtspst", "rtspsu"]

    package func keys(for media: MediaKind) -> [String] { ["url", "transport", "latency"] }

    package func decode(
        _ map: [SpecEntry], media: MediaKind, into capture: inout CaptureSpec, at location: SourceLocation,
        with decoder: inout SpecDecoder
    ) -> CaptureSpec.Kind? {
        var transport = LowerTransport.auto, latency = 100
        if let e = map.entry("transport"),
            let word = decoder.word(e.value, name: "transport", what: "RTSP transport", choices: LowerTransport.allCases.map(\.rawValue)),
            let value = LowerTransport(rawValue: word)
        {
            transport = value
        }
        if let e = map.entry("latency"), let ms = decoder.integer(e, range: 0...10_000) { latency = ms }
        guard let url = decoder.sourceURL(map, kind: "rtsp", schemes: Self.schemes, example: "rtsp://camera.local:554/stream", at: location)
        else { return nil }
        return .rtsp(url: url, transport: transport, latencyMs: latency)
    }

    package func sourceLabel(of capture: CaptureSpec) -> String? {
        capture.kind.settings(as: Settings.self).map { RTSPSource.label(for: $0.url) }
    }

    package func requiredElements(for media: MediaKind) -> [String] { ["rtspsrc", "decodebin"] }

    package func passthroughRefusal(for media: MediaKind) -> String? { nil }

    package func requiredPassthroughElements(for media: MediaKind, codec: Codec) -> [String] {
        ["rtspsrc", DefaultElements.depayloader(for: codec)] + (DefaultElements.parser(for: codec).map { [$0] } ?? [])
    }

    /// rtspsrc → decodebin → the branch's normalizer.
    package func build(_ cap: CaptureSpec, media: MediaKind, rawCaps: String, with b: GraphBuilder) throws(RunError) -> [Element] {
        let decoding = try b.decodingChain(media: media, rawCaps: rawCaps, paced: false, at: cap.location)
        try source(cap, with: b).router.route(media, .init(entrance: decoding.entrance, codec: nil, refuse: b.failAsync))
        return decoding.chain
    }

    /// rtspsrc → depayloader (→ parser → the caps the payloader takes): no decoding.
    package func buildEncoded(_ cap: CaptureSpec, media: MediaKind, codec: Codec, with b: GraphBuilder) throws(RunError) -> [Element] {
        let chain = [try b.make(DefaultElements.depayloader(for: codec), at: cap.location)] + (try b.parserChain(for: codec, at: cap.location))
        try b.add(chain)
        guard let entrance = chain.first?.staticPad("sink") else { throw RunError("the depayloader has no sink pad", at: cap.location) }
        try source(cap, with: b).router.route(media, .init(entrance: entrance, codec: codec, refuse: b.failAsync))
        return chain
    }

    /// The run's RTSP session for this camera (made by its first branch).
    private func source(_ cap: CaptureSpec, with b: GraphBuilder) throws(RunError) -> RTSPSource {
        let settings = cap.kind.settings(as: Settings.self) ?? Settings(url: "", lowerTransport: .auto, latencyMs: 100)
        let key = "rtsp \(settings.url) \(settings.lowerTransport) \(settings.latencyMs)"
        return try b.shared(key) { (name: String) throws(RunError) in
            let source = try RTSPSource(settings: settings, name: name, pipeline: b.pipeline, at: cap.location)
            b.label(source: name, as: source.label, secret: SourceURL.password(in: settings.url))
            b.supervisor.watch(source)
            return source
        }
    }
}
