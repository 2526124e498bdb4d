/// What changed between two versions of a pipeline file, for `sluice run --watch`: the
/// branches whose filters changed (applied live) and whether anything else changed
/// (which needs a restart). Positions are ignored, since editing a file moves lines.
public struct SpecDiff: Sendable, Equatable {
    /// Branches whose filter lists differ, with their new filters.
    public var filterChanges: [(side: BranchSide, media: MediaKind, filters: [FilterSpec])]
    /// Branches whose encoded filters changed only in their settings (the same filters in the
    /// same order), with their new list: set on the running filters. A sender's other list is
    /// in `encodedListChanges`; a receiver's needs a restart.
    public var encodedSettingsChanges: [EncodedSettingsChange] = []
    /// Send branches whose encoded filters became another list: swapped in while running
    /// (a receive branch's other list needs a restart).
    public var encodedListChanges: [EncodedSettingsChange] = []
    /// Top-level parts other than filters that differ (`transport`, `send.video`, …).
    public var needsRestart: [String]

    /// A branch whose encoded filters take new settings.
    public struct EncodedSettingsChange: Sendable, Equatable {
        /// The branch's side.
        public var side: BranchSide
        /// The branch's medium.
        public var media: MediaKind
        /// Its `encoded_filters:` as the file now has them.
        public var filters: [FilterSpec]
    }

    /// Whether the two files mean the same pipeline (nothing to apply, nothing to restart).
    public var isEmpty: Bool { filterChanges.isEmpty && encodedSettingsChanges.isEmpty && encodedListChanges.isEmpty && needsRestart.isEmpty }

    /// Equal when both list the same restart parts and the same filter changes, in the same order.
    public static func == (a: SpecDiff, b: SpecDiff) -> Bool {
        a.needsRestart == b.needsRestart && a.encodedSettingsChanges == b.encodedSettingsChanges && a.encodedListChanges == b.encodedListChanges
            && a.filterChanges.count == b.filterChanges.count
            && zip(a.filterChanges, b.filterChanges).allSatisfy { $0.side == $1.side && $0.media == $1.media && $0.filters == $1.filters }
    }

    /// Whether two lists name the same Swift filters in the same order (settings aside).
    public static func sameSwiftFilters(_ a: [FilterSpec], _ b: [FilterSpec]) -> Bool {
        a.count == b.count && !a.isEmpty
            && zip(a, b).allSatisfy { old, new in
                guard case .swift(let x, _, _) = old.kind, case .swift(let y, _, _) = new.kind else { return false }
                return x == y
            }
    }

    /// Compares `old` with `new`, ignoring source positions.
    public init(from old: PipelineSpec, to new: PipelineSpec) {
        let a = old.positionFree, b = new.positionFree
        var changes: [(BranchSide, MediaKind, [FilterSpec])] = []
        var restart: [String] = []
        var encoded: [EncodedSettingsChange] = [], lists: [EncodedSettingsChange] = []
        if a.transport != b.transport { restart.append("transport") }
        if a.plugins != b.plugins { restart.append("plugins") }
        for media in MediaKind.allCases {
            let (os, ns) = (a.send?.branch(media), b.send?.branch(media))
            if var o = os, var n = ns {
                if o.filters != n.filters { changes.append((.send, media, new.send?.branch(media)?.filters ?? [])) }
                if o.encodedFilters != n.encodedFilters {
                    let change = EncodedSettingsChange(side: .send, media: media, filters: new.send?.branch(media)?.encodedFilters ?? [])
                    if Self.sameSwiftFilters(o.encodedFilters, n.encodedFilters) { encoded.append(change) } else { lists.append(change) }
                    o.encodedFilters = []; n.encodedFilters = []
                }
                o.filters = []; n.filters = []
                if o != n { restart.append("send.\(media.rawValue)") }
            } else if (os == nil) != (ns == nil) {
                restart.append("send.\(media.rawValue)")
            }
            let (orc, nrc) = (a.receive?.branch(media), b.receive?.branch(media))
            if var o = orc, var n = nrc {
                if o.filters != n.filters { changes.append((.receive, media, new.receive?.branch(media)?.filters ?? [])) }
                if o.encodedFilters != n.encodedFilters, Self.sameSwiftFilters(o.encodedFilters, n.encodedFilters) {
                    encoded.append(
                        EncodedSettingsChange(side: .receive, media: media, filters: new.receive?.branch(media)?.encodedFilters ?? []))
                    o.encodedFilters = []; n.encodedFilters = []
                }
                o.filters = []; n.filters = []
                if o != n { restart.append("receive.\(media.rawValue)") }
            } else if (orc == nil) != (nrc == nil) {
                restart.append("receive.\(media.rawValue)")
            }
        }
        filterChanges = changes.map { (side: $0.0, media: $0.1, filters: $0.2) }
        needsRestart = restart
        encodedSettingsChanges = encoded
        encodedListChanges = lists
    }
}

extension SendSpec {
    package func branch(_ m: MediaKind) -> SendBranchSpec? { m == .video ? video : audio }
}

extension ReceiveSpec {
    package func branch(_ m: MediaKind) -> ReceiveBranchSpec? { m == .video ? video : audio }
}

extension PipelineSpec {
    /// The same spec with every source position removed (for comparisons).
    package var positionFree: PipelineSpec {
        var s = self
        s.transport.location = nil
        s.transport.ice.location = nil
        s.plugins = plugins.map { PluginReference(path: $0.path) }
        if var send = s.send {
            send.video = send.video?.positionFree
            send.audio = send.audio?.positionFree
            s.send = send
        }
        if var receive = s.receive {
            receive.video = receive.video?.positionFree
            receive.audio = receive.audio?.positionFree
            s.receive = receive
        }
        return s
    }
}

private extension SendBranchSpec {
    var positionFree: SendBranchSpec {
        var b = self
        b.location = nil
        b.capture.location = nil
        b.capture.kind = b.capture.kind.positionFree
        b.filters = filters.map(\.positionFree)
        b.encodedFilters = encodedFilters.map(\.positionFree)
        b.encode = encode.positionFree
        b.record?.location = nil
        b.record?.kind = record?.kind.positionFree ?? .stats
        return b
    }
}

private extension ReceiveBranchSpec {
    var positionFree: ReceiveBranchSpec {
        var b = self
        b.location = nil
        b.decode.location = nil
        b.decode.properties = decode.properties.positionFree
        b.filters = filters.map(\.positionFree)
        b.encodedFilters = encodedFilters.map(\.positionFree)
        b.sink.location = nil
        b.sink.kind = sink.kind.positionFree
        return b
    }
}

extension EncodeSpec {
    package var positionFree: EncodeSpec {
        var e = self
        e.location = nil
        e.properties = properties.positionFree
        return e
    }
}

extension FilterSpec {
    /// The filter without source positions.
    package var positionFree: FilterSpec {
        switch kind {
        case .element(let factory, let properties):
            return FilterSpec(kind: .element(factory: factory, properties: properties.positionFree))
        case .gst(let text):
            return FilterSpec(kind: .gst(text))
        case .swift(let name, let settings, let onError):
            return FilterSpec(kind: .swift(name: name, settings: settings.positionFree, onError: onError))
        }
    }
}

private extension Array where Element == Property {
    var positionFree: [Property] { map { Property(name: $0.name, value: $0.value) } }
}

extension Array where Element == FilterSetting {
    /// The settings without source positions.
    package var positionFree: [FilterSetting] { map { FilterSetting(name: $0.name, value: $0.value) } }
}
