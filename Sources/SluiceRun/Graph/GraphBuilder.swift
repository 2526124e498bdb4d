import Foundation
import GStreamer
import SluiceFilterKit
import Synchronization

/// Turns a `PipelineSpec` into GStreamer elements inside one pipeline.
///
/// Send branches are built up front and linked into the sending webrtcbin; receive branches
/// are built when the receiving webrtcbin exposes a decoded-to-be RTP pad (`pad-added`),
/// which happens on a GStreamer streaming thread.
public final class GraphBuilder: Sendable {
    /// The file being built.
    public let spec: PipelineSpec
    package let pipeline: Pipeline
    package let counters: RunCounters

    package struct State {
        package var receiveEntrances: [Pad] = []
        package var sinkPads: [Pad] = []
        package var recordings: [String: Recording] = [:]
        /// What names each segmented recording's files (`sink: {kind: record}`), for the summary.
        package var segmentNamers: [SegmentNamer] = []
        package var builtMedia: Set<MediaKind> = []
        package var error: RunError?
        package var fileSources: [FileLooper] = []
        package var sections: [BranchKey: FilterSection] = [:]
        /// Each branch's encoded filters as built (a receive branch: one list per stream).
        package var encodedFilterLists: [BranchKey: [EncodedFilterList]] = [:]
        /// Where each encoding send branch's encoded filters sit (empty lists too), for
        /// swapping the list while running.
        package var encodedSendSections: [MediaKind: EncodedSendSection] = [:]
        /// Every Swift filter element made during the run (kept for their statistics).
        package var swiftFilters: [Element] = []
        package var tees: [MediaKind: Element] = [:]
        /// The webrtcbin input pad of each send branch.
        package var webrtcInputs: [MediaKind: Pad] = [:]
        /// The RTP stage of each send branch into a webrtcbin (see `retargetSend`).
        package var sendRTP: [MediaKind: SendRTP] = [:]
        /// Blocking probes holding send branches back until an answer exists (`holdSend`).
        package var sendHolds: [(pad: Pad, probe: UInt)] = []
        /// The encoder and track gate of each send branch (the control API's handles).
        package var sendControls: [MediaKind: SendControl] = [:]
        /// One per send branch into a webrtcbin: closed until the connection carries media.
        package var startGates: [MediaKind: (gate: StartGate, pad: Pad)] = [:]
        /// The layers of a simulcast video branch (`encode.simulcast`), best first.
        package var simulcastLayers: [SimulcastLayerOutput] = []
        /// Passes peers' keyframe requests to the simulcast layers they name.
        package var simulcastRoute: SimulcastKeyframeRoute?
        /// The media whose receive branch is built: a second stream of one (another layer of
        /// a simulcast sender that was not asked for it) goes nowhere.
        package var receivedMedia: Set<MediaKind> = []
        /// The video branch's congestion control, with `encode.bitrate: {min, start, max}`.
        package var congestion: CongestionControl?
        /// The video encoder's keyframe-request limiter (the best rung's, with a ladder).
        package var keyframeRequests: KeyframeRequestLimiter?
        /// The rungs of a served video ladder (`encode.renditions`), best first.
        package var renditions: [RenditionOutput] = []
        /// Receive filters swapped in before that branch was built.
        package var pendingReceiveFilters: [MediaKind: [FilterSpec]] = [:]
        /// Sources several branches share (one RTSP session per camera), by key.
        package var sharedSources: [String: any Sendable] = [:]
        /// What the user calls the elements that stand for a source, by element name.
        package var sourceLabels: [String: SourceLabel] = [:]
        /// A passthrough video branch's last group of pictures (new peers start from it).
        package var gopCache: GOPCache?
        /// Peers' keyframe requests for a passthrough video stream, which go unanswered.
        package var passthroughKeyframeRequests: PassthroughKeyframeRequests?
        /// The `clocksync` of each receive branch with `receive.playout: lip-sync`.
        package var playoutSyncs: [Element] = []
    }
    package let state = Mutex(State())
    /// Serializes receive-branch builds (video and audio pads can appear on two threads at
    /// once and may share a muxer).
    package let buildLock = NSLock()

    /// Without a webrtcbin, send branches end in a `tee` (for viewers to attach to) instead
    /// of a discarding sink.
    package let sendEndsInTee: Bool

    /// Times the video path's stages when measuring (`sluice measure`).
    package let stageTimer: StageTimer?
    /// Times the audio path's stages when measuring.
    package let audioStageTimer: StageTimer?

    /// The publishers' streams of a room received over one connection (`kind: janus`).
    package let roomStreams = RoomStreams()
    /// The receive session that takes a request for another simulcast layer, if it has one.
    package let layerChoice = Mutex<(any SimulcastLayerChoosing)?>(nil)
    /// The run's live network sources, reconnected after an outage.
    package let supervisor = SourceSupervisor()
    /// `receive.video.mosaic` of a room: the compositor and its layout.
    package let mosaicState = Mutex<Mosaic?>(nil)
    /// `receive.audio.mix` of a room: its `audiomixer`.
    package let mixState = Mutex<Element?>(nil)
    /// `passthrough: auto`: the stream encoded again for viewers that cannot decode the
    /// source as it is (`viewerTranscode(for:to:)`), per codec, once one has been asked for.
    package let viewerTranscodeState = Mutex<[Codec: SharedBranch]>([:])

    /// Holds the paced sources' buffers until it is released (a playback for one viewer).
    package let sourceHold: SourceHold?

    package init(
        spec: PipelineSpec, pipeline: Pipeline, counters: RunCounters, sendEndsInTee: Bool = false,
        stageTimer: StageTimer? = nil, audioStageTimer: StageTimer? = nil, sourceHold: SourceHold? = nil
    ) {
        self.spec = spec; self.pipeline = pipeline; self.counters = counters; self.sendEndsInTee = sendEndsInTee
        self.stageTimer = stageTimer; self.audioStageTimer = audioStageTimer; self.sourceHold = sourceHold
    }

    /// The stage timer of `media`'s path, when measuring.
    package func stageTimer(for media: MediaKind) -> StageTimer? { media == .video ? stageTimer : audioStageTimer }

    /// The `tee` each send branch ends in (with `sendEndsInTee`), by medium.
    package var tees: [MediaKind: Element] { state.withLock { $0.tees } }

    /// The passthrough video branch's last group of pictures, if the video passes through.
    package var gopCache: GOPCache? { state.withLock { $0.gopCache } }
    /// Peers' keyframe requests a passthrough video stream could not answer (nil without one).
    package var unansweredKeyframeRequests: Int? { state.withLock { $0.passthroughKeyframeRequests }?.count }

    /// The video branch's congestion control, if it adapts.
    package var congestion: CongestionControl? { state.withLock { $0.congestion } }
    /// Keyframe requests that reached the video encoder, and those folded into later ones.
    package var keyframeRequestCounts: (passed: Int, coalesced: Int)? { state.withLock { $0.keyframeRequests }?.counts }

    /// Readies the send branches' video start gates as the connection comes up (`StartGate.ready`)
    /// and asks their encoders for the keyframe the peer will start from: it is made while ICE
    /// and DTLS finish, and sent the moment they have.
    package func readyStartGates() {
        for (media, g) in state.withLock({ $0.startGates }) where media == .video && g.gate.ready() {
            g.pad.pushEvent(.forceKeyUnit(origin: KeyframeRequestLimiter.ownOrigin))
        }
    }

    /// Opens the send branches' start gates: the connection carries media from now on.
    package func openStartGates() {
        for (_, g) in state.withLock({ $0.startGates }) where g.gate.open(at: g.pad) == .needsKeyframe {
            // Upstream, to the encoder: a keyframe now, rather than at the next scheduled one.
            g.pad.pushEvent(.forceKeyUnit(origin: KeyframeRequestLimiter.ownOrigin))
        }
        // Simulcast layers are not held back: each makes a keyframe the peer starts from.
        state.withLock { $0.simulcastRoute }?.install()
        for layer in state.withLock({ $0.simulcastLayers }) {
            layer.entrance.pushEvent(.forceKeyUnit(origin: KeyframeRequestLimiter.ownOrigin))
        }
    }

    /// Buffers the start gates dropped while the connection came up, by medium.
    package var startupDropped: [MediaKind: Int] { state.withLock { $0.startGates.mapValues(\.gate.droppedBuffers) } }
    /// The webrtcbin input pad each send branch feeds, by medium.
    package var webrtcInputs: [MediaKind: Pad] { state.withLock { $0.webrtcInputs } }

    /// Pads where EOS is injected on stop (RTP does not carry end-of-stream).
    package var receiveEntrances: [Pad] { state.withLock { $0.receiveEntrances } }
    /// Sink pads of the receive branches' final elements (EOS there means flushed to disk).
    package var receiveSinkPads: [Pad] { state.withLock { $0.sinkPads } }
    /// The first error a streaming-thread build hit, if any.
    package var asyncError: RunError? { state.withLock { $0.error } }
    /// Statistics of the Swift filter elements made so far, in creation order.
    package var swiftFilterStatistics: [FilterStatistics] {
        state.withLock { $0.swiftFilters }.compactMap(FilterStatisticsDirectory.statistics(of:))
    }

    /// The media whose receive branches are built.
    package var builtReceiveMedia: Set<MediaKind> { state.withLock { $0.builtMedia } }

    // MARK: Elements

    /// Creates an element, telling the user which package to install if it is missing.
    public func make(
        _ factory: String, _ properties: [(String, String)] = [], at location: SourceLocation? = nil,
        name: String? = nil
    ) throws(RunError) -> Element {
        try Self.element(factory, properties, at: location, name: name)
    }

    /// `make` for elements made outside a pipeline file's graph (a relay's recording).
    package static func element(
        _ factory: String, _ properties: [(String, String)] = [], at location: SourceLocation? = nil,
        name: String? = nil
    ) throws(RunError) -> Element {
        let element: Element
        do { element = try Element.make(factory, name: name) } catch {
            throw RunError(KnownElements.missingHint(for: factory), at: location)
        }
        for (k, v) in properties {
            guard element.hasProperty(k) else { continue } // older/newer element versions
            do { try element.set(k, fromString: v) } catch {
                throw RunError(error.message, at: location)
            }
        }
        return element
    }

    /// Creates an element and sets `properties` (each a property use of the file, reported at its own location when it does not apply).
    public func make(_ factory: String, configuredBy properties: [Property], at location: SourceLocation?) throws(RunError) -> Element {
        let element = try make(factory, [(String, String)](), at: location)
        for p in properties {
            do { try element.set(p.name, fromString: p.value) } catch {
                throw RunError(error.message, at: p.location ?? location)
            }
        }
        return element
    }

    /// The elements of a `gst:` fragment. Swift filters named in it (`sluice-pixelate`) are
    /// counted for the summary like those of `filter:` entries.
    package func parse(_ fragment: String, at location: SourceLocation?) throws(RunError) -> Element {
        let element: Element
        do { element = try Bin.parse(GstLaunchFragment.normalized(fragment)) } catch {
            throw RunError("cannot build gst fragment '\(fragment)': \(error.message)", at: location)
        }
        let swift = (element.cast(to: Bin.self)?.descendants ?? [element]).filter { e in
            guard let factory = e.factoryName, factory.hasPrefix("sluice-") else { return false }
            return FilterRegistry.shared.filterMedia(String(factory.dropFirst("sluice-".count))) != nil
        }
        if !swift.isEmpty { state.withLock { $0.swiftFilters += swift } }
        return element
    }

    /// Adds `elements` to the run's pipeline.
    public func add(_ elements: [Element]) throws(RunError) {
        do { try pipeline.add(elements) } catch { throw RunError(error.message) }
    }

    /// Links a → b, inserting a converter only when their formats do not match directly.
    /// Returns the converter it inserted, if any.
    @discardableResult
    public func link(_ a: Element, _ b: Element, media: MediaKind, at location: SourceLocation?) throws(RunError) -> Element? {
        do { try a.link(b); return nil } catch {}
        let converter = try make(media == .video ? "videoconvert" : "audioconvert", at: location)
        try add([converter])
        do {
            try a.link(converter)
            try converter.link(b)
        } catch {
            throw RunError("\(error.message) (even through \(media == .video ? "videoconvert" : "audioconvert"))", at: location)
        }
        return converter
    }

    /// Links a chain from its end backwards, so each link is checked against what the rest
    /// of the chain really accepts (a queue's caps stand for its downstream's once linked).
    /// Returns the converters it inserted.
    @discardableResult
    package func linkChain(_ chain: [Element], media: MediaKind, at location: SourceLocation?) throws(RunError) -> [Element] {
        guard chain.count > 1 else { return [] }
        var converters: [Element] = []
        for i in (0..<(chain.count - 1)).reversed() {
            if let c = try link(chain[i], chain[i + 1], media: media, at: location) { converters.append(c) }
        }
        return converters
    }

    /// Links head → filters → tail and records that span as the branch's filter section,
    /// which `replaceFilters` can swap while the pipeline runs.
    package func linkSection(
        _ key: BranchKey, head: Element, filters: [Element], specs: [FilterSpec], tail: Element,
        at location: SourceLocation?
    ) throws(RunError) {
        let converters = try linkChain([head] + filters + [tail], media: key.media, at: location)
        state.withLock { $0.sections[key] = FilterSection(head: head, tail: tail, elements: filters + converters, specs: specs) }
    }

    package func filterElements(_ filters: [FilterSpec], encoded direction: EncodedDirection? = nil) throws(RunError) -> [Element] {
        var out: [Element] = []
        for f in filters {
            switch f.kind {
            case .element(let factory, let properties): out.append(try make(factory, configuredBy: properties, at: f.location))
            case .gst(let fragment): out.append(try parse(fragment, at: f.location))
            case .swift(let name, let settings, let onError):
                let element = try swiftFilter(name, settings: settings, onError: onError, at: f.location)
                if let direction {
                    do { try element.set("direction", direction.rawValue) } catch {
                        throw RunError("'\(name)' is not an encoded-frame filter: \(error.message)", at: f.location)
                    }
                }
                out.append(element)
            }
        }
        return out
    }

    /// A `sluice-NAME` element configured from the file's settings.
    package func swiftFilter(
        _ name: String, settings: [FilterSetting], onError: FilterErrorPolicy,
        at location: SourceLocation?
    ) throws(RunError) -> Element {
        guard FilterRegistry.shared.filterMedia(name) != nil || FilterRegistry.shared.encodedFilter(named: name) != nil else {
            throw RunError("no Swift filter named '\(name)' is registered in this program", at: location)
        }
        let element = try make("sluice-" + name, [(String, String)](), at: location)
        state.withLock { $0.swiftFilters.append(element) }
        do {
            for s in settings { try element.set(s.name, value: s.value.gValue) }
            try element.set("on-error", onError.rawValue)
        } catch {
            throw RunError("cannot configure filter '\(name)': \(error.message)", at: location)
        }
        return element
    }

}

/// A file being recorded: its sink and the muxer pads reserved per medium.
package struct Recording {
    package var fileSink: Element
    package var reserved: [MediaKind: Pad]
}

extension Element {
    package func link(fileSinkOrThrow other: Element) throws(RunError) {
        do { try link(other) } catch { throw RunError(error.message) }
    }
}

/// A branch: side and medium.
package struct BranchKey: Hashable, Sendable {
    package var side: BranchSide
    package var media: MediaKind
}

/// The filters of a branch and the fixed elements around them.
/// One branch's encoded filters as built: what they were made from, and their elements in order.
package struct EncodedFilterList: Sendable {
    package var specs: [FilterSpec]
    package var elements: [Element]
}

/// A send branch's encoded filters as they run: after `head` (the encoder, or the element
/// before the codec's parser), feeding whatever `head` fed before them.
package struct EncodedSendSection: Sendable {
    /// The element whose src pad feeds the first filter (or, without filters, the next element).
    package var head: Element
    /// The filters, in order.
    package var elements: [Element]
    /// What the filters were made from.
    package var specs: [FilterSpec]
    /// True when the branch's payloader parses what it is given (VP8 or VP9 that started
    /// without encoded filters goes out through `rtpvp8pay` or `rtpvp9pay`, not Sluice's
    /// opaque payloader): no filters can be added while running.
    package var payloaderParses: Bool
    /// The branch's codec and payloader factory, for the message refusing such a change.
    package var codec: Codec
    package var payloader: String
}

package struct FilterSection: Sendable {
    /// The element whose src pad feeds the first filter.
    package var head: Element
    /// The element whose sink pad takes the last filter's output.
    package var tail: Element
    /// The filters and any converters inserted between them: the first `specs.count` are
    /// the filters, in order.
    package var elements: [Element]
    /// What the filters were made from.
    package var specs: [FilterSpec]
}
