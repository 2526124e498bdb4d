import Foundation
import HTTPTypes
import OpenAPIRuntime
import Sluice
import SluiceControlAPI

/// The control API's operations (`openapi.yaml`), on whatever `ControlledPipelines` hosts.
/// Authentication happened before (`APIAuthMiddleware`); malformed requests were refused by
/// the generated code (`ProblemMiddleware` words them).
struct ControlAPIHandler: APIProtocol {
    let pipelines: any ControlledPipelines
    /// Largest request body read (a pipeline file or filter list).
    static let maxBody = 1 << 20

    typealias Schemas = Components.Schemas
    typealias Problem = Components.Responses.Problem

    // MARK: Pipelines

    func listPipelines(_ input: Operations.ListPipelines.Input) async throws -> Operations.ListPipelines.Output {
        .ok(.init(body: .json(.init(pipelines: pipelines.list().map(Self.summary)))))
    }

    func createPipeline(_ input: Operations.CreatePipeline.Input) async throws -> Operations.CreatePipeline.Output {
        var text: String?
        if case .yaml(let body) = input.body { text = try await Self.text(body) }
        do {
            let created: ControlledPipeline
            switch input.body {
            case .yaml: created = try await pipelines.create(yaml: text ?? "", file: "request body", name: input.query.name)
            case .json(let request): created = try await pipelines.create(path: request.path, name: input.query.name)
            }
            return .created(.init(body: .json(Self.detail(created))))
        } catch let p {
            switch p.status {
            case .badRequest: return .badRequest(Self.problem(.badRequest, p))
            case .notFound: return .notFound(Self.problem(.notFound, p))
            case .conflict: return .conflict(Self.problem(.conflict, p))
            case .forbidden: return .forbidden(.init(body: .applicationProblemJson(Self.schema(.forbidden, p))))
            case .unprocessable: return .unprocessableContent(Self.problem(.unprocessableContent, p))
            }
        }
    }

    func getPipeline(_ input: Operations.GetPipeline.Input) async throws -> Operations.GetPipeline.Output {
        guard let p = pipelines.pipeline(named: input.path.name) else { return .notFound(Self.unknown(input.path.name)) }
        return .ok(.init(body: .json(Self.detail(p))))
    }

    func stopPipeline(_ input: Operations.StopPipeline.Input) async throws -> Operations.StopPipeline.Output {
        switch await pipelines.stop(input.path.name) {
        case .stopped(let p): return .ok(.init(body: .json(Self.summary(p))))
        case .stopping(let p): return .accepted(.init(body: .json(Self.summary(p))))
        case nil: return .notFound(Self.unknown(input.path.name))
        }
    }

    func streamEvents(_ input: Operations.StreamEvents.Input) async throws -> Operations.StreamEvents.Output {
        guard let p = pipelines.pipeline(named: input.path.name), let events = p.events else {
            return .notFound(Self.unknown(input.path.name))
        }
        if let after = input.query.after, after < 0 {
            return .badRequest(Self.problem(.badRequest, "after is a sequence number: 0 or more"))
        }
        if let limit = input.query.limit, !(1...100_000).contains(limit) {
            return .badRequest(Self.problem(.badRequest, "limit is between 1 and 100000 events"))
        }
        let limit = input.query.limit ?? Int.max
        let stream = events.subscribe(after: input.query.after).prefix(limit).map { e in
            ServerSentEvent(id: "\(e.seq)", event: e.type, data: Self.json(e))
        }
        return .ok(
            .init(
                body: .textEventStream(
                    HTTPBody(
                        stream.asEncodedServerSentEvents(), length: .unknown,
                        iterationBehavior: .single))))
    }

    // MARK: Controls

    func replaceFilters(_ input: Operations.ReplaceFilters.Input) async throws -> Operations.ReplaceFilters.Output {
        let path = input.path
        guard let control = control(path.name) else { return .notFound(Self.unknown(path.name)) }
        let text: String
        switch input.body {
        case .yaml(let body): text = try await Self.text(body)
        case .json(let list):
            let data = try JSONEncoder().encode(list.filters)
            text = String(decoding: data, as: UTF8.self)
        }
        let side = BranchSide(rawValue: path.side.rawValue)!, media = MediaKind(rawValue: path.media.rawValue)!
        do {
            try await control.replaceFilters(side: side, media: media, yaml: text)
        } catch {
            return Self.response(to: error)
        }
        return .ok(.init(body: .json(Self.branch(control, side, media))))
    }

    func setFilterParameters(_ input: Operations.SetFilterParameters.Input) async throws -> Operations.SetFilterParameters.Output {
        let path = input.path
        guard let control = control(path.name) else { return .notFound(Self.unknown(path.name)) }
        guard case .json(let body) = input.body else { return .badRequest(Self.problem(.badRequest, "a JSON body is required")) }
        let side = BranchSide(rawValue: path.side.rawValue)!, media = MediaKind(rawValue: path.media.rawValue)!
        do {
            try control.setFilterParameters(side: side, media: media, index: path.index, Self.parameters(body))
        } catch {
            return Self.response(to: error)
        }
        guard
            let filter = control.branches.first(where: { $0.side == side && $0.media == media })?.filters
                .first(where: { $0.index == path.index })
        else {
            return .notFound(Self.problem(.notFound, "\(side.rawValue).\(media.rawValue) has no filter \(path.index)"))
        }
        return .ok(.init(body: .json(Self.filter(filter))))
    }

    func setEncodedFilterParameters(
        _ input: Operations.SetEncodedFilterParameters.Input
    ) async throws -> Operations.SetEncodedFilterParameters.Output {
        let path = input.path
        guard let control = control(path.name) else { return .notFound(Self.unknown(path.name)) }
        guard case .json(let body) = input.body else { return .badRequest(Self.problem(.badRequest, "a JSON body is required")) }
        let side = BranchSide(rawValue: path.side.rawValue)!, media = MediaKind(rawValue: path.media.rawValue)!
        do {
            try control.setEncodedFilterParameters(side: side, media: media, index: path.index, Self.parameters(body))
        } catch {
            return Self.response(to: error)
        }
        guard let filter = control.encodedFilter(side: side, media: media, index: path.index) else {
            return .notFound(Self.problem(.notFound, "\(side.rawValue).\(media.rawValue) has no encoded filter \(path.index)"))
        }
        return .ok(.init(body: .json(Self.filter(filter))))
    }

    /// A parameters body as the text values elements take.
    private static func parameters(_ body: Components.Schemas.FilterParameters) -> [String: String] {
        var parameters: [String: String] = [:]
        for (k, v) in body.parameters.additionalProperties {
            switch v {
            case .case1(let s): parameters[k] = s
            case .case2(let d): parameters[k] = d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
            case .case3(let b): parameters[k] = b ? "true" : "false"
            }
        }
        return parameters
    }

    func setEncoder(_ input: Operations.SetEncoder.Input) async throws -> Operations.SetEncoder.Output {
        let path = input.path
        guard let control = control(path.name) else { return .notFound(Self.unknown(path.name)) }
        guard case .json(let body) = input.body else { return .badRequest(Self.problem(.badRequest, "a JSON body is required")) }
        let media = MediaKind(rawValue: path.media.rawValue)!
        // kbit/s, as in pipeline files (`encode: {bitrate: 2000}`); the encoder is set in bit/s.
        guard Self.bitrateKbps.contains(body.bitrateKbps) else {
            return .unprocessableContent(
                Self.problem(
                    .unprocessableContent,
                    "bitrate_kbps must be between \(Self.bitrateKbps.lowerBound) and \(Self.bitrateKbps.upperBound) (kbit/s, as in pipeline files), not \(body.bitrateKbps)"
                ))
        }
        do { try control.setBitrate(media: media, bitsPerSecond: body.bitrateKbps * 1000) } catch {
            return Self.response(to: error)
        }
        return .ok(.init(body: .json(Self.branch(control, .send, media))))
    }

    func requestKeyframe(_ input: Operations.RequestKeyframe.Input) async throws -> Operations.RequestKeyframe.Output {
        guard let control = control(input.path.name) else { return .notFound(Self.unknown(input.path.name)) }
        let frames: Int?
        do { frames = try await control.requestKeyframe() } catch {
            return error.kind == .notFound ? .notFound(Self.problem(.notFound, error)) : .conflict(Self.problem(.conflict, error))
        }
        return .accepted(.init(body: .json(.init(status: frames == nil ? "requested" : "delivered", framesUntilKeyframe: frames))))
    }

    func setTrack(_ input: Operations.SetTrack.Input) async throws -> Operations.SetTrack.Output {
        let path = input.path
        guard let control = control(path.name) else { return .notFound(Self.unknown(path.name)) }
        guard case .json(let body) = input.body else { return .badRequest(Self.problem(.badRequest, "a JSON body is required")) }
        guard body.enabled != nil || body.volume != nil else {
            return .unprocessableContent(Self.problem(.unprocessableContent, "give enabled, volume or both"))
        }
        let media = MediaKind(rawValue: path.media.rawValue)!
        do { try control.setTrack(media: media, enabled: body.enabled, volume: body.volume) } catch {
            return error.kind == .notFound ? .notFound(Self.problem(.notFound, error)) : .unprocessableContent(Self.problem(.unprocessableContent, error))
        }
        return .ok(.init(body: .json(Self.branch(control, .send, media))))
    }

    func setReceiveLayer(_ input: Operations.SetReceiveLayer.Input) async throws -> Operations.SetReceiveLayer.Output {
        guard let control = control(input.path.name) else { return .notFound(Self.unknown(input.path.name)) }
        guard case .json(let body) = input.body else { return .badRequest(Self.problem(.badRequest, "a JSON body is required")) }
        let publishers: [String]
        do { publishers = try await control.chooseReceiveLayer(body.substream, publisher: body.publisher) } catch {
            return Self.response(to: error)
        }
        return .accepted(.init(body: .json(.init(substream: body.substream, publishers: publishers))))
    }

    func sendDataChannelMessage(_ input: Operations.SendDataChannelMessage.Input) async throws -> Operations.SendDataChannelMessage.Output {
        guard let control = control(input.path.name) else { return .notFound(Self.unknown(input.path.name)) }
        guard case .json(let body) = input.body else { return .badRequest(Self.problem(.badRequest, "a JSON body is required")) }
        do { try control.send(body.text, onChannel: input.path.label) } catch {
            return error.kind == .notFound ? .notFound(Self.problem(.notFound, error)) : .conflict(Self.problem(.conflict, error))
        }
        return .accepted(.init(body: .json(.init(status: "sent"))))
    }

    // MARK: Helpers

    private func control(_ name: String) -> PipelineControl? { pipelines.pipeline(named: name)?.control }

    /// A request body as text, up to `maxBody` bytes.
    static func text(_ body: HTTPBody) async throws -> String {
        do { return try await String(collecting: body, upTo: maxBody) } catch { throw RequestBodyTooLarge() }
    }

    static func json(_ event: PipelineEvent) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? String(decoding: encoder.encode(event), as: UTF8.self)) ?? "{}"
    }

    /// The response to a control's error: 404 for what is not there, 422 for what cannot be
    /// done, 409 for what cannot be done now.
    static func response<Output: ControlErrorResponses>(to error: ControlError) -> Output {
        switch error.kind {
        case .notFound: return .notFound(problem(.notFound, error))
        case .invalid: return .unprocessableContent(problem(.unprocessableContent, error))
        case .conflict: return .conflict(problem(.conflict, error))
        }
    }

    static func unknown(_ name: String) -> Problem {
        problem(.notFound, "no pipeline named '\(name)'; GET /api/v1/pipelines lists them")
    }

    static func problem(_ status: HTTPResponse.Status, _ detail: String, errors: [String] = []) -> Problem {
        .init(body: .applicationProblemJson(schema(status, ControlAPIProblem(.badRequest, detail, errors: errors))))
    }
    static func problem(_ status: HTTPResponse.Status, _ p: ControlAPIProblem) -> Problem {
        .init(body: .applicationProblemJson(schema(status, p)))
    }
    static func problem(_ status: HTTPResponse.Status, _ e: ControlError) -> Problem {
        problem(status, e.message, errors: e.diagnostics)
    }
    static func schema(_ status: HTTPResponse.Status, _ p: ControlAPIProblem) -> Schemas.Problem {
        Schemas.Problem(
            title: status.reasonPhrase, status: status.code, detail: p.detail,
            errors: p.errors.isEmpty ? nil : p.errors)
    }

    static func summary(_ p: ControlledPipeline) -> Schemas.PipelineSummary {
        .init(name: p.name, state: Schemas.State(rawValue: p.state) ?? .stopped, source: p.source, viewers: p.viewers)
    }

    static func detail(_ p: ControlledPipeline) -> Schemas.Pipeline {
        let recent = p.events?.recent ?? []
        var stats: Schemas.Pipeline.StatsPayload?
        if let last = recent.last(where: { $0.type == "stats" }) { stats = .init(additionalProperties: container(last.fields)) }
        return Schemas.Pipeline(
            name: p.name, state: Schemas.State(rawValue: p.state) ?? .stopped, source: p.source, viewers: p.viewers,
            encodedVideoFrames: p.encodedVideoFrames,
            branches: p.control?.branches.map(branch) ?? [],
            dataChannels: p.control?.dataChannels.map { .init(label: $0.label, open: $0.open) } ?? [],
            stats: stats, recentEvents: recent.suffix(20).map(event))
    }

    static func event(_ e: PipelineEvent) -> Schemas.Event {
        .init(seq: e.seq, time: e.time, _type: e.type, fields: .init(additionalProperties: container(e.fields)))
    }

    static func container(_ fields: [String: PipelineEvent.Value]) -> OpenAPIObjectContainer {
        var out: [String: (any Sendable)?] = [:]
        for (k, v) in fields {
            switch v {
            case .number(let d): out[k] = d.isFinite ? d : 0
            case .text(let s): out[k] = s
            case .flag(let b): out[k] = b
            }
        }
        return (try? OpenAPIObjectContainer(unvalidatedValue: out)) ?? .init()
    }

    static func branch(_ control: PipelineControl, _ side: BranchSide, _ media: MediaKind) -> Schemas.Branch {
        control.branches.first { $0.side == side && $0.media == media }.map(branch)
            ?? .init(side: .init(rawValue: side.rawValue)!, media: .init(rawValue: media.rawValue)!, filters: [])
    }

    static func branch(_ b: PipelineControl.BranchState) -> Schemas.Branch {
        .init(
            side: .init(rawValue: b.side.rawValue)!, media: .init(rawValue: b.media.rawValue)!,
            filters: b.filters.map(filter), codec: b.codec, encoder: b.encoder, bitrateKbps: b.bitrate.map(kbps),
            enabled: b.enabled, volume: b.volume)
    }

    /// The API's bitrates are kbit/s, as in pipeline files (`openapi.yaml`'s `EncoderSettings`).
    static let bitrateKbps = 1...100_000

    /// bit/s as the API's kbit/s, rounded.
    static func kbps(_ bitsPerSecond: Int) -> Int {
        Int((Double(bitsPerSecond) / 1000).rounded())
    }

    static func filter(_ f: PipelineControl.FilterState) -> Schemas.Filter {
        .init(
            index: f.index, kind: .init(rawValue: f.kind) ?? .element, name: f.name, element: f.element,
            parameters: .init(additionalProperties: f.parameters))
    }
}

/// An operation's responses that a ``ControlError`` maps to (the generated cases witness these).
protocol ControlErrorResponses {
    static func notFound(_ problem: Components.Responses.Problem) -> Self
    static func unprocessableContent(_ problem: Components.Responses.Problem) -> Self
    static func conflict(_ problem: Components.Responses.Problem) -> Self
}

extension Operations.ReplaceFilters.Output: ControlErrorResponses {}
extension Operations.SetFilterParameters.Output: ControlErrorResponses {}
extension Operations.SetEncodedFilterParameters.Output: ControlErrorResponses {}
extension Operations.SetEncoder.Output: ControlErrorResponses {}
extension Operations.SetReceiveLayer.Output: ControlErrorResponses {}
