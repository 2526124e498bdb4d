import GStreamer

extension CaptureSpec.Kind {
    /// An SRT stream (srtsrc): MPEG-TS from an encoder, OBS or `srt-live-transmit`.
    package static func srt(_ settings: SRTCapture.Settings) -> CaptureSpec.Kind {
        CaptureSpec.Kind(name: "srt", settings: settings)
    }
}

/// `kind: srt`: an MPEG-TS stream over SRT, as encoders and OBS send it. Sluice calls the
/// sender (`srt://host:port`) or listens for it (`srt://:port`, or `mode: listener`). The
/// stream's H.264 (or Opus) passes through with `encode: none`, or is decoded.
package struct SRTCapture: ParsedCapture {
    package let name = "srt"
    package let sourceFactory = "srtsrc"
    package let urlProperty = "uri"
    package let reconnects = true

    /// Who opens the SRT connection (`mode:`).
    public enum Mode: String, Sendable, CaseIterable {
        /// Sluice connects to the sender's listener.
        case caller
        /// Sluice waits for the sender to connect.
        case listener
        /// Both sides connect to each other at once.
        case rendezvous
    }

    /// What `capture:` says about the stream.
    public struct Settings: KindSettings, Equatable {
        /// `url:` (`srt://encoder.local:9000`, or `srt://:9000` to listen).
        public var url: String
        /// `mode:`; by default listener when the URL has no host, else caller.
        public var mode: Mode
        /// `passphrase:` (10 to 79 characters; from the environment: `${SRT_PASSPHRASE}`).
        public var passphrase: String?
        /// `latency:`: SRT's receive latency in milliseconds (its default 125).
        public var latencyMs: Int
        /// `streamid:`: the stream the sender or server is asked for.
        public var streamID: String?

        /// Settings for `url`, with SRT's defaults for the rest.
        public init(url: String, mode: Mode? = nil, passphrase: String? = nil, latencyMs: Int = 125, streamID: String? = nil) {
            self.url = url
            self.mode = mode ?? (SRTCapture.host(of: url).isEmpty ? .listener : .caller)
            self.passphrase = passphrase
            self.latencyMs = latencyMs
            self.streamID = streamID
        }
    }

    package func keys(for media: MediaKind) -> [String] { ["url", "mode", "passphrase", "latency", "streamid"] }

    package func decode(
        _ map: [SpecEntry], media: MediaKind, into capture: inout CaptureSpec, at location: SourceLocation,
        with decoder: inout SpecDecoder
    ) -> CaptureSpec.Kind? {
        guard let url = decoder.sourceURL(map, kind: "srt", schemes: ["srt"], example: "srt://encoder.local:9000", at: location)
        else { return nil }
        var settings = Settings(url: url)
        if let e = map.entry("mode"),
            let word = decoder.word(e.value, name: "mode", what: "SRT mode", choices: Mode.allCases.map(\.rawValue))
        {
            settings.mode = Mode(rawValue: word) ?? settings.mode
        }
        if settings.mode == .caller, Self.host(of: url).isEmpty {
            decoder.fail("an SRT caller needs a host to call; write srt://host:port, or mode: listener", at: location)
        }
        if let e = map.entry("latency"), let ms = decoder.integer(e, range: 0...10_000) { settings.latencyMs = ms }
        if let e = map.entry("streamid") { settings.streamID = decoder.nonEmptyText(e) }
        if let e = map.entry("passphrase"), let phrase = decoder.text(e) {
            guard (10...79).contains(phrase.count) else {
                decoder.fail("an SRT passphrase has 10 to 79 characters, this one \(phrase.count)", at: e.value.location)
                return nil
            }
            settings.passphrase = phrase
        }
        return .srt(settings)
    }

    package func identity(of capture: CaptureSpec) -> SourceIdentity {
        let s = capture.kind.settings(as: Settings.self) ?? Settings(url: "")
        let label = "srt \(s.mode.rawValue) \(SourceURL.redacted(s.url))"
        return SourceIdentity(key: "srt \(s.url) \(s.mode) \(s.latencyMs) \(s.streamID ?? "")", label: label, secret: s.passphrase)
    }

    package func configure(_ source: Element, for capture: CaptureSpec) throws(GstError) {
        guard let s = capture.kind.settings(as: Settings.self) else { return }
        try source.set(urlProperty, s.url)
        try source.set("mode", fromString: s.mode.rawValue)
        try source.set("auto-reconnect", false)
        try source.set("latency", fromString: "\(s.latencyMs)")
        if let passphrase = s.passphrase { try source.set("passphrase", passphrase) }
        if let id = s.streamID { try source.set("streamid", id) }
    }

    /// The host part of an `srt://host:port` URL ("" for `srt://:port`).
    package static func host(of url: String) -> String {
        guard let start = url.range(of: "://")?.upperBound else { return "" }
        let rest = url[start...].prefix { $0 != "/" && $0 != "?" }
        if rest.hasPrefix("[") { return String(rest.prefix { $0 != "]" }.dropFirst()) }
        return String(rest.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }
}
