import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Sluice
import SluiceSignalling

/// WHEP: viewers play the server's pipelines. `POST /whep/<stream>` with an SDP offer →
/// `201 Created`, `Location: /whep/<stream>/<session>`, `ETag`, the complete answer;
/// `PATCH` on the session adds trickled candidates; `DELETE` ends it.
extension SluiceHTTPServer {
    static let maxSDPBytes = 256 * 1024

    func addWHEPRoutes(to router: Routes) {
        let streams = streams, configuration = configuration, ingest = ingest, playbacks = playbacks
        // A served pipeline, or else a relayed WHIP publisher of that name.
        let source: @Sendable (String) -> (any ViewerSource)? = { streams[$0] ?? ingest.relay(named: $0) }
        let links = WHIP.linkHeaders(stun: configuration.stun, turn: configuration.turn)
        let replica = configuration.replica

        addStreamList(to: router)

        addWHEPOffer(to: router, source: source, links: links)

        router.patch("/whep/:stream/:session") { request, context -> Response in
            let name = context.parameters.get("stream") ?? "", id: String
            switch replica.session(context.parameters.get("session") ?? "") {
            case .failure(let e): return Self.problem(e)
            case .success(let session): id = session
            }
            guard let hub = playbacks.hub(of: id) ?? source(name) else { return Self.problem(WHIP.HTTPError(404, "no stream named '\(name)'")) }
            let body = (try? await request.body.collect(upTo: Self.maxSDPBytes)).map { String(buffer: $0) } ?? ""
            switch WHIP.checkPatch(
                contentType: request.headers[.contentType], ifMatch: request.headers[.ifMatch],
                etag: "\"\(id)\"", body: body)
            {
            case .failure(let e): return Self.problem(e)
            case .success(.candidates(let candidates, _)):
                guard hub.addCandidates(candidates, toViewer: id) else {
                    return Self.problem(WHIP.HTTPError(404, "no session '\(id)' on stream '\(name)'"))
                }
                return Response(status: .noContent)
            }
        }

        addLayerSelection(to: router, source: source)

        router.delete("/whep/:stream/:session") { _, context -> Response in
            let name = context.parameters.get("stream") ?? "", id: String
            switch replica.session(context.parameters.get("session") ?? "") {
            case .failure(let e): return Self.problem(e)
            case .success(let session): id = session
            }
            if await playbacks.remove(id) { return Response(status: .ok) }
            guard let hub = source(name), hub.removeViewer(id) else {
                return Self.problem(WHIP.HTTPError(404, "no session '\(id)' on stream '\(name)'"))
            }
            return Response(status: .ok)
        }
    }

    /// `POST /whep/<stream>`: a new viewer of a served pipeline or relayed publisher, or with
    /// `?at=` of a served pipeline's recording.
    private func addWHEPOffer(to router: Routes, source: @escaping @Sendable (String) -> (any ViewerSource)?, links: [String]) {
        let streams = streams, playbacks = playbacks, replica = configuration.replica
        router.post("/whep/:stream") { request, context -> Response in
            let name = context.parameters.get("stream") ?? ""
            let offer: String
            switch await Self.readOffer(request) {
            case .failure(let e): return Self.problem(e)
            case .success(let sdp): offer = sdp
            }
            guard let hub = source(name) else {
                return Self.problem(WHIP.HTTPError(404, "no stream named '\(name)'; GET /streams.json lists them"))
            }
            if let at = request.uri.queryParameters["at"].map(String.init) {
                return await Self.addPlaybackViewer(of: streams[name], at: at, offer: offer, playbacks: playbacks, streams: streams) {
                    Self.created(answer: $1, session: "/whep/\(name)/\(replica.external($0))", id: $0, links: links)
                }
            }
            do {
                let layer = request.uri.queryParameters["layer"].map(String.init)
                let (id, answer) = try await hub.addViewer(offer: offer, layer: layer)
                let session = "/whep/\(name)/\(replica.external(id))"
                // Layers to choose from: WHEP's layer selection extension, at the session's /layer.
                let layers = hub.layerNames.isEmpty ? [] : [WHEPLayerSelection.link(session + "/layer")]
                return Self.created(answer: answer, session: session, id: id, links: links + layers)
            } catch let e as RunError {
                return Self.problem(WHIP.HTTPError(422, e.message))
            }
        }
    }

    /// `POST /whep/<stream>/<session>/layer`: WHEP's video layer selection. `{"rid": "l"}`
    /// holds the viewer on that layer, `{}` lets its estimate choose again; 200 with the
    /// layers and the choice, 404 for an unknown session, 400 (naming the layers) for one
    /// the stream does not have, 415 for a body that is not JSON.
    private func addLayerSelection(to router: Routes, source: @escaping @Sendable (String) -> (any ViewerSource)?) {
        let replica = configuration.replica
        router.post("/whep/:stream/:session/layer") { request, context -> Response in
            let name = context.parameters.get("stream") ?? "", id: String
            switch replica.session(context.parameters.get("session") ?? "") {
            case .failure(let e): return Self.problem(e)
            case .success(let session): id = session
            }
            guard let hub = source(name) else { return Self.problem(WHIP.HTTPError(404, "no stream named '\(name)'")) }
            let body = (try? await request.body.collect(upTo: WHEPLayerSelection.maxBodyBytes + 1)).map { String(buffer: $0) } ?? ""
            let selection: WHEPLayerSelection
            switch WHEPLayerSelection.parse(contentType: request.headers[.contentType], body: body) {
            case .failure(let e): return Self.problem(e)
            case .success(let s): selection = s
            }
            let layer: String? = if case .layer(let rid) = selection { rid } else { nil }
            do {
                guard try hub.pinLayer(layer, ofViewer: id) else {
                    return Self.problem(WHIP.HTTPError(404, "no session '\(id)' on stream '\(name)'"))
                }
            } catch let e as RunError {
                return Self.problem(WHIP.HTTPError(400, e.message))
            }
            let answer: [String: Any] = ["layers": hub.layerNames, "rid": layer.map { $0 as Any } ?? NSNull()]
            let data = (try? JSONSerialization.data(withJSONObject: answer, options: [.sortedKeys])) ?? Data("{}".utf8)
            return Self.json(String(decoding: data, as: UTF8.self))
        }
    }

    /// A WHEP viewer of `stream`'s recording from `at`: a pipeline of its own; 404 for a
    /// stream that is not a served pipeline, 422 for one that is not recorded, a time that is
    /// not one, or no segment at or after it.
    static func addPlaybackViewer(
        of stream: StreamHub?, at: String, offer: String, playbacks: RecordingPlaybacks, streams: StreamDirectory,
        created: (String, String) -> Response
    ) async -> Response {
        guard let stream else { return problem(WHIP.HTTPError(404, "only a served pipeline's recording can be played")) }
        do {
            let (id, answer) = try await playbacks.addViewer(of: stream, at: at, offer: offer) { (spec: PipelineSpec) throws(RunError) in
                try streams.unlistedHub(spec, holdingUntilAViewer: true)
            }
            return created(id, answer)
        } catch {
            return problem(WHIP.HTTPError(422, error.message))
        }
    }

    /// `GET /streams.json`: the served pipelines and relayed publishers, with their viewers.
    private func addStreamList(to router: Routes) {
        let streams = streams, ingest = ingest
        router.get("/streams.json") { _, _ -> Response in
            let served = streams.values.sorted { $0.name < $1.name }
                .map {
                    [
                        "name": $0.name, "viewers": $0.viewerCount, "whep": "/whep/\($0.name)", "encoded_video_frames": $0.encodedVideoFrames,
                        "viewers_removed": $0.viewerRemovals
                    ] as [String: Any]
                }
            let relayed = ingest.relayNames.compactMap { ingest.relay(named: $0) }
                .map { relay in
                    var row: [String: Any] = [
                        "name": relay.name, "viewers": relay.viewerCount, "whep": "/whep/\(relay.name)", "relayed": true, "live": relay.isLive,
                        "relayed_video_frames": relay.relayedVideoFrames, "viewers_removed": relay.viewerRemovals
                    ]
                    // A simulcast publisher's layers, largest first: what `?layer=` names.
                    let layers = relay.layers
                    if !layers.isEmpty {
                        row["layers"] = layers.map { ["rid": $0.rid, "ssrc": Int($0.ssrc), "width": $0.width, "height": $0.height] }
                    }
                    return row
                }
            let list = served + relayed
            let data = (try? JSONSerialization.data(withJSONObject: list, options: [.sortedKeys])) ?? Data("[]".utf8)
            return Self.json(String(decoding: data, as: UTF8.self))
        }
    }

    /// The body of a WHIP/WHEP `POST`, checked (size, content type, SDP). Authorization is the
    /// route group's (`BearerTokenMiddleware`).
    static func readOffer(_ request: Request) async -> Result<String, WHIP.HTTPError> {
        let body: ByteBuffer
        do { body = try await request.body.collect(upTo: maxSDPBytes) } catch {
            return .failure(WHIP.HTTPError(413, "the offer is larger than \(maxSDPBytes) bytes"))
        }
        return WHIP.checkOffer(contentType: request.headers[.contentType], body: String(buffer: body))
    }

    /// `201 Created` with the answer, the session's `Location` and `ETag`, and the ICE servers.
    static func created(answer: String, session: String, id: String, links: [String]) -> Response {
        var headers: HTTPFields = [.contentType: WHIP.sdpType, .location: session, .eTag: "\"\(id)\""]
        for link in links { if let name = HTTPField.Name("Link") { headers.append(HTTPField(name: name, value: link)) } }
        return Response(status: .created, headers: headers, body: .init(byteBuffer: ByteBuffer(string: answer)))
    }

    /// An error answer: the status, its headers, and the reason as plain text.
    static func problem(_ e: WHIP.HTTPError) -> Response {
        var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8"]
        for (k, v) in e.headers { if let name = HTTPField.Name(k) { headers[name] = v } }
        return Response(status: .init(code: e.status), headers: headers, body: .init(byteBuffer: ByteBuffer(string: e.message + "\n")))
    }
}
