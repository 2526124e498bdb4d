import Foundation
import Sluice

/// One pipeline as the control API sees it.
public struct ControlledPipeline: Sendable {
    /// The pipeline's name (`name:` in its file, or the `?name=` it was created with), unique on
    /// the host.
    public var name: String
    /// `playing`, `stopping`, `stopped` or `failed`.
    public var state: String
    /// The file it came from, or `request body`.
    public var source: String
    /// WHEP viewers, for a served pipeline.
    public var viewers: Int?
    /// Video frames encoded so far.
    public var encodedVideoFrames: Int?
    /// Its control handle (nil once it no longer runs).
    public var control: PipelineControl?
    /// Its event log.
    public var events: PipelineEvents?
}

/// A control API refusal, with the status it maps to.
public struct ControlAPIProblem: Error, Sendable {
    /// The HTTP status a refusal becomes: `400 Bad Request`, `404 Not Found`, `409 Conflict`,
    /// `422 Unprocessable Content` or `403 Forbidden`.
    public enum Status: Sendable { case badRequest, notFound, conflict, unprocessable, forbidden }
    /// The HTTP status the refusal is answered with.
    public var status: Status
    /// What went wrong, for the user: the problem+json `detail`.
    public var detail: String
    /// Diagnostics, one a line (a pipeline file's errors): the problem+json `errors`, left out
    /// when empty.
    public var errors: [String] = []
    /// A refusal with `status`, `detail` and, optionally, diagnostics.
    public init(_ status: Status, _ detail: String, errors: [String] = []) {
        self.status = status; self.detail = detail; self.errors = errors
    }
}

/// What the control API works on: a server's pipelines (`ServedPipelines`) or the one
/// pipeline of a `sluice run --control` (`SingleRunPipeline`). A new kind of host is one
/// new conforming type.
public protocol ControlledPipelines: Sendable {
    /// Every pipeline the host has (`GET /api/v1/pipelines`).
    func list() -> [ControlledPipeline]
    /// The pipeline called `name` (`GET /api/v1/pipelines/{name}`), or nil if there is none.
    func pipeline(named name: String) -> ControlledPipeline?
    /// Validates, builds and starts a pipeline from a file's text (`file` names it in
    /// diagnostics) or from a path the host may read.
    func create(yaml: String, file: String, name: String?) async throws(ControlAPIProblem) -> ControlledPipeline
    /// Creates a pipeline from a file in the host's pipelines folder (`POST /api/v1/pipelines`
    /// with `{"path": …}`); `name` replaces the file's own name.
    func create(path: String, name: String?) async throws(ControlAPIProblem) -> ControlledPipeline
    /// Stops a pipeline gracefully: `.stopped` once it is gone, `.stopping` while it goes on
    /// in the background; nil if unknown.
    func stop(_ name: String) async -> PipelineStop?
}

/// How a `DELETE` of a pipeline ended.
public enum PipelineStop: Sendable {
    /// It stopped and is gone (its state `stopped`): answered 200.
    case stopped(ControlledPipeline)
    /// Its stop goes on after the answer (another stop was under way, or the process ends
    /// with it): answered 202.
    case stopping(ControlledPipeline)
}

/// The pipelines `sluice serve` hosts: WHEP streams, created from files in an allowed folder
/// or from posted text.
public struct ServedPipelines: ControlledPipelines {
    /// The streams `sluice serve` hosts; created pipelines are started in it.
    public let directory: StreamDirectory
    /// The folder `create(path:)` may read files from (`--pipelines-dir`); nil: none.
    public let folder: String?

    /// Pipelines of `directory`; `folder` is `--pipelines-dir` (nil: none, `create(path:)` is
    /// refused).
    public init(directory: StreamDirectory, folder: String?) {
        self.directory = directory; self.folder = folder
    }

    /// Every stream of the directory, with its state, viewers and frame count.
    public func list() -> [ControlledPipeline] { directory.all.map(Self.describe) }

    /// The stream called `name`, or nil if the directory has none.
    public func pipeline(named name: String) -> ControlledPipeline? { directory.entry(name).map(Self.describe) }

    static func describe(_ e: StreamDirectory.Entry) -> ControlledPipeline {
        ControlledPipeline(
            name: e.hub.name, state: e.state.rawValue, source: e.source, viewers: e.hub.viewerCount,
            encodedVideoFrames: e.hub.encodedVideoFrames,
            control: e.state == .playing ? e.hub.control : nil, events: e.hub.events)
    }

    /// Starts a pipeline from posted YAML (`POST /api/v1/pipelines` with `application/yaml`),
    /// without `${VAR}` substitution: posted text cannot read the server's environment.
    /// Throws `unprocessable` (422) if the file is not valid or has no `send` section, `conflict`
    /// (409) if the name is taken or the server is full.
    public func create(yaml: String, file: String, name: String?) async throws(ControlAPIProblem) -> ControlledPipeline {
        // Posted text must not read the server's environment: no `${VAR}` substitution.
        try start(.runtime(environment: [:]), yaml: yaml, file: file, source: file, name: name)
    }

    /// Starts a pipeline from `path`, relative to `folder`. Throws `forbidden` (403) without a
    /// folder or for a path that leaves it, `notFound` (404) for no such file, `unprocessable`
    /// (422) for a file that is not UTF-8 or not a valid pipeline, and `conflict` (409) if the
    /// name is taken or the server is full.
    public func create(path: String, name: String?) async throws(ControlAPIProblem) -> ControlledPipeline {
        guard let folder else {
            throw ControlAPIProblem(
                .forbidden, "this server reads no pipeline files at run time; start it with --pipelines-dir DIR, or post the file's text as application/yaml")
        }
        let resolved: String
        switch PipelineFolder.resolve(path, in: folder) {
        case .success(let p): resolved = p
        case .failure(let why): throw why
        }
        guard let text = try? String(contentsOfFile: resolved, encoding: .utf8) else {
            throw ControlAPIProblem(.unprocessable, "cannot read \(path) as UTF-8 text")
        }
        return try start(.runtime(), yaml: text, file: resolved, source: path, name: name)
    }

    private func start(
        _ loader: PipelineLoader, yaml: String, file: String, source: String,
        name: String?
    ) throws(ControlAPIProblem) -> ControlledPipeline {
        var spec: PipelineSpec
        do { spec = try loader.load(yaml: yaml, file: file) } catch {
            throw ControlAPIProblem(.unprocessable, "the pipeline file is not valid", errors: error.diagnostics.map(\.description))
        }
        if let name {
            guard PipelineName.isValid(name) else { throw ControlAPIProblem(.badRequest, "name '\(name.prefix(80))' \(PipelineName.rule)") }
            spec.name = name
        }
        guard PipelineName.isValid(spec.name) else {
            throw ControlAPIProblem(.unprocessable, "the pipeline's name '\(spec.name.prefix(80))' \(PipelineName.rule); rename it or give ?name=")
        }
        guard spec.send?.video != nil || spec.send?.audio != nil else {
            throw ControlAPIProblem(.unprocessable, "pipeline '\(spec.name)' has no send section; only pipelines served to viewers can be created at run time")
        }
        do {
            let hub = try directory.start(spec, source: source)
            return ControlledPipeline(
                name: hub.name, state: "playing", source: source, viewers: 0,
                encodedVideoFrames: hub.encodedVideoFrames, control: hub.control, events: hub.events)
        } catch {
            switch error.kind {
            case .exists, .full: throw ControlAPIProblem(.conflict, error.message)
            case .invalid: throw ControlAPIProblem(.unprocessable, error.message)
            }
        }
    }

    /// Stops stream `name` gracefully (`DELETE /api/v1/pipelines/{name}`) and returns once it is
    /// gone; `.stopping` when another stop of it is under way; nil if there is none.
    public func stop(_ name: String) async -> PipelineStop? {
        if let entry = await directory.stop(name) {
            var p = Self.describe(entry)
            p.state = "stopped"
            return .stopped(p)
        }
        return directory.entry(name).map { .stopping(Self.describe($0)) }
    }
}

/// The one pipeline of `sluice run --control`: it can be looked at, changed and stopped, not
/// replaced.
public struct SingleRunPipeline: ControlledPipelines {
    /// The running pipeline.
    public let run: PipelineRun
    /// The run's stop flag, shared with the run: `stop(_:)` sets it and the run then stops.
    public let stopFlag: StopFlag

    /// The control API view of `run`; `stop` is the flag that ends it.
    public init(run: PipelineRun, stop: StopFlag) { self.run = run; self.stopFlag = stop }

    private var current: ControlledPipeline {
        let control = run.control
        let state = control != nil ? (stopFlag.isSet ? "stopping" : "playing") : (stopFlag.isSet ? "stopped" : "playing")
        return ControlledPipeline(
            name: run.spec.name, state: state, source: run.spec.file, viewers: nil,
            encodedVideoFrames: run.counters?.sendVideoFrames.load(ordering: .relaxed),
            control: control, events: run.events)
    }

    /// The run's one pipeline.
    public func list() -> [ControlledPipeline] { [current] }
    /// The run's pipeline if `name` is its name, nil otherwise.
    public func pipeline(named name: String) -> ControlledPipeline? { name == run.spec.name ? current : nil }

    /// Always throws `conflict` (409): `sluice run` cannot create pipelines.
    public func create(yaml: String, file: String, name: String?) async throws(ControlAPIProblem) -> ControlledPipeline {
        throw ControlAPIProblem(.conflict, "sluice run controls the one pipeline it was started with; run sluice serve to create pipelines at run time")
    }
    /// Always throws `conflict` (409), as `create(yaml:file:name:)`.
    public func create(path: String, name: String?) async throws(ControlAPIProblem) -> ControlledPipeline {
        try await create(yaml: "", file: path, name: name)
    }

    /// Sets the stop flag if `name` is the run's pipeline and returns it as `stopping` (the
    /// process ends with it); nil for any other name.
    public func stop(_ name: String) async -> PipelineStop? {
        guard name == run.spec.name else { return nil }
        stopFlag.set()
        var p = current
        p.state = "stopping"
        return .stopping(p)
    }
}

/// Paths inside the allowed folder only: no absolute paths, no `..`, no symbolic link that
/// leads outside.
enum PipelineFolder {
    static func resolve(_ path: String, in folder: String) -> Result<String, ControlAPIProblem> {
        guard !path.isEmpty, !path.hasPrefix("/"), !path.split(separator: "/").contains("..") else {
            return .failure(ControlAPIProblem(.forbidden, "path must be relative to the pipelines folder, without '..'"))
        }
        let base = URL(fileURLWithPath: folder).resolvingSymlinksInPath().path
        let full = URL(fileURLWithPath: base).appendingPathComponent(path).resolvingSymlinksInPath().path
        guard full.hasPrefix(base + "/") else {
            return .failure(ControlAPIProblem(.forbidden, "\(path) leads outside the pipelines folder"))
        }
        guard FileManager.default.fileExists(atPath: full) else {
            return .failure(ControlAPIProblem(.notFound, "no file \(path) in the pipelines folder"))
        }
        return .success(full)
    }
}

/// The names the control API gives pipelines, as `/whep/<name>` and its own paths carry them
/// (the document's `Name`): a letter or digit, then up to 63 letters, digits, `.`, `_`, `-`.
enum PipelineName {
    static let rule = "is not a pipeline name: a letter or digit, then up to 63 letters, digits, '.', '_' or '-'"

    static func isValid(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 64, isAlphanumeric(first) else { return false }
        return bytes.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
    }

    private static func isAlphanumeric(_ b: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b)
    }
}
