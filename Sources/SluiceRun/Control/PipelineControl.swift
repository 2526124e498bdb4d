import Foundation
import GStreamer

/// What can be changed on a running pipeline, and how it looks now: the operations of the
/// control API, for a `sluice run` (`PipelineRun.control`) and for each pipeline a
/// `sluice serve` hosts (`StreamHub.control`).
///
/// Every operation is safe to call from any thread while the pipeline runs; each either
/// takes effect or throws a `ControlError` that says why not, and never stops the media.
public final class PipelineControl: Sendable {
    /// The pipeline's name (`name:` in its file, else the file's base name).
    public var name: String { spec.name }
    /// The pipeline file as loaded when the run started.
    public let spec: PipelineSpec
    /// The pipeline's event log (statistics, filter events, sessions, errors).
    public let events: PipelineEvents
    package let builder: GraphBuilder
    package let channels: DataChannelHub?
    private let stopAction: @Sendable () -> Void

    package init(
        spec: PipelineSpec, builder: GraphBuilder, channels: DataChannelHub?, events: PipelineEvents,
        stop: @escaping @Sendable () -> Void
    ) {
        self.spec = spec; self.builder = builder; self.channels = channels; self.events = events; self.stopAction = stop
    }

    // MARK: Looking

    /// One filter of a branch as it runs now.
    public struct FilterState: Sendable, Equatable {
        /// The filter's position in the branch's `filters:` list, from 0.
        public var index: Int
        /// `filter` (Swift), `element` or `gst`.
        public var kind: String
        /// The Swift filter's or the element factory's name, or the fragment's text.
        public var name: String
        /// The GStreamer element's name (as in the graph picture).
        public var element: String
        /// Current values of the settable parameters, as strings.
        public var parameters: [String: String]
    }

    /// One branch: its filters and, on the send side, its encoder and track.
    public struct BranchState: Sendable, Equatable {
        /// Whether the branch sends or receives.
        public var side: BranchSide
        /// Whether the branch carries video or audio.
        public var media: MediaKind
        /// The branch's filters as they run now, in order.
        public var filters: [FilterState]
        /// Send side: the codec the encoder produces (`vp8`, …); nil on the receive side.
        public var codec: String?
        /// Send side: the factory name of the encode stage's first element (e.g. `vp8enc`); nil on the receive side.
        public var encoder: String?
        /// Send side: the encoder's target bitrate in bit/s; nil on the receive side or when the encoder's bitrate is not known.
        public var bitrate: Int?
        /// Send side: whether the track is enabled (a disabled one sends black frames or silence); nil on the receive side.
        public var enabled: Bool?
        /// Send audio: the track's volume (0 silence, 1 unchanged, up to 10); nil otherwise.
        public var volume: Double?
    }

    /// Every branch built so far (a receive branch appears once its media arrives).
    public var branches: [BranchState] {
        let (sections, controls) = builder.state.withLock { ($0.sections, $0.sendControls) }
        var out: [BranchState] = []
        for side in [BranchSide.send, .receive] {
            for media in [MediaKind.video, .audio] {
                guard let section = sections[BranchKey(side: side, media: media)] else { continue }
                var b = BranchState(side: side, media: media, filters: Self.filters(section))
                if side == .send, let c = controls[media] {
                    b.codec = c.codec.rawValue
                    b.encoder = c.encoderFactory
                    b.bitrate = c.bitrate
                    b.enabled = c.enabled
                    b.volume = c.volume
                }
                out.append(b)
            }
        }
        return out
    }

    private static func filters(_ section: FilterSection) -> [FilterState] {
        zip(section.specs.indices, zip(section.specs, section.elements)).map { index, pair in
            let (spec, element) = pair
            switch spec.kind {
            case .swift(let name, _, _):
                var parameters: [String: String] = [:]
                for p in element.writablePropertyNames where p != "name" && p != "parent" {
                    if let v = element.property(p)?.serialized { parameters[p] = v }
                }
                return FilterState(index: index, kind: "filter", name: name, element: element.name, parameters: parameters)
            case .element(let factory, let properties):
                var parameters: [String: String] = [:]
                for p in properties { parameters[p.name] = element.property(p.name)?.serialized ?? p.value }
                return FilterState(index: index, kind: "element", name: factory, element: element.name, parameters: parameters)
            case .gst(let text):
                return FilterState(index: index, kind: "gst", name: text, element: element.name, parameters: [:])
            }
        }
    }

    /// Data channel labels the pipeline declares, with whether each is open.
    public var dataChannels: [(label: String, open: Bool)] {
        channels?.specs.map { ($0.label, channels?.isOpen($0.label) ?? false) } ?? []
    }

    // MARK: Changing

    /// Replaces a branch's filters (the hot swap): frames keep flowing, the WebRTC session
    /// is untouched. `filters` is a `filters:` list as YAML or JSON text.
    public func replaceFilters(side: BranchSide, media: MediaKind, yaml: String, origin: String = "request body") async throws(ControlError) {
        let specs: [FilterSpec]
        do { specs = try PipelineLoader.runtime(environment: [:]).loadFilters(yaml: yaml, file: origin, media: media) } catch {
            throw ControlError(.invalid, "the filter list is not valid", diagnostics: error.diagnostics.map(\.description))
        }
        try requireBranch(side, media)
        do { try await builder.replaceFilters(side: side, media: media, with: specs) } catch {
            throw ControlError(.conflict, error.message)
        }
        events.post("filters-replaced", ["branch": .text("\(side.rawValue).\(media.rawValue)"), "filters": .number(Double(specs.count))])
    }

    /// Sets parameters of one filter (by its index in the branch); all or none are applied.
    public func setFilterParameters(
        side: BranchSide, media: MediaKind, index: Int,
        _ parameters: [String: String]
    ) throws(ControlError) {
        try requireBranch(side, media)
        guard let section = builder.state.withLock({ $0.sections[BranchKey(side: side, media: media)] }),
            index >= 0, index < section.specs.count
        else {
            throw ControlError(.notFound, "\(side.rawValue).\(media.rawValue) has no filter \(index)")
        }
        let element = section.elements[index]
        if case .gst = section.specs[index].kind {
            throw ControlError(.conflict, "filter \(index) is a gst fragment, whose elements have no parameters here; replace the branch's filters instead")
        }
        try Self.set(parameters, on: [element], describing: "filter \(index) (\(section.specs[index].displayName))")
        events.post("filter-parameters", ["branch": .text("\(side.rawValue).\(media.rawValue)"), "filter": .number(Double(index))])
    }

    /// Sets parameters of one encoded-frame filter (by its index in the branch's
    /// `encoded_filters:`; on a receive branch, in every stream's list); all or none are
    /// applied. The element makes a new instance before its next frame, handed the one it
    /// replaces (`EncodedFrameFilter.continue(from:)`): `e2ee` takes a new key or a ratchet step
    /// this way without a restart. The `filter-parameters` event names the filter, never values.
    public func setEncodedFilterParameters(
        side: BranchSide, media: MediaKind, index: Int, _ parameters: [String: String]
    ) throws(ControlError) {
        try requireBranch(side, media)
        let lists = builder.state.withLock { $0.encodedFilterLists[BranchKey(side: side, media: media)] ?? [] }
        guard let first = lists.first, index >= 0, index < first.specs.count else {
            throw ControlError(.notFound, "\(side.rawValue).\(media.rawValue) has no encoded filter \(index)")
        }
        if case .gst = first.specs[index].kind {
            throw ControlError(.conflict, "encoded filter \(index) is a gst fragment, whose elements have no parameters here")
        }
        try Self.set(parameters, on: lists.map { $0.elements[index] }, describing: "encoded filter \(index) (\(first.specs[index].displayName))")
        events.post(
            "filter-parameters", ["branch": .text("\(side.rawValue).\(media.rawValue)"), "encoded_filter": .number(Double(index))])
    }

    /// The encoded filter at `index` of a branch (its first stream's on a receive branch),
    /// with the parameters it can show (secret ones are write-only); nil if there is none.
    public func encodedFilter(side: BranchSide, media: MediaKind, index: Int) -> FilterState? {
        let lists = builder.state.withLock { $0.encodedFilterLists[BranchKey(side: side, media: media)] ?? [] }
        guard let first = lists.first, index >= 0, index < first.specs.count else { return nil }
        return Self.filters(FilterSection(head: first.elements[0], tail: first.elements[0], elements: first.elements, specs: first.specs))[index]
    }

    /// Checks every parameter against every element, then sets them: all or none.
    private static func set(_ parameters: [String: String], on elements: [Element], describing what: String) throws(ControlError) {
        for element in elements {
            for (name, value) in parameters.sorted(by: { $0.key < $1.key }) {
                if name == "name" || name == "parent" || !element.hasProperty(name) {
                    let known = element.writablePropertyNames.filter { $0 != "name" && $0 != "parent" }.sorted()
                    throw ControlError(.invalid, "\(what) has no parameter '\(name)'; it has: \(known.joined(separator: ", "))")
                }
                if let problem = element.problem(setting: name, fromString: value) {
                    throw ControlError(.invalid, problem)
                }
            }
        }
        for element in elements {
            for (name, value) in parameters { try? element.set(name, fromString: value) }
        }
    }

    /// Sets a send branch encoder's target bitrate in bit/s, effective from the next frames.
    /// The control API takes kbit/s (`bitrate_kbps`, as in pipeline files) and converts; the
    /// `bitrate` event says kbit/s too.
    public func setBitrate(media: MediaKind, bitsPerSecond: Int) throws(ControlError) {
        guard bitsPerSecond >= 1000, bitsPerSecond <= 100_000_000 else {
            throw ControlError(.invalid, "bitrate must be between 1000 and 100000000 bit/s, not \(bitsPerSecond)")
        }
        try sendControl(media).setBitrate(bitsPerSecond)
        events.post("bitrate", ["media": .text(media.rawValue), "bitrate_kbps": .number((Double(bitsPerSecond) / 1000).rounded())])
    }

    /// Asks the video encoder for a keyframe now and waits (up to `timeout` seconds) for it
    /// to come out. Returns which encoded frame after the request it was (1: the next one),
    /// or nil if none came in time (a paused source, for instance).
    @discardableResult
    public func requestKeyframe(timeout: Double = 2) async throws(ControlError) -> Int? {
        let control = try sendControl(.video)
        let counters = builder.counters
        counters.framesUntilKeyframe.store(-1, ordering: .relaxed)
        counters.keyframeRequestedAt.store(counters.sendVideoFrames.load(ordering: .relaxed), ordering: .relaxed)
        try control.requestKeyframe()
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while ContinuousClock.now < deadline {
            let n = counters.framesUntilKeyframe.load(ordering: .relaxed)
            if n > 0 {
                events.post("keyframe", ["frames_until_keyframe": .number(Double(n))])
                return n
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
        counters.keyframeRequestedAt.store(-1, ordering: .relaxed)
        events.post("keyframe", ["frames_until_keyframe": .number(-1)])
        return nil
    }

    /// Enables or disables a send track (a disabled video track sends black frames, a
    /// disabled audio track silence) and sets an audio track's volume.
    public func setTrack(media: MediaKind, enabled: Bool?, volume: Double?) throws(ControlError) {
        let control = try sendControl(media)
        if let volume { try control.setVolume(volume) }
        if let enabled { control.setEnabled(enabled) }
        var fields: [String: PipelineEvent.Value] = ["media": .text(media.rawValue), "enabled": .flag(control.enabled)]
        if let v = control.volume { fields["volume"] = .number(v) }
        events.post("track", fields)
    }

    /// Sends a text message on data channel `label`.
    public func send(_ text: String, onChannel label: String) throws(ControlError) {
        guard let channels, channels.specs.contains(where: { $0.label == label }) else {
            let labels = channels?.specs.map(\.label) ?? []
            throw ControlError(
                .notFound,
                labels.isEmpty
                    ? "this pipeline has no data channels (declare them in transport.data_channels)"
                    : "no data channel '\(label)'; this pipeline has: \(labels.joined(separator: ", "))")
        }
        guard channels.isOpen(label) else {
            throw ControlError(.conflict, "data channel '\(label)' is not open (yet); try again once the peer has connected")
        }
        channels.send(text, on: label)
    }

    /// Stops the pipeline gracefully: end-of-stream first (recordings are finalized), then
    /// its sessions end. Returns at once; the pipeline's `state` follows.
    public func stop() { stopAction() }

    // MARK: Helpers

    private func requireBranch(_ side: BranchSide, _ media: MediaKind) throws(ControlError) {
        let declared =
            side == .send
            ? (media == .video ? spec.send?.video != nil : spec.send?.audio != nil)
            : (media == .video ? spec.receive?.video != nil : spec.receive?.audio != nil)
        guard declared else { throw ControlError(.notFound, "the pipeline has no \(side.rawValue).\(media.rawValue) branch") }
    }

    private func sendControl(_ media: MediaKind) throws(ControlError) -> SendControl {
        guard let c = builder.state.withLock({ $0.sendControls[media] }) else {
            throw ControlError(.notFound, "the pipeline has no send.\(media.rawValue) branch")
        }
        return c
    }
}

extension FilterSpec {
    /// How the filter is named in messages: the Swift filter, the factory or the fragment.
    package var displayName: String {
        switch kind {
        case .swift(let name, _, _): name
        case .element(let factory, _): factory
        case .gst(let text): text
        }
    }
}
