import GStreamer

/// Which network source a capture reads, as its branches share it and messages name it.
package struct SourceIdentity: Sendable {
    /// Branches whose captures have equal keys share one source element.
    package var key: String
    /// The source for messages: `srt capture srt://host:9000` (no password).
    package var label: String
    /// Text its element's messages must not show (a password or passphrase).
    package var secret: String?
}

/// A capture kind that reads one network source element (`srtsrc`, `rtmp2src`, `urisourcebin`)
/// whose output `parsebin` splits into elementary streams (`ParsedSource`). It decodes them
/// into the branch's raw format, or with `encode: none` hands H.264, VP8, VP9 or Opus on
/// still encoded. The kind says only which element reads it and how it is set up.
package protocol ParsedCapture: Capture {
    /// The element that reads the source (`srtsrc`).
    var sourceFactory: String { get }
    /// The source element's property that takes the URL (`uri`, `location`).
    var urlProperty: String { get }
    /// The source `capture` reads (by default: its `SourceURL.Settings`' URL).
    func identity(of capture: CaptureSpec) -> SourceIdentity
    /// Sets `source`'s properties from `capture`'s settings (by default: the URL).
    func configure(_ source: Element, for capture: CaptureSpec) throws(GstError)
}

extension ParsedCapture {
    package func identity(of capture: CaptureSpec) -> SourceIdentity {
        let url = capture.kind.settings(as: SourceURL.Settings.self)?.url ?? ""
        return SourceIdentity(key: "\(name) \(url)", label: "\(name) capture \(SourceURL.redacted(url))", secret: SourceURL.password(in: url))
    }

    package func configure(_ source: Element, for capture: CaptureSpec) throws(GstError) {
        guard let s = capture.kind.settings(as: SourceURL.Settings.self) else { return }
        try source.set(urlProperty, s.url)
    }

    package func sourceLabel(of capture: CaptureSpec) -> String? { identity(of: capture).label }

    package func requiredElements(for media: MediaKind) -> [String] { [sourceFactory, "parsebin", "decodebin"] }

    package func passthroughRefusal(for media: MediaKind) -> String? { nil }

    package func requiredPassthroughElements(for media: MediaKind, codec: Codec) -> [String] {
        [sourceFactory, "parsebin"] + (DefaultElements.parser(for: codec).map { [$0] } ?? [])
    }

    /// source → parsebin → decodebin (→ clocksync if not live) → the branch's normalizer.
    package func build(_ cap: CaptureSpec, media: MediaKind, rawCaps: String, with b: GraphBuilder) throws(RunError) -> [Element] {
        let decoding = try b.decodingChain(media: media, rawCaps: rawCaps, paced: !isLive(cap), at: cap.location)
        try parsedSource(cap, with: b).router.route(media, .init(entrance: decoding.entrance, codec: nil, refuse: b.failAsync))
        return decoding.chain
    }

    /// source → parsebin (→ clocksync if not live) → parser → the caps the payloader takes.
    package func buildEncoded(_ cap: CaptureSpec, media: MediaKind, codec: Codec, with b: GraphBuilder) throws(RunError) -> [Element] {
        let pace = isLive(cap) ? [] : [try b.pacer(at: cap.location)]
        let chain = pace + (try b.parserChain(for: codec, at: cap.location))
        try b.add(chain)
        guard let entrance = chain.first?.staticPad("sink") else { throw RunError("the parser has no sink pad", at: cap.location) }
        try parsedSource(cap, with: b).router.route(media, .init(entrance: entrance, codec: codec, refuse: b.failAsync))
        return chain
    }

    /// The run's source element for `cap` (made by its first branch); a live one is
    /// watched, and reconnected after an outage.
    private func parsedSource(_ cap: CaptureSpec, with b: GraphBuilder) throws(RunError) -> ParsedSource {
        let identity = identity(of: cap)
        return try b.shared(identity.key) { (name: String) throws(RunError) in
            let source = try ParsedSource(name: name, label: identity.label, pipeline: b.pipeline, at: cap.location) {
                () throws(RunError) -> Element in try makeSource(for: cap, named: name, identity)
            }
            b.label(source: name, as: identity.label, secret: identity.secret)
            if isLive(cap) { b.supervisor.watch(source) }
            return source
        }
    }

    /// The source element, made and set up from `cap`'s settings.
    private func makeSource(for cap: CaptureSpec, named name: String, _ identity: SourceIdentity) throws(RunError) -> Element {
        let element: Element
        do { element = try Element.make(sourceFactory, name: name) } catch {
            throw RunError(KnownElements.missingHint(for: sourceFactory) + " (\(error.message))", at: cap.location)
        }
        do { try configure(element, for: cap) } catch {
            throw RunError("cannot set up \(identity.label): \(error.message)", at: cap.location)
        }
        return element
    }
}
