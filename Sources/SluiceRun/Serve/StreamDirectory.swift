import Foundation
import Synchronization

/// The pipelines a `sluice serve` hosts, by name: those it started with (`--pipeline`) and
/// those created and stopped through the control API while it runs.
///
/// A pipeline that is stopping stays listed (state `stopping`) until its viewers are gone
/// and its pipeline is down, so its name cannot be reused before then.
public final class StreamDirectory: Sendable {
    /// Whether a hosted pipeline is serving (`playing`) or being stopped (`stopping`).
    public enum State: String, Sendable { case playing, stopping }

    /// One hosted pipeline.
    public struct Entry: Sendable {
        /// The served stream.
        public let hub: StreamHub
        /// The file it came from, or `request body`.
        public let source: String
        /// Whether it plays or is stopping.
        public var state: State
    }

    private let entries = Mutex<[String: Entry]>([:])
    /// How each new stream's webrtcbins are made (STUN/TURN, DTLS certificate).
    private let recipe: WebRTCRecipe
    /// ICE addresses for a pipeline whose file names none.
    private let defaultAddresses: [String]
    /// Most pipelines one server hosts (each costs an encoder).
    public let limit: Int
    /// How each stream watches its viewers.
    private let viewerLimits: ViewerLimits

    /// An empty directory: new streams' webrtcbins follow `recipe`, gather ICE on `defaultAddresses`
    /// when their file names none, watch viewers within `viewerLimits`; at most `limit` pipelines.
    public init(
        recipe: WebRTCRecipe = WebRTCRecipe(), defaultAddresses: [String] = ["127.0.0.1"], limit: Int = 64,
        viewerLimits: ViewerLimits = ViewerLimits()
    ) {
        self.recipe = recipe; self.defaultAddresses = defaultAddresses; self.limit = limit; self.viewerLimits = viewerLimits
        DTLSWarmUp.begin() // the first viewer does not wait for GStreamer's one-time DTLS key
    }

    /// The playing stream named `name` (not one that is stopping).
    public subscript(name: String) -> StreamHub? {
        entries.withLock { e in e[name].flatMap { $0.state == .playing ? $0.hub : nil } }
    }

    /// Every hosted pipeline, stopping ones included, by name.
    public var all: [Entry] { entries.withLock { Array($0.values) }.sorted { $0.hub.name < $1.hub.name } }
    /// The playing streams, by name.
    public var values: [StreamHub] { all.filter { $0.state == .playing }.map(\.hub) }
    /// The hosted pipeline named `name`, playing or stopping; nil if there is none.
    public func entry(_ name: String) -> Entry? { entries.withLock { $0[name] } }

    /// Why a pipeline could not be added.
    public struct AddError: Error, Sendable, CustomStringConvertible {
        /// Why: the name is taken (`exists`), the directory is at its limit (`full`), or the pipeline could not be built (`invalid`).
        public enum Kind: Sendable { case exists, full, invalid }
        /// Which kind of refusal this is.
        public let kind: Kind
        /// What went wrong, in words a control API client can show.
        public let message: String
        /// The message.
        public var description: String { message }
    }

    /// Builds and starts `spec` as a served stream and lists it. The stream's control stop
    /// request stops it and removes it from the directory.
    @discardableResult
    public func start(_ spec: PipelineSpec, source: String) throws(AddError) -> StreamHub {
        // Refuse a taken name before building; `adopt` settles two creates of one name that
        // race past this check (the second's pipeline is stopped).
        let claimed = entries.withLock { e -> AddError? in
            if e[spec.name] != nil { return AddError(kind: .exists, message: "a pipeline named '\(spec.name)' exists; stop it first or choose another name") }
            if e.count >= limit { return AddError(kind: .full, message: "this server hosts \(limit) pipelines already; stop one first") }
            return nil
        }
        if let claimed { throw claimed }
        let hub: StreamHub
        do { hub = try unlistedHub(spec) } catch {
            throw AddError(kind: .invalid, message: error.description)
        }
        do { try adopt(hub, source: source) } catch {
            Task { await hub.stop() }
            throw error
        }
        return hub
    }

    /// Builds and starts `spec` with the recipe, addresses and viewer limits of this
    /// directory's streams, without listing it (`start` lists it). A viewer's own playback of
    /// a recording is `holdingUntilAViewer`: its sources wait for that viewer's connection,
    /// so the viewer sees them from the first frame.
    public func unlistedHub(_ spec: PipelineSpec, holdingUntilAViewer: Bool = false) throws(RunError) -> StreamHub {
        var hubRecipe = recipe
        hubRecipe.addresses = spec.transport.ice.addresses.isEmpty ? defaultAddresses : spec.transport.ice.addresses
        hubRecipe.latencyMs = spec.transport.latencyMs
        if let own = spec.transport.dtlsCertificate { hubRecipe.certificate = own }
        return try StreamHub(spec: spec, recipe: hubRecipe, viewerLimits: viewerLimits, holdingUntilAViewer: holdingUntilAViewer)
    }

    /// Lists a stream built elsewhere (`SluiceHTTPServer(streams:)`).
    public func adopt(_ hub: StreamHub, source: String) throws(AddError) {
        let added = entries.withLock { e -> Bool in
            guard e[hub.name] == nil else { return false }
            e[hub.name] = Entry(hub: hub, source: source, state: .playing)
            return true
        }
        guard added else {
            throw AddError(kind: .exists, message: "a pipeline named '\(hub.name)' exists; stop it first or choose another name")
        }
        let name = hub.name
        hub.onStopRequest { [weak self] in
            guard let self else { return }
            Task { await self.stop(name) }
        }
    }

    /// Marks `name` as stopping and stops it in the background; the entry as it is then
    /// (state `stopping`), or nil if unknown.
    public func beginStop(_ name: String, drainTimeout: Double = 2) -> Entry? {
        if let hub = markStopping(name) {
            Task { await self.finishStop(name, hub, drainTimeout: drainTimeout) }
        }
        return entry(name)
    }

    /// Stops stream `name` gracefully (end-of-stream, viewers drained for at most
    /// `drainTimeout` seconds, then its sessions end) and returns once it has left the
    /// directory: its entry as the stop began. nil when there is no such stream, or another
    /// stop of it is under way.
    @discardableResult
    public func stop(_ name: String, drainTimeout: Double = 2) async -> Entry? {
        guard let hub = markStopping(name), let stopping = entry(name) else { return nil }
        await finishStop(name, hub, drainTimeout: drainTimeout)
        return stopping
    }

    private func markStopping(_ name: String) -> StreamHub? {
        entries.withLock { e -> StreamHub? in
            guard let entry = e[name], entry.state == .playing else { return nil }
            e[name]?.state = .stopping
            return entry.hub
        }
    }

    private func finishStop(_ name: String, _ hub: StreamHub, drainTimeout: Double) async {
        await hub.stop(drainTimeout: drainTimeout)
        entries.withLock { e in if e[name]?.hub === hub { e[name] = nil } }
    }
}

extension StreamDirectory: MetricsSource {
    /// Reports every hosted stream's metrics, stopping ones included.
    public func collect(into sink: MetricsSink) {
        for entry in all { entry.hub.collect(into: sink) }
    }
}
