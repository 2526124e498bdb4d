/// `transport:` in Swift: its kind, the keys every kind has, and the kind's own keys.
public struct TransportCode: Sendable {
    /// `kind`.
    public var kind: String
    /// `ice`.
    public var ice: ICECode?
    /// `latency`: the receiver's jitter buffer, ms.
    public var latency: Int?
    /// `bundle`: `max-bundle`, `max-compat`, …
    public var bundle: String?
    /// The kind's own keys (`url`, `token`, `room`, …), as a file writes them.
    public var settings: [PipelineSetting]
    /// Where this value was written.
    public var location: SourceLocation

    /// A transport of kind `kind`, written at the caller's line.
    public init(
        kind: String, ice: ICECode? = nil, latency: Int? = nil, bundle: String? = nil, settings: [PipelineSetting] = [],
        file: String = #fileID, line: Int = #line, column: Int = #column
    ) {
        self.kind = kind; self.ice = ice; self.latency = latency; self.bundle = bundle; self.settings = settings
        location = SourceLocation(file: file, line: line, column: column)
    }

    /// Both sections in this process (`kind: loopback`).
    public static func loopback(
        ice: ICECode? = nil, latency: Int? = nil, bundle: String? = nil, file: String = #fileID, line: Int = #line, column: Int = #column
    ) -> TransportCode {
        TransportCode(kind: "loopback", ice: ice, latency: latency, bundle: bundle, file: file, line: line, column: column)
    }

    var node: SpecNode {
        var map = CodeMapping(location)
        map.add("kind", .text(kind))
        map.add("ice", node: ice?.node(at: location))
        map.add("latency", latency.map { .text(String($0)) })
        map.add("bundle", bundle.map(PipelineValue.text))
        map.add(settings)
        return map.node
    }
}

/// `transport.ice` in Swift.
public struct ICECode: Sendable {
    /// `addresses`: gather host candidates on these only.
    public var addresses: [String]
    /// `connect_timeout`: seconds until ICE must be connected.
    public var connectTimeout: Double?
    /// Any other key of `ice:` (`stun`, `turn`, `policy`, …), as written.
    public var settings: [PipelineSetting]

    /// ICE settings.
    public init(addresses: [String] = [], connectTimeout: Double? = nil, settings: [PipelineSetting] = []) {
        self.addresses = addresses; self.connectTimeout = connectTimeout; self.settings = settings
    }

    func node(at location: SourceLocation) -> SpecNode {
        var map = CodeMapping(location)
        if !addresses.isEmpty { map.add("addresses", .list(addresses.map(PipelineValue.text))) }
        map.add("connect_timeout", connectTimeout.map(PipelineValue.number))
        map.add(settings)
        return map.node
    }
}

/// `send:` in Swift.
public struct SendCode: Sendable {
    /// `send.video`.
    public var video: SendBranchCode?
    /// `send.audio`.
    public var audio: SendBranchCode?

    /// The send section with these branches.
    public init(video: SendBranchCode? = nil, audio: SendBranchCode? = nil) {
        self.video = video; self.audio = audio
    }

    var node: SpecNode {
        let location = video?.location ?? audio?.location ?? SourceLocation(file: "")
        var map = CodeMapping(location)
        map.add("video", node: video?.node)
        map.add("audio", node: audio?.node)
        return map.node
    }
}

/// One send branch in Swift: capture → filters → encode.
public struct SendBranchCode: Sendable {
    /// `capture`.
    public var capture: CaptureCode
    /// `filters`, in order.
    public var filters: [FilterCode]
    /// `encode`; nil: the medium's default codec.
    public var encode: EncodeCode?
    /// Where this value was written.
    public var location: SourceLocation

    /// A branch, written at the caller's line.
    public init(
        capture: CaptureCode, filters: [FilterCode] = [], encode: EncodeCode? = nil,
        file: String = #fileID, line: Int = #line, column: Int = #column
    ) {
        self.capture = capture; self.filters = filters; self.encode = encode
        location = SourceLocation(file: file, line: line, column: column)
    }

    var node: SpecNode {
        var map = CodeMapping(location)
        map.add("capture", node: capture.node)
        if !filters.isEmpty { map.add("filters", node: SpecNode(.sequence(filters.map(\.node)), at: location)) }
        map.add("encode", node: encode?.node)
        return map.node
    }
}

/// `capture:` in Swift: its kind, the raw format, and the kind's own keys.
public struct CaptureCode: Sendable {
    /// `kind` (`test`, `camera`, `file`, … or a kind a program registered).
    public var kind: String
    /// `width`, `height`, `fps` (video).
    public var width: Int?, height: Int?, fps: Int?
    /// The kind's own keys (`pattern`, `device`, `path`, `wave`, …), as written.
    public var settings: [PipelineSetting]
    /// Where this value was written.
    public var location: SourceLocation

    /// A capture of kind `kind`, written at the caller's line.
    public init(
        kind: String, width: Int? = nil, height: Int? = nil, fps: Int? = nil, settings: [PipelineSetting] = [],
        file: String = #fileID, line: Int = #line, column: Int = #column
    ) {
        self.kind = kind; self.width = width; self.height = height; self.fps = fps; self.settings = settings
        location = SourceLocation(file: file, line: line, column: column)
    }

    /// `kind: test` for video: GStreamer's test picture (`pattern`: `smpte`, `ball`, …).
    public static func test(
        pattern: String? = nil, width: Int? = nil, height: Int? = nil, fps: Int? = nil,
        file: String = #fileID, line: Int = #line, column: Int = #column
    ) -> CaptureCode {
        CaptureCode(
            kind: "test", width: width, height: height, fps: fps, settings: pattern.map { [PipelineSetting("pattern", .text($0))] } ?? [],
            file: file, line: line, column: column)
    }

    /// `kind: test` for audio: a tone (`wave`: `sine`, …, at `frequency` Hz).
    public static func tone(
        wave: String? = nil, frequency: Double? = nil, file: String = #fileID, line: Int = #line, column: Int = #column
    ) -> CaptureCode {
        var settings: [PipelineSetting] = []
        if let wave { settings.append(PipelineSetting("wave", .text(wave))) }
        if let frequency { settings.append(PipelineSetting("frequency", .number(frequency))) }
        return CaptureCode(kind: "test", settings: settings, file: file, line: line, column: column)
    }

    var node: SpecNode {
        var map = CodeMapping(location)
        map.add("kind", .text(kind))
        map.add(settings)
        map.add("width", width.map { .text(String($0)) })
        map.add("height", height.map { .text(String($0)) })
        map.add("fps", fps.map { .text(String($0)) })
        return map.node
    }
}

/// `encode:` in Swift.
public struct EncodeCode: Sendable {
    /// `codec`.
    public var codec: Codec
    /// `bitrate`, kbit/s.
    public var bitrate: Int?
    /// `preset` (`realtime`, …).
    public var preset: String?
    /// Any other key of `encode:` (`keyframe_interval`, `renditions`, …), as written.
    public var settings: [PipelineSetting]
    /// Where this value was written.
    public var location: SourceLocation

    /// An encoder, written at the caller's line.
    public init(
        codec: Codec, bitrate: Int? = nil, preset: String? = nil, settings: [PipelineSetting] = [],
        file: String = #fileID, line: Int = #line, column: Int = #column
    ) {
        self.codec = codec; self.bitrate = bitrate; self.preset = preset; self.settings = settings
        location = SourceLocation(file: file, line: line, column: column)
    }

    var node: SpecNode {
        var map = CodeMapping(location)
        map.add("codec", .text(codec.rawValue))
        map.add("bitrate", bitrate.map { .text(String($0)) })
        map.add("preset", preset.map(PipelineValue.text))
        map.add(settings)
        return map.node
    }
}

/// One entry of `filters:` in Swift.
public struct FilterCode: Sendable {
    private let value: PipelineValue
    /// Where this value was written.
    public let location: SourceLocation

    private init(_ value: PipelineValue, location: SourceLocation) {
        self.value = value; self.location = location
    }

    /// `- filter: NAME` and its settings: a Swift filter (built in, or registered by a program).
    public static func filter(
        _ name: String, settings: [PipelineSetting] = [], file: String = #fileID, line: Int = #line, column: Int = #column
    ) -> FilterCode {
        FilterCode(.map([PipelineSetting("filter", .text(name))] + settings), location: SourceLocation(file: file, line: line, column: column))
    }

    /// `- element: FACTORY` with `properties`: one GStreamer element.
    public static func element(
        _ factory: String, properties: [PipelineSetting] = [], file: String = #fileID, line: Int = #line, column: Int = #column
    ) -> FilterCode {
        var entries = [PipelineSetting("element", .text(factory))]
        if !properties.isEmpty { entries.append(PipelineSetting("properties", .map(properties))) }
        return FilterCode(.map(entries), location: SourceLocation(file: file, line: line, column: column))
    }

    /// `- gst: "…"`: a gst-launch fragment.
    public static func gst(_ fragment: String, file: String = #fileID, line: Int = #line, column: Int = #column) -> FilterCode {
        FilterCode(.map([PipelineSetting("gst", .text(fragment))]), location: SourceLocation(file: file, line: line, column: column))
    }

    var node: SpecNode { value.node(at: location) }
}

/// `receive:` in Swift.
public struct ReceiveCode: Sendable {
    /// `receive.video`.
    public var video: ReceiveBranchCode?
    /// `receive.audio`.
    public var audio: ReceiveBranchCode?
    /// `receive.playout`; nil leaves the default (`arrival`).
    public var playout: ReceivePlayout?

    /// The receive section with these branches.
    public init(video: ReceiveBranchCode? = nil, audio: ReceiveBranchCode? = nil, playout: ReceivePlayout? = nil) {
        self.video = video; self.audio = audio; self.playout = playout
    }

    var node: SpecNode {
        var map = CodeMapping(video?.location ?? audio?.location ?? SourceLocation(file: ""))
        map.add("video", node: video?.node)
        map.add("audio", node: audio?.node)
        map.add("playout", playout.map { .text($0.rawValue) })
        return map.node
    }
}

/// One receive branch in Swift: filters → sink.
public struct ReceiveBranchCode: Sendable {
    /// `filters`, in order.
    public var filters: [FilterCode]
    /// `sink`.
    public var sink: SinkCode
    /// Any other key of the branch (`decode`, `codecs`, …), as written.
    public var settings: [PipelineSetting]
    /// Where this value was written.
    public var location: SourceLocation

    /// A branch, written at the caller's line.
    public init(
        filters: [FilterCode] = [], sink: SinkCode, settings: [PipelineSetting] = [],
        file: String = #fileID, line: Int = #line, column: Int = #column
    ) {
        self.filters = filters; self.sink = sink; self.settings = settings
        location = SourceLocation(file: file, line: line, column: column)
    }

    var node: SpecNode {
        var map = CodeMapping(location)
        if !filters.isEmpty { map.add("filters", node: SpecNode(.sequence(filters.map(\.node)), at: location)) }
        map.add("sink", node: sink.node)
        map.add(settings)
        return map.node
    }
}

/// `sink:` in Swift: its kind and the kind's own keys.
public struct SinkCode: Sendable {
    /// `kind` (`stats`, `null`, `display`, `file`, … or a kind a program registered).
    public var kind: String
    /// The kind's own keys (`path`, …), as written.
    public var settings: [PipelineSetting]
    /// Where this value was written.
    public var location: SourceLocation

    /// A sink of kind `kind`, written at the caller's line.
    public init(kind: String, settings: [PipelineSetting] = [], file: String = #fileID, line: Int = #line, column: Int = #column) {
        self.kind = kind; self.settings = settings
        location = SourceLocation(file: file, line: line, column: column)
    }

    /// Decodes, counts and discards (`sink: stats`).
    public static var stats: SinkCode { SinkCode(kind: "stats") }

    /// A gst-launch fragment the branch ends in (`sink: {gst: "…"}`).
    public static func gst(_ fragment: String, file: String = #fileID, line: Int = #line, column: Int = #column) -> SinkCode {
        SinkCode(kind: "", settings: [PipelineSetting("gst", .text(fragment))], file: file, line: line, column: column)
    }

    var node: SpecNode {
        var map = CodeMapping(location)
        if !kind.isEmpty { map.add("kind", .text(kind)) }
        map.add(settings)
        return map.node
    }
}
