import SluiceFilterKit

/// The validated, typed form of a pipeline file.
///
/// A pipeline file is YAML (see README, "The pipeline file"). `PipelineLoader` reads it,
/// substitutes `${VAR}` / `${VAR:-default}`, applies `--set` overrides, checks every key,
/// type and combination, and produces a `PipelineSpec`. Every value that the graph builder
/// may later need to blame carries the `SourceLocation` it came from, so runtime errors can
/// point back into the file too.
public struct PipelineSpec: Sendable, Equatable {
    /// Path of the file the spec was loaded from (as given by the user).
    public var file: String
    /// Optional human name (`name:`); defaults to the file's base name.
    public var name: String
    public var description: String?
    public var transport: TransportSpec
    public var send: SendSpec?
    public var receive: ReceiveSpec?
    /// Dynamic filter plugins (`plugins:`), loaded before the filters are checked.
    public var plugins: [PluginReference]

    public init(file: String, name: String, description: String? = nil,
                transport: TransportSpec, send: SendSpec?, receive: ReceiveSpec?, plugins: [PluginReference] = []) {
        self.file = file; self.name = name; self.description = description
        self.transport = transport; self.send = send; self.receive = receive; self.plugins = plugins
    }
}

extension PipelineSpec {
    /// The send section's branches, video first.
    public var sendBranches: [SendBranchSpec] { [send?.video, send?.audio].compactMap { $0 } }
    /// The receive section's branches, video first.
    public var receiveBranches: [ReceiveBranchSpec] { [receive?.video, receive?.audio].compactMap { $0 } }
}

/// A dynamic plugin library named in `plugins:`.
public struct PluginReference: Sendable, Equatable {
    /// The path as resolved (relative paths are relative to the pipeline file).
    public var path: String
    public var location: SourceLocation?
    public init(path: String, location: SourceLocation? = nil) { self.path = path; self.location = location }
}

/// One `name: value` setting of a Swift filter or source, checked against its parameters.
public struct FilterSetting: Sendable, Equatable {
    public var name: String
    public var value: FilterValue
    public var location: SourceLocation?
    public init(name: String, value: FilterValue, location: SourceLocation? = nil) {
        self.name = name; self.value = value; self.location = location
    }
}

/// What happens when a Swift filter throws (`on_error`).
public enum FilterErrorPolicy: String, Sendable, CaseIterable {
    /// Pass the frame on unchanged and count a warning (the default).
    case pass
    /// Drop the frame.
    case drop
    /// Stop the run with the filter's error (exit 3).
    case fail
}

/// Where a value came from: a line and column of a file, or a `--set` override.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    public init(file: String, line: Int, column: Int) {
        self.file = file; self.line = line; self.column = column
    }
    /// The whole file, no particular position (line and column 0), e.g. for "cannot read file".
    public init(file: String) {
        self.init(file: file, line: 0, column: 0)
    }
    /// `FILE:LINE:COL`, the prefix of every pipeline-file error; just `FILE` for a location
    /// naming the whole file (line 0).
    public var description: String { line > 0 ? "\(file):\(line):\(column)" : file }
}

/// Which side of the pipeline a branch is on.
public enum BranchSide: String, Sendable, CaseIterable {
    case send, receive
}

/// Audio or video.
public enum MediaKind: String, Sendable, CaseIterable {
    case video, audio
}

// MARK: - Transport

public struct TransportSpec: Sendable, Equatable {
    public var kind: TransportKind
    public var ice: ICESpec
    /// Receiver jitter-buffer latency in milliseconds (webrtcbin `latency`). Default 50.
    public var latencyMs: Int
    public var bundlePolicy: BundlePolicy
    /// Data channels of the session, opened by the side that offers.
    public var dataChannels: [DataChannelSpec] = []
    /// `dtls:`: the certificate to present (nil: Sluice's ECDSA P-256 default).
    public var dtlsCertificate: DTLSCertificate?
    /// What the kind's own keys said, in the kind's settings type (`EndpointSettings` for
    /// whep, whip and camera; `JanusSpec`, `XMPPSpec`, `CastSpec`, …). Read it with
    /// `settings(as:)`.
    public var settings: AnyKindSettings?
    public var location: SourceLocation?

    public init(kind: TransportKind = .loopback, ice: ICESpec = ICESpec(), latencyMs: Int = 50,
                bundlePolicy: BundlePolicy = .maxBundle, settings: (any KindSettings)? = nil,
                location: SourceLocation? = nil) {
        self.kind = kind; self.ice = ice; self.latencyMs = latencyMs
        self.bundlePolicy = bundlePolicy; self.settings = settings.map(AnyKindSettings.init); self.location = location
    }

    /// The kind's settings, if they are of type `type`.
    public func settings<S: KindSettings>(as type: S.Type) -> S? { settings?.value as? S }
}

/// `transport.kind`: how the two peers find each other. Each kind is one type in
/// `Transport/` (see `TransportRegistry`), which also defines its constant here
/// (`.loopback`, `.whep`, …).
public struct TransportKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    /// Whether the run makes a webrtcbin (and so needs GStreamer's DTLS key).
    public var usesWebRTC: Bool { transport?.abilities.contains(.webRTC) ?? true }
    /// Every kind this Sluice knows, in the order error messages list them.
    public static var known: [TransportKind] { TransportRegistry.all.map(\.kind) }
}

/// `kind: whep`, `whip` and `camera`: the HTTP endpoint and the bearer token sent to it.
public struct EndpointSettings: KindSettings, Equatable {
    /// The endpoint's URL (camera: the device URL).
    public var endpoint: String
    /// Bearer token sent to the endpoint.
    public var token: String?
    public init(endpoint: String, token: String? = nil) { self.endpoint = endpoint; self.token = token }
}

/// `kind: xmpp`: log in to an XMPP server and call `peer` (or wait for calls).
public struct XMPPSpec: KindSettings, Equatable {
    /// This side's address; a resource (`/camera`) is asked for when binding (default `sluice`).
    public var jid: String
    /// The account's password (write `${VAR}` to take it from the environment).
    public var password: String
    /// Where to connect (default: the JID's domain, port 5222).
    public var host: String?
    public var port: Int = 5222
    /// Whom to call: a full JID, or a bare one (XEP-0353 asks its devices). Nil: wait for a call.
    public var peer: String?
    /// Bare JIDs that may call (nil: anyone who can reach this account).
    public var allow: [String]?
    /// `required` refuses servers without STARTTLS; `offered` (default) uses it when offered.
    public var tlsRequired = false
    /// PEM file of the certificates to trust for the server (default: the system's).
    public var ca: String?
    public init(jid: String, password: String) { self.jid = jid; self.password = password }
}

/// A data channel: `transport.data_channels: [{label: chat}]`.
public struct DataChannelSpec: Sendable, Equatable {
    public var label: String
    /// Messages arrive in order (SCTP ordered delivery). Default true.
    public var ordered: Bool = true
    /// Partial reliability: give up on a message after this many retransmissions.
    public var maxRetransmits: Int?
    /// Print each message that arrives, as `[label] text`. Default true.
    public var print: Bool = true
    /// Send each line typed on standard input. At most one channel.
    public var stdin: Bool = false
    public var location: SourceLocation?
    public init(label: String, location: SourceLocation? = nil) { self.label = label; self.location = location }
}

public struct ICESpec: Sendable, Equatable {
    /// Local addresses to gather host candidates on (e.g. `[127.0.0.1]`). Empty: let libnice
    /// enumerate interfaces (which skips loopback).
    public var addresses: [String]
    /// `stun://host:port`.
    public var stun: String?
    /// `turn://user:password@host:port` (or `turns://`).
    public var turn: [String]
    public var policy: ICEPolicy
    /// Seconds to wait for ICE to reach connected/completed before failing with exit 3.
    public var connectTimeout: Double
    public var location: SourceLocation?

    public init(addresses: [String] = [], stun: String? = nil, turn: [String] = [],
                policy: ICEPolicy = .all, connectTimeout: Double = 10, location: SourceLocation? = nil) {
        self.addresses = addresses; self.stun = stun; self.turn = turn
        self.policy = policy; self.connectTimeout = connectTimeout; self.location = location
    }
}

public enum ICEPolicy: String, Sendable, CaseIterable {
    case all, relay
}

/// webrtcbin `bundle-policy`.
public enum BundlePolicy: String, Sendable, CaseIterable {
    case none, balanced
    case maxCompat = "max-compat"
    case maxBundle = "max-bundle"
}

// MARK: - Send side

public struct SendSpec: Sendable, Equatable {
    public var video: SendBranchSpec?
    public var audio: SendBranchSpec?
    public init(video: SendBranchSpec? = nil, audio: SendBranchSpec? = nil) {
        self.video = video; self.audio = audio
    }
}

/// capture → filters → encode → send, for one medium.
public struct SendBranchSpec: Sendable, Equatable {
    public var media: MediaKind
    public var capture: CaptureSpec
    public var filters: [FilterSpec]
    public var encode: EncodeSpec
    public var location: SourceLocation?
    public init(media: MediaKind, capture: CaptureSpec, filters: [FilterSpec] = [],
                encode: EncodeSpec, location: SourceLocation? = nil) {
        self.media = media; self.capture = capture; self.filters = filters
        self.encode = encode; self.location = location
    }
}

public struct CaptureSpec: Sendable, Equatable {
    /// Which capture kind (`capture.kind`; `gst` for a launch fragment) and what its own keys
    /// said. Each kind's file (`Capture/`) defines its constructor: `.test`, `.camera(device:)`,
    /// `.file(uri:loop:)`, `.gst(_:)`, `.swift(name:settings:)`.
    public typealias Kind = KindChoice<CaptureSpec>
    public var kind: Kind
    /// Video: videotestsrc `pattern` (e.g. smpte, ball, snow). Default smpte.
    public var pattern: String
    /// Video size and rate the branch produces (capture is scaled/converted to it).
    public var width: Int
    public var height: Int
    public var fps: Int
    /// Audio: audiotestsrc `wave` (sine, square, ticks, …). Default sine.
    public var wave: String
    /// Audio: tone frequency in Hz. Default 440.
    public var frequency: Double
    /// Audio: sample rate and channels. Default 48000 Hz, 2 channels.
    public var rate: Int
    public var channels: Int
    /// Test sources only: run live (paced by the clock). Default true.
    public var live: Bool
    public var location: SourceLocation?

    public init(kind: Kind = .test, pattern: String = "smpte", width: Int = 1280, height: Int = 720,
                fps: Int = 30, wave: String = "sine", frequency: Double = 440, rate: Int = 48000,
                channels: Int = 2, live: Bool = true, location: SourceLocation? = nil) {
        self.kind = kind; self.pattern = pattern; self.width = width; self.height = height
        self.fps = fps; self.wave = wave; self.frequency = frequency; self.rate = rate
        self.channels = channels; self.live = live; self.location = location
    }
}

/// One entry of a `filters:` list.
public struct FilterSpec: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A GStreamer element by factory name with properties (values as strings, parsed
        /// by GStreamer the way gst-launch parses them).
        case element(factory: String, properties: [Property])
        /// A raw gst-launch fragment, e.g. `videoflip method=horizontal-flip ! videobalance`.
        case gst(String)
        /// A Swift `FrameFilter` by name (built in or from a plugin), with its settings.
        case swift(name: String, settings: [FilterSetting], onError: FilterErrorPolicy)
    }
    public var kind: Kind
    public var location: SourceLocation?
    public init(kind: Kind, location: SourceLocation? = nil) {
        self.kind = kind; self.location = location
    }
}

/// A property assignment `name: value` as written in the file.
public struct Property: Sendable, Equatable {
    public var name: String
    public var value: String
    public var location: SourceLocation?
    public init(name: String, value: String, location: SourceLocation? = nil) {
        self.name = name; self.value = value; self.location = location
    }
}

public enum Codec: String, Sendable, CaseIterable {
    case vp8, vp9, h264, opus

    public var media: MediaKind { self == .opus ? .audio : .video }
    /// The RTP encoding name as it appears in SDP (`a=rtpmap`).
    public var encodingName: String {
        switch self {
        case .vp8: "VP8"
        case .vp9: "VP9"
        case .h264: "H264"
        case .opus: "OPUS"
        }
    }
}

public enum EncoderPreset: String, Sendable, CaseIterable {
    /// Low latency: no lookahead, no B-frames, CBR, fast speed settings.
    case realtime
    /// The encoder element's own defaults (only codec, bitrate and keyframe interval set).
    case `default`
}

/// Limits for a congestion-controlled encoder, in kbit/s (`encode.bitrate: {min, start, max}`).
public struct AdaptiveBitrate: Sendable, Equatable {
    public var minKbps: Int
    public var startKbps: Int
    public var maxKbps: Int
    /// Below this target (kbit/s) the picture is sent at half its width and height
    /// (`scale_below`); restored above 1.25 × it.
    public var scaleBelowKbps: Int?
    /// Below this target (kbit/s) the frame rate is halved (`fps_below`); restored above 1.25 × it.
    public var fpsBelowKbps: Int?
    public var location: SourceLocation?
    public init(minKbps: Int, startKbps: Int, maxKbps: Int, scaleBelowKbps: Int? = nil, fpsBelowKbps: Int? = nil,
                location: SourceLocation? = nil) {
        self.minKbps = minKbps; self.startKbps = startKbps; self.maxKbps = maxKbps
        self.scaleBelowKbps = scaleBelowKbps; self.fpsBelowKbps = fpsBelowKbps; self.location = location
    }
    /// The same limits in bit/s, for `BandwidthEstimator`.
    public var limits: BitrateLimits { BitrateLimits(min: minKbps * 1000, start: startKbps * 1000, max: maxKbps * 1000) }
}

/// One rung of a served stream's ladder (`encode.renditions`): the picture scaled to
/// `width`×`height` (at `fps`, or the capture's), encoded at `bitrateKbps`.
public struct Rendition: Sendable, Equatable {
    /// How the rung is named in statistics and metrics (default: `<height>p`).
    public var name: String
    public var width: Int
    public var height: Int
    /// Frames per second; nil: the capture's.
    public var fps: Int?
    public var bitrateKbps: Int
    public var location: SourceLocation?
    public init(name: String, width: Int, height: Int, fps: Int? = nil, bitrateKbps: Int, location: SourceLocation? = nil) {
        self.name = name; self.width = width; self.height = height; self.fps = fps
        self.bitrateKbps = bitrateKbps; self.location = location
    }
}

public struct EncodeSpec: Sendable, Equatable {
    public var codec: Codec
    /// Target bitrate in kbit/s. Default 2000 for video, 64 for Opus. With `adaptive`, the
    /// rate to start at.
    public var bitrateKbps: Int
    /// `bitrate: {min, start, max}`: the bitrate follows the network's estimate within these
    /// limits (video); nil keeps `bitrateKbps` fixed.
    public var adaptive: AdaptiveBitrate?
    /// Frames between keyframes (video). Default 2 s worth of frames at the branch's fps.
    public var keyframeInterval: Int?
    public var preset: EncoderPreset
    /// Use this encoder element instead of the default for the codec (e.g. `openh264enc`).
    public var element: String?
    /// Extra properties for the encoder element, applied after the preset's.
    public var properties: [Property]
    /// A raw gst-launch fragment used as the encoder (codec still names the payloader).
    public var gst: String?
    /// A ladder of renditions (`renditions:`, served streams only): the picture encoded once
    /// per rung, best first; each viewer gets the rung its own estimate allows. Empty: one
    /// encoder at `bitrateKbps`.
    public var renditions: [Rendition] = []
    /// The rung a new viewer starts on (the one marked `start: true`; default the first).
    public var startRendition = 0
    public var location: SourceLocation?

    public init(codec: Codec, bitrateKbps: Int, keyframeInterval: Int? = nil,
                preset: EncoderPreset = .realtime, element: String? = nil,
                properties: [Property] = [], gst: String? = nil, location: SourceLocation? = nil) {
        self.codec = codec; self.bitrateKbps = bitrateKbps; self.keyframeInterval = keyframeInterval
        self.preset = preset; self.element = element; self.properties = properties
        self.gst = gst; self.location = location
    }
}

// MARK: - Receive side

public struct ReceiveSpec: Sendable, Equatable {
    public var video: ReceiveBranchSpec?
    public var audio: ReceiveBranchSpec?
    public init(video: ReceiveBranchSpec? = nil, audio: ReceiveBranchSpec? = nil) {
        self.video = video; self.audio = audio
    }
}

/// receive → decode → filters → sink, for one medium.
public struct ReceiveBranchSpec: Sendable, Equatable {
    public var media: MediaKind
    /// Codecs this side accepts. Empty: every codec Sluice can decode for the medium.
    public var codecs: [Codec]
    public var decode: DecodeSpec
    public var filters: [FilterSpec]
    public var sink: SinkSpec
    /// `mosaic:` (video, `kind: janus`): the room's publishers composed into one picture of this
    /// size, which then goes through the branch's filters and sink.
    public var mosaic: MosaicSpec?
    /// `mix: true` (audio, `kind: janus`): the room's publishers mixed into one sound, which
    /// then goes through the branch's filters and sink. Where the file says so.
    public var mix: SourceLocation?
    public var location: SourceLocation?
    public init(media: MediaKind, codecs: [Codec] = [], decode: DecodeSpec = DecodeSpec(),
                filters: [FilterSpec] = [], sink: SinkSpec = SinkSpec(), location: SourceLocation? = nil) {
        self.media = media; self.codecs = codecs; self.decode = decode; self.filters = filters
        self.sink = sink; self.location = location
    }
}

/// `receive.video.mosaic`: one picture of every publisher's video, in a grid.
public struct MosaicSpec: Sendable, Equatable {
    public var width: Int = 1280
    public var height: Int = 720
    public var location: SourceLocation?
    public init(width: Int = 1280, height: Int = 720, location: SourceLocation? = nil) {
        self.width = width; self.height = height; self.location = location
    }
}

public struct DecodeSpec: Sendable, Equatable {
    /// nil: pick the decoder by the negotiated codec. Otherwise this decoder element.
    public var element: String?
    /// `decode: none`: count encoded frames after the depayloader and discard them, without
    /// decoding (a cheap receiving peer for load tests). No filters; sink stats or null.
    public var none = false
    public var properties: [Property]
    public var location: SourceLocation?
    public init(element: String? = nil, properties: [Property] = [], location: SourceLocation? = nil) {
        self.element = element; self.properties = properties; self.location = location
    }
}

public struct SinkSpec: Sendable, Equatable {
    /// Which sink kind (`sink.kind`; `gst` for a launch fragment) and what its own keys said.
    /// Each kind's file (`Sink/`) defines its constructor: `.stats`, `.null`, `.display`,
    /// `.file(path:container:encode:)`, `.gst(_:)`.
    public typealias Kind = KindChoice<SinkSpec>
    public var kind: Kind
    public var location: SourceLocation?
    public init(kind: Kind = .stats, location: SourceLocation? = nil) {
        self.kind = kind; self.location = location
    }
}

public enum Container: String, Sendable, CaseIterable {
    case webm, mkv, mp4

    /// Codecs this container can hold.
    public var codecs: Set<Codec> {
        switch self {
        case .webm: [.vp8, .vp9, .opus]
        case .mkv: [.vp8, .vp9, .h264, .opus]
        case .mp4: [.h264, .vp9, .opus]
        }
    }
    /// The codec used when the file sink has no `encode:` of its own.
    public func defaultCodec(for media: MediaKind) -> Codec {
        switch (self, media) {
        case (_, .audio): .opus
        case (.webm, .video): .vp8
        case (_, .video): .h264
        }
    }
}
