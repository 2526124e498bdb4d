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
    /// `description:`, free text about the pipeline; nil when the file has none.
    public var description: String?
    /// `transport:`: how the peers find each other, plus ICE, latency and bundle settings.
    public var transport: TransportSpec
    /// `send:`: the branches this side captures, encodes and sends; nil when the file has none.
    public var send: SendSpec?
    /// `receive:`: the branches this side receives, decodes and plays or records; nil when the file has none.
    public var receive: ReceiveSpec?
    /// Dynamic filter plugins (`plugins:`), loaded before the filters are checked.
    public var plugins: [PluginReference]
    /// `load:`: the crowd `sluice load` makes of this file's client; nil when the file has none.
    public var load: LoadSpec?

    /// A spec from its parts, as `PipelineLoader` would produce them; `plugins` defaults to none.
    public init(
        file: String, name: String, description: String? = nil,
        transport: TransportSpec, send: SendSpec?, receive: ReceiveSpec?, plugins: [PluginReference] = []
    ) {
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
    /// Where the path was written in the pipeline file; nil for a plugin not read from a file.
    public var location: SourceLocation?
    /// A reference to the plugin library at `path` (resolved already).
    public init(path: String, location: SourceLocation? = nil) { self.path = path; self.location = location }
}

/// One `name: value` setting of a Swift filter or source, checked against its parameters.
public struct FilterSetting: Sendable, Equatable {
    /// The setting's name, one of the filter's parameters.
    public var name: String
    /// The setting's value, of the type the parameter declares.
    public var value: FilterValue
    /// Where the setting was written in the pipeline file; nil when it was not read from one.
    public var location: SourceLocation?
    /// A setting `name: value` of a Swift filter or source.
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
    /// The pipeline file's path, as given by the user; for a `--set` override the pseudo-file `--set <argument>`.
    public var file: String
    /// 1-based line number; 0 names the whole file.
    public var line: Int
    /// 1-based column number; 0 with line 0.
    public var column: Int
    /// A position `line`:`column` in `file`.
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
    /// `send` is the side that captures and sends; `receive` the side that receives and plays.
    case send, receive
}

/// Audio or video.
public enum MediaKind: String, Sendable, CaseIterable {
    /// The two media a branch can carry (`send.video`, `receive.audio`, …).
    case video, audio
}

// MARK: - Transport

/// `transport:`: how the two peers find each other, and the WebRTC settings every kind shares.
public struct TransportSpec: Sendable, Equatable {
    /// `transport.kind`: how the peers find each other (loopback when not given).
    public var kind: TransportKind
    /// `transport.ice`: the ICE settings (addresses, STUN, TURN, policy, connect timeout).
    public var ice: ICESpec
    /// Receiver jitter-buffer latency in milliseconds (webrtcbin `latency`). Default 50.
    public var latencyMs: Int
    /// `transport.bundle`: webrtcbin `bundle-policy`; default `max-bundle`.
    public var bundlePolicy: BundlePolicy
    /// Data channels of the session, opened by the side that offers.
    public var dataChannels: [DataChannelSpec] = []
    /// `dtls:`: the certificate to present (nil: Sluice's ECDSA P-256 default).
    public var dtlsCertificate: DTLSCertificate?
    /// What the kind's own keys said, in the kind's settings type (`EndpointSettings` for
    /// whep, whip and camera; `JanusSpec`, `XMPPSpec`, `CastSpec`, …). Read it with
    /// `settings(as:)`.
    public var settings: AnyKindSettings?
    /// Where `transport:` was written in the pipeline file; nil when the file has none.
    public var location: SourceLocation?

    /// A transport section; the defaults are loopback, 50 ms latency and `max-bundle`.
    public init(
        kind: TransportKind = .loopback, ice: ICESpec = ICESpec(), latencyMs: Int = 50,
        bundlePolicy: BundlePolicy = .maxBundle, settings: (any KindSettings)? = nil,
        location: SourceLocation? = nil
    ) {
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
    /// The kind's name as written after `kind:` (e.g. `whep`).
    public let rawValue: String
    /// The kind named `rawValue`; it need not be one Sluice knows (see `known`).
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The kind's name, as written in the pipeline file.
    public var description: String { rawValue }

    /// Whether the run makes a webrtcbin (and so needs GStreamer's DTLS key).
    public var usesWebRTC: Bool { transport?.abilities.contains(.webRTC) ?? true }
    /// Every kind this Sluice knows, in the order error messages list them.
    public static var known: [TransportKind] { TransportRegistry.all.map(\.kind) }
}

/// A data channel: `transport.data_channels: [{label: chat}]`.
public struct DataChannelSpec: Sendable, Equatable {
    /// `label:`: the channel's label, unique within the session.
    public var label: String
    /// Messages arrive in order (SCTP ordered delivery). Default true.
    public var ordered: Bool = true
    /// Partial reliability: give up on a message after this many retransmissions.
    public var maxRetransmits: Int?
    /// Print each message that arrives, as `[label] text`. Default true.
    public var print: Bool = true
    /// Send each line typed on standard input. At most one channel.
    public var stdin: Bool = false
    /// Where the channel was written in the pipeline file.
    public var location: SourceLocation?
    /// A channel labelled `label`, ordered, printing what arrives, not reading standard input.
    public init(label: String, location: SourceLocation? = nil) { self.label = label; self.location = location }
}

/// `transport.ice`: how candidates are gathered and how long ICE may take to connect.
public struct ICESpec: Sendable, Equatable {
    /// Local addresses to gather host candidates on (e.g. `[127.0.0.1]`). Empty: let libnice
    /// enumerate interfaces (which skips loopback).
    public var addresses: [String]
    /// `stun://host:port`.
    public var stun: String?
    /// `turn://user:password@host:port` (or `turns://`).
    public var turn: [String]
    /// `policy:`: which candidates may be used; default `all`.
    public var policy: ICEPolicy
    /// Seconds to wait for ICE to reach connected/completed before failing with exit 3.
    public var connectTimeout: Double
    /// `tcp:`: whether ICE also gathers TCP candidates (RFC 6544). nil: not written, which is
    /// yes for a run and no for `sluice load`'s clients (their media should take the UDP path
    /// the conditions under test apply to).
    public var tcp: Bool?
    /// `port_range: MIN-MAX`: the local ports ICE may bind (for a firewall or a NAT that
    /// forwards only those). nil: any port.
    public var portRange: ClosedRange<Int>?
    /// Where `transport.ice` (or `transport:`) was written in the pipeline file.
    public var location: SourceLocation?

    /// ICE settings; by default every candidate is allowed and ICE has 10 seconds to connect.
    public init(
        addresses: [String] = [], stun: String? = nil, turn: [String] = [],
        policy: ICEPolicy = .all, connectTimeout: Double = 10, location: SourceLocation? = nil
    ) {
        self.addresses = addresses; self.stun = stun; self.turn = turn
        self.policy = policy; self.connectTimeout = connectTimeout; self.location = location
    }
}

/// `transport.ice.policy`: the ICE candidates the peer connection may use (webrtcbin `ice-transport-policy`).
public enum ICEPolicy: String, Sendable, CaseIterable {
    /// `all`: every candidate (host, server-reflexive, relay); `relay`: TURN relay candidates only, which needs a `turn:` server.
    case all, relay
}

/// webrtcbin `bundle-policy`.
public enum BundlePolicy: String, Sendable, CaseIterable {
    /// `none` and `balanced`: webrtcbin's `none` and `balanced` bundle policies.
    case none, balanced
    /// `max-compat`: webrtcbin's `max-compat` bundle policy.
    case maxCompat = "max-compat"
    /// `max-bundle` (the default): every medium on one transport.
    case maxBundle = "max-bundle"
}

// MARK: - Send side

/// `send:`: the video and audio branches this side sends.
public struct SendSpec: Sendable, Equatable {
    /// `send.video`: the video branch; nil when the file has none.
    public var video: SendBranchSpec?
    /// `send.audio`: the audio branch; nil when the file has none.
    public var audio: SendBranchSpec?
    /// A send section with the branches given.
    public init(video: SendBranchSpec? = nil, audio: SendBranchSpec? = nil) {
        self.video = video; self.audio = audio
    }
}

/// capture → filters → encode → send, for one medium.
public struct SendBranchSpec: Sendable, Equatable {
    /// Whether this is `send.video` or `send.audio`.
    public var media: MediaKind
    /// `capture:`: where the branch's raw frames come from.
    public var capture: CaptureSpec
    /// `filters:`: the filters the raw frames go through before encoding, in order (default none).
    public var filters: [FilterSpec]
    /// `encode:`: the encoder; default VP8 at 2000 kbit/s for video, Opus at 64 kbit/s for audio.
    public var encode: EncodeSpec
    /// `encoded_filters:`: the filters each encoded frame goes through between the encoder
    /// (or a passed-through capture) and the payloader, in order (default none).
    public var encodedFilters: [FilterSpec] = []
    /// `record:`: what this branch sends (encoded, or passed through) also recorded in
    /// segments, a `record` sink's settings without `encode`; nil when not recorded.
    public var record: SinkSpec?
    /// Where the branch was written in the pipeline file.
    public var location: SourceLocation?
    /// A send branch from its parts; no filters unless given.
    public init(
        media: MediaKind, capture: CaptureSpec, filters: [FilterSpec] = [],
        encode: EncodeSpec, location: SourceLocation? = nil
    ) {
        self.media = media; self.capture = capture; self.filters = filters
        self.encode = encode; self.location = location
    }
}

/// `capture:` of a send branch: the source and the raw format it is converted to.
public struct CaptureSpec: Sendable, Equatable {
    /// Which capture kind (`capture.kind`; `gst` for a launch fragment) and what its own keys
    /// said. Each kind's file (`Capture/`) defines its constructor: `.test`, `.camera(device:)`,
    /// `.file(uri:loop:)`, `.gst(_:)`, `.swift(name:settings:)`.
    public typealias Kind = KindChoice<CaptureSpec>
    /// The capture kind and its own settings; `.test` by default.
    public var kind: Kind
    /// Video: videotestsrc `pattern` (e.g. smpte, ball, snow). Default smpte.
    public var pattern: String
    /// Video size and rate the branch produces (capture is scaled/converted to it).
    public var width: Int
    /// Video: height in pixels (`height:`, even, default 720); `width:` is the width (default 1280).
    public var height: Int
    /// Video: frames per second (`fps:`, 1 to 240, default 30).
    public var fps: Int
    /// Audio: audiotestsrc `wave` (sine, square, ticks, …). Default sine.
    public var wave: String
    /// Audio: tone frequency in Hz. Default 440.
    public var frequency: Double
    /// Audio: sample rate and channels. Default 48000 Hz, 2 channels.
    public var rate: Int
    /// Audio: channels (`channels:`, 1 to 8, default 2).
    public var channels: Int
    /// Test sources only: run live (paced by the clock). Default true.
    public var live: Bool
    /// What is sent while a live network source is away (`fallback:`); nil: the last frame
    /// stays on viewers' screens until the source is back.
    public var fallback: FallbackSpec?
    /// Where `capture:` was written in the pipeline file.
    public var location: SourceLocation?

    /// A capture with the given values; the defaults are a live SMPTE test picture at 1280×720, 30 fps, and a 440 Hz sine at 48000 Hz, 2 channels.
    public init(
        kind: Kind = .test, pattern: String = "smpte", width: Int = 1280, height: Int = 720,
        fps: Int = 30, wave: String = "sine", frequency: Double = 440, rate: Int = 48000,
        channels: Int = 2, live: Bool = true, location: SourceLocation? = nil
    ) {
        self.kind = kind; self.pattern = pattern; self.width = width; self.height = height
        self.fps = fps; self.wave = wave; self.frequency = frequency; self.rate = rate
        self.channels = channels; self.live = live; self.location = location
    }
}

/// One entry of a `filters:` list.
public struct FilterSpec: Sendable, Equatable {
    /// What the filter is: a GStreamer element, a gst-launch fragment or a Swift filter.
    public enum Kind: Sendable, Equatable {
        /// A GStreamer element by factory name with properties (values as strings, parsed
        /// by GStreamer the way gst-launch parses them).
        case element(factory: String, properties: [Property])
        /// A raw gst-launch fragment, e.g. `videoflip method=horizontal-flip ! videobalance`.
        case gst(String)
        /// A Swift `FrameFilter` by name (built in or from a plugin), with its settings.
        case swift(name: String, settings: [FilterSetting], onError: FilterErrorPolicy)
    }
    /// What the filter is and its settings.
    public var kind: Kind
    /// Where the entry was written in the pipeline file.
    public var location: SourceLocation?
    /// A `filters:` entry of `kind`.
    public init(kind: Kind, location: SourceLocation? = nil) {
        self.kind = kind; self.location = location
    }
}

/// A property assignment `name: value` as written in the file.
public struct Property: Sendable, Equatable {
    /// The property's name (a GStreamer element property, e.g. `bitrate`).
    public var name: String
    /// The value as written; GStreamer parses it the way gst-launch does.
    public var value: String
    /// Where the property was written in the pipeline file.
    public var location: SourceLocation?
    /// A property `name: value`.
    public init(name: String, value: String, location: SourceLocation? = nil) {
        self.name = name; self.value = value; self.location = location
    }
}

/// `encode.codec` and `receive.*.codecs`: the codecs Sluice sends and receives over WebRTC.
public enum Codec: String, Sendable, CaseIterable {
    /// The video codecs VP8, VP9 and H.264, and the audio codec Opus.
    case vp8, vp9, h264, opus

    /// The medium the codec carries: `.audio` for Opus, `.video` for the others.
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

/// `encode.preset`: how the encoder element is tuned.
public enum EncoderPreset: String, Sendable, CaseIterable {
    /// Low latency: no lookahead, no B-frames, CBR, fast speed settings.
    case realtime
    /// The encoder element's own defaults (only codec, bitrate and keyframe interval set).
    case `default`
}

/// Limits for a congestion-controlled encoder, in kbit/s (`encode.bitrate: {min, start, max}`).
public struct AdaptiveBitrate: Sendable, Equatable {
    /// `min`: the lowest bitrate in kbit/s the encoder is set to.
    public var minKbps: Int
    /// `start`: the bitrate in kbit/s to start at (default 1000, kept within min and max).
    public var startKbps: Int
    /// `max`: the highest bitrate in kbit/s the encoder is set to.
    public var maxKbps: Int
    /// Below this target (kbit/s) the picture is sent at half its width and height
    /// (`scale_below`); restored above 1.25 × it.
    public var scaleBelowKbps: Int?
    /// Below this target (kbit/s) the frame rate is halved (`fps_below`); restored above 1.25 × it.
    public var fpsBelowKbps: Int?
    /// Where `bitrate:` was written in the pipeline file.
    public var location: SourceLocation?
    /// Adaptive limits in kbit/s, with the optional thresholds that make the picture smaller or its rate lower.
    public init(
        minKbps: Int, startKbps: Int, maxKbps: Int, scaleBelowKbps: Int? = nil, fpsBelowKbps: Int? = nil,
        location: SourceLocation? = nil
    ) {
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
    /// The rung's width in pixels.
    public var width: Int
    /// The rung's height in pixels.
    public var height: Int
    /// Frames per second; nil: the capture's.
    public var fps: Int?
    /// The rung's bitrate in kbit/s.
    public var bitrateKbps: Int
    /// Where the rung was written in the pipeline file.
    public var location: SourceLocation?
    /// A rung named `name`; `fps` nil uses the capture's rate.
    public init(name: String, width: Int, height: Int, fps: Int? = nil, bitrateKbps: Int, location: SourceLocation? = nil) {
        self.name = name; self.width = width; self.height = height; self.fps = fps
        self.bitrateKbps = bitrateKbps; self.location = location
    }
}

/// One layer of a simulcast publication (`encode.simulcast`): the picture scaled down by
/// `scale` and encoded on its own at `bitrateKbps`, sent under its RTP stream id `rid`.
public struct SimulcastLayer: Sendable, Equatable {
    /// The layer's RTP stream id (`a=rid`), 1–15 letters or digits.
    public var rid: String
    /// How much smaller than the capture the picture is, each way: 1, 2, 4 or 8.
    public var scale: Int
    /// The layer's bitrate in kbit/s.
    public var bitrateKbps: Int
    /// Where the layer was written in the pipeline file.
    public var location: SourceLocation?
    /// A layer `rid` at 1/`scale` of the capture's size, encoded at `bitrateKbps`.
    public init(rid: String, scale: Int, bitrateKbps: Int, location: SourceLocation? = nil) {
        self.rid = rid; self.scale = scale; self.bitrateKbps = bitrateKbps; self.location = location
    }
    /// The layer's picture size for `capture` (its size divided by `scale`, rounded down).
    package func size(of capture: CaptureSpec) -> (width: Int, height: Int) {
        (capture.width / scale, capture.height / scale)
    }
}

/// `encode:` of a send branch: the codec, bitrate and encoder element.
public struct EncodeSpec: Sendable, Equatable {
    /// `codec:`: the codec to encode with (and payload for RTP); default VP8 for video, Opus for audio.
    public var codec: Codec
    /// Target bitrate in kbit/s. Default 2000 for video, 64 for Opus. With `adaptive`, the
    /// rate to start at.
    public var bitrateKbps: Int
    /// `bitrate: {min, start, max}`: the bitrate follows the network's estimate within these
    /// limits (video); nil keeps `bitrateKbps` fixed.
    public var adaptive: AdaptiveBitrate?
    /// Frames between keyframes (video). Default 2 s worth of frames at the branch's fps.
    public var keyframeInterval: Int?
    /// `preset:`: how the encoder is tuned; default `realtime`.
    public var preset: EncoderPreset
    /// Use this encoder element instead of the default for the codec (e.g. `openh264enc`).
    public var element: String?
    /// Extra properties for the encoder element, applied after the preset's.
    public var properties: [Property]
    /// A raw gst-launch fragment used as the encoder (codec still names the payloader).
    public var gst: String?
    /// A ladder of renditions (`renditions:`, served streams only): the picture encoded once
    /// per rung, best first; each viewer gets the rung its own estimate allows. Empty: one
    /// encoder at `bitrateKbps`. With `passthrough`, these are the rungs below the source:
    /// the source's stream is the best rung, sent as it is, and the rungs are decoded from
    /// it once and encoded in `codec`.
    public var renditions: [Rendition] = []
    /// The rung a new viewer starts on (the one marked `start: true`; default the first), as
    /// served: with `passthrough`, 0 is the source and `renditions[i]` is rung `i + 1`.
    public var startRendition = 0
    /// `passthrough: true` (or `encode: none`): the capture's media is already encoded in
    /// `codec` and goes to the payloader as it is, without decoding or encoding. Only
    /// captures that deliver encoded media can do it (`rtsp`).
    public var passthrough = false
    /// `passthrough: auto` (video, served): viewers whose decoders take the source as it is
    /// get it so; the others get it decoded and encoded again (H.264 Constrained Baseline or
    /// VP8), by one encoder per codec made when the first such viewer comes. Where it was written.
    public var transcodeForViewers: SourceLocation?
    /// `gop_cache: true` (video, served, one encoder): where it was written; nil, off. The
    /// encoded stream's latest keyframe and the frames after it are kept, and a viewer that
    /// joins starts from them at once instead of asking the encoder for a keyframe (which
    /// every viewer already watching would receive too). Its first picture is then up to a
    /// keyframe interval old.
    public var gopCache: SourceLocation?
    /// `simulcast:` (video): the layers sent at once, best first, each scaled from the capture
    /// and encoded on its own; the receiving server forwards each viewer one of them. Empty:
    /// one stream.
    public var simulcast: [SimulcastLayer] = []
    /// `adaptive_layers:` (with `simulcast`): the sender estimates what its link carries from
    /// the server's congestion control feedback and sends only the layers that fit, switching
    /// the top ones off when the estimate falls and on again when it rises.
    public var adaptiveLayers = false
    /// With `passthrough: auto`, the bitrate those viewers' encoders run at, kbit/s
    /// (`bitrate` next to it; 2000 if not written).
    public var transcodeKbps = 2000
    /// Where `encode:` (or the branch, for the default encoder) was written in the pipeline file.
    public var location: SourceLocation?

    /// Encoder settings for `codec` at `bitrateKbps` kbit/s, with the `realtime` preset unless given.
    public init(
        codec: Codec, bitrateKbps: Int, keyframeInterval: Int? = nil,
        preset: EncoderPreset = .realtime, element: String? = nil,
        properties: [Property] = [], gst: String? = nil, location: SourceLocation? = nil
    ) {
        self.codec = codec; self.bitrateKbps = bitrateKbps; self.keyframeInterval = keyframeInterval
        self.preset = preset; self.element = element; self.properties = properties
        self.gst = gst; self.location = location
    }
}

// MARK: - Receive side

/// `receive:`: the video and audio branches this side receives.
public struct ReceiveSpec: Sendable, Equatable {
    /// `receive.video`: the video branch; nil when the file has none.
    public var video: ReceiveBranchSpec?
    /// `receive.audio`: the audio branch; nil when the file has none.
    public var audio: ReceiveBranchSpec?
    /// `receive.playout`: when decoded frames and sound are played (default `arrival`).
    public var playout: ReceivePlayout
    /// A receive section with the branches given.
    public init(video: ReceiveBranchSpec? = nil, audio: ReceiveBranchSpec? = nil, playout: ReceivePlayout = .arrival) {
        self.video = video; self.audio = audio; self.playout = playout
    }
}

/// `receive.playout`: when what arrives is played (handed to the branch's filters and sink).
public enum ReceivePlayout: String, Sendable, Equatable, CaseIterable {
    /// `arrival` (the default): each frame and each sound buffer as soon as it is decoded. The
    /// least delay; picture and sound keep whatever their paths differ by (Opus fills a 20-ms
    /// frame before it sends, a small picture is through in a few ms).
    case arrival
    /// `lip-sync`: each frame and sound buffer waits until its presentation time, so sound
    /// and picture captured together are played together, as a player does. The sender's
    /// RTCP reports map RTP time to capture time; the receiving rtpbin uses them to place
    /// both streams on one timeline, and a `clocksync` after each decoder holds what came
    /// early until its time plus the receive path's latency (the jitter buffer's, from
    /// `transport.latency`, and the decoders'), the same for both media.
    case lipSync = "lip-sync"
}

/// receive → decode → filters → sink, for one medium.
public struct ReceiveBranchSpec: Sendable, Equatable {
    /// Whether this is `receive.video` or `receive.audio`.
    public var media: MediaKind
    /// Codecs this side accepts. Empty: every codec Sluice can decode for the medium.
    public var codecs: [Codec]
    /// `decode:`: the decoder; by default picked by the negotiated codec.
    public var decode: DecodeSpec
    /// `filters:`: the filters decoded frames go through before the sink, in order (default none).
    public var filters: [FilterSpec]
    /// `encoded_filters:`: the filters each encoded frame goes through between the
    /// depayloader and the decoder, in order (default none).
    public var encodedFilters: [FilterSpec] = []
    /// `sink:`: where decoded frames go; default `stats`.
    public var sink: SinkSpec
    /// `mosaic:` (video, `kind: janus`): the room's publishers composed into one picture of this
    /// size, which then goes through the branch's filters and sink.
    public var mosaic: MosaicSpec?
    /// `mix: true` (audio, `kind: janus`): the room's publishers mixed into one sound, which
    /// then goes through the branch's filters and sink. Where the file says so.
    public var mix: SourceLocation?
    /// Where the branch was written in the pipeline file.
    public var location: SourceLocation?
    /// A receive branch from its parts; by default any codec, automatic decoding, no filters and a stats sink.
    public init(
        media: MediaKind, codecs: [Codec] = [], decode: DecodeSpec = DecodeSpec(),
        filters: [FilterSpec] = [], sink: SinkSpec = SinkSpec(), location: SourceLocation? = nil
    ) {
        self.media = media; self.codecs = codecs; self.decode = decode; self.filters = filters
        self.sink = sink; self.location = location
    }
}

/// `receive.video.mosaic`: one picture of every publisher's video, in a grid.
public struct MosaicSpec: Sendable, Equatable {
    /// `width:`: the mosaic's width in pixels (64 to 3840, default 1280).
    public var width: Int = 1280
    /// `height:`: the mosaic's height in pixels (64 to 2160, default 720).
    public var height: Int = 720
    /// Where `mosaic:` was written in the pipeline file.
    public var location: SourceLocation?
    /// A mosaic of `width`×`height` pixels.
    public init(width: Int = 1280, height: Int = 720, location: SourceLocation? = nil) {
        self.width = width; self.height = height; self.location = location
    }
}

/// `decode:` of a receive branch: `auto`, `none`, or `{element, properties}`.
public struct DecodeSpec: Sendable, Equatable {
    /// nil: pick the decoder by the negotiated codec. Otherwise this decoder element.
    public var element: String?
    /// `decode: none`: count encoded frames after the depayloader and discard them, without
    /// decoding (a cheap receiving peer for load tests). No filters; sink stats or null.
    public var none = false
    /// `properties:`: extra properties for the decoder element.
    public var properties: [Property]
    /// Where `decode:` was written in the pipeline file; nil for the default.
    public var location: SourceLocation?
    /// Decoder settings; with no element the decoder is picked by the negotiated codec.
    public init(element: String? = nil, properties: [Property] = [], location: SourceLocation? = nil) {
        self.element = element; self.properties = properties; self.location = location
    }
}

/// `sink:` of a receive branch: where decoded frames go.
public struct SinkSpec: Sendable, Equatable {
    /// Which sink kind (`sink.kind`; `gst` for a launch fragment) and what its own keys said.
    /// Each kind's file (`Sink/`) defines its constructor: `.stats`, `.null`, `.display`,
    /// `.file(path:container:encode:)`, `.gst(_:)`.
    public typealias Kind = KindChoice<SinkSpec>
    /// The sink kind and its own settings; `.stats` by default.
    public var kind: Kind
    /// Where `sink:` (or the branch, for the default sink) was written in the pipeline file.
    public var location: SourceLocation?
    /// A sink of `kind` (`stats` unless given).
    public init(kind: Kind = .stats, location: SourceLocation? = nil) {
        self.kind = kind; self.location = location
    }
}

/// The file sink's `container:`: the format a recording is written in.
public enum Container: String, Sendable, CaseIterable {
    /// WebM, Matroska and MP4.
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
