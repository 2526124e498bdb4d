import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Sluice
import SluiceSignalling
import UnixSignals

/// Operating the server: `/healthz` and `/readyz` for probes, `/metrics` for Prometheus,
/// and the graceful drain on SIGTERM.
extension SluiceHTTPServer {
    /// `GET /healthz`: the process answers. `GET /readyz`: every served pipeline plays and
    /// the server takes sessions (503 while draining). Both are public, for orchestrators'
    /// probes, and say no more than that.
    func addProbeRoutes(to router: Routes) {
        let drain = drain, streams = streams
        router.get("/healthz") { _, _ -> Response in Self.json(#"{"status":"ok"}"#) }
        router.get("/readyz") { _, _ -> Response in
            if drain.isDraining { return Self.json(#"{"status":"draining"}"#, status: .serviceUnavailable) }
            let stopped = streams.values.filter { !$0.isPlaying }.map(\.name).sorted()
            guard stopped.isEmpty else {
                return Self.json(#"{"status":"not playing","streams":\#(Self.jsonList(stopped))}"#, status: .serviceUnavailable)
            }
            return Self.json(#"{"status":"ready"}"#)
        }
    }

    /// `GET /metrics`: Prometheus text format (protected like the JSON lists).
    func addMetricsRoute(to router: Routes) {
        let metrics = metrics
        router.get("/metrics") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: metrics.render())))
        }
    }

    /// `GET /pipelines/<name>/graph.svg` (drawn by Graphviz), `graph.dot` (GStreamer's dot)
    /// and `graph.txt` (a text tree): a served stream's pipeline as it is now.
    func addGraphRoutes(to router: Routes) {
        let streams = streams
        router.get("/pipelines/:name/:file") { _, context -> Response in
            let name = context.parameters.get("name") ?? "", file = context.parameters.get("file") ?? ""
            guard let hub = streams[name] else {
                return Self.problem(WHIP.HTTPError(404, "no served pipeline named '\(name)'; GET /streams.json lists them"))
            }
            let graph = hub.graph
            switch file {
            case "graph.dot": return Self.text(graph.dot, type: "text/vnd.graphviz; charset=utf-8")
            case "graph.txt": return Self.text(graph.tree, type: "text/plain; charset=utf-8")
            case "graph.svg":
                do { return Self.text(try GraphPicture.svg(fromDot: graph.dot), type: "image/svg+xml") } catch let error as RunError {
                    return Self.problem(WHIP.HTTPError(501, error.message + " (graph.dot and graph.txt need nothing)"))
                }
            default:
                return Self.problem(WHIP.HTTPError(404, "a pipeline has graph.svg, graph.dot and graph.txt"))
            }
        }
    }

    static func text(_ body: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    static func jsonList(_ names: [String]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: names)) ?? Data("[]".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// Sessions that keep a drain waiting: viewers of served and relayed streams, WHIP
    /// publishers and camera sessions.
    var liveSessions: Int {
        streams.values.reduce(0) { $0 + $1.viewerCount } + ingest.sessionCount + ingest.relayCounts.relays
            + ingest.relayCounts.viewers + cameras.count
    }

    /// Drains: no new sessions; waits up to `timeout` seconds for the live ones to end (a
    /// second SIGTERM or SIGINT cuts the wait short); then ends what is left as a DELETE
    /// would (recordings are finalized) and returns.
    func drainSessions(timeout: Double, logger: Logger) async {
        guard drain.begin() else { return }
        logger.info("draining: no new sessions; waiting up to \(timeout) s for \(liveSessions) to end")
        let deadline = ContinuousClock.now + .seconds(timeout)
        let cut = DrainState() // a second signal "drains" this one: the wait is cut short
        let again = Task {
            for await _ in await UnixSignalsSequence(trapping: .sigterm, .sigint) {
                cut.begin()
                return
            }
        }
        while liveSessions > 0, ContinuousClock.now < deadline {
            if cut.isDraining {
                logger.info("second signal: ending the remaining sessions now")
                break
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        again.cancel()
        let left = liveSessions
        if left > 0 { logger.info("drain: ending \(left) remaining session(s)") }
        await ingest.stopAll()
        cameras.removeAll(from: streams)
        for hub in streams.values { hub.removeAllViewers() }
        await playbacks.removeAll()
        // Each served pipeline ends with end-of-stream (bounded), so its recordings
        // (`send.*.record`) finish their last segment.
        await withTaskGroup(of: Void.self) { group in
            for hub in streams.values { group.addTask { await hub.stop() } }
        }
        logger.info("drained")
    }
}

/// The drain, as a service of the server's group. SIGTERM (which it traps itself) drains
/// for `timeout` seconds, then the service returns and the group shuts down gracefully.
/// SIGINT (Ctrl-C, the group's own graceful shutdown) ends the sessions at once — still as
/// their DELETE would, so recordings are finalized.
struct DrainService: Service {
    let server: SluiceHTTPServer
    let timeout: Double
    let logger: Logger

    func run() async throws {
        let term = Task {
            for await _ in await UnixSignalsSequence(trapping: .sigterm) { return true }
            return false
        }
        let sigterm = await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await term.value
            } onGracefulShutdown: {
                term.cancel()
            }
        } onCancel: {
            term.cancel()
        }
        // Cancelled rather than shut down gracefully: no drain.
        if Task.isCancelled { return }
        await server.drainSessions(timeout: sigterm ? timeout : 0, logger: logger)
    }
}

/// The server's own metrics: rooms, sockets, camera sessions, WHIP publishers and relays,
/// and whether it drains. Holds the parts it reads, never the server: the server owns the
/// metrics, and a metrics source holding the server would keep both (and every served
/// stream's pipeline, still encoding) alive for good.
struct ServerMetrics: MetricsSource {
    let rooms: RoomRegistry
    let sockets: SocketCount
    let cameras: CameraSessions
    let drain: DrainState
    let ingest: WHIPIngest

    /// Each simulcast publisher's layers: their rates, who gets which, and the moves.
    private func collectLayers(into sink: MetricsSink) {
        for relay in ingest.relayNames.compactMap({ ingest.relay(named: $0) }) {
            let layers = relay.layerFigures
            guard !layers.isEmpty else { continue }
            for layer in layers {
                let labels = [("relay", relay.name), ("layer", layer.rid)]
                sink.gauge("sluice_relay_layer_viewers", Double(layer.viewers), labels: labels, help: "Viewers getting this simulcast layer of the publisher.")
                sink.gauge(
                    "sluice_relay_layer_bitrate_bps", Double(layer.bitsPerSecond), labels: labels,
                    help: "What the publisher sends in this simulcast layer, over the last 2 s.")
                sink.gauge(
                    "sluice_relay_layer_sending", layer.sending ? 1 : 0, labels: labels,
                    help: "1 while the publisher sends this simulcast layer (a frame in the last 0.7 s), 0 once it stopped.")
            }
            let moves = relay.layerMoves
            for (direction, n) in [("up", moves.up), ("down", moves.down)] {
                sink.counter(
                    "sluice_relay_layer_switches_total", total: Double(n), labels: [("relay", relay.name), ("direction", direction)],
                    help: "Viewers moved to a larger (up) or smaller (down) simulcast layer, at its keyframe.")
            }
        }
    }

    func collect(into sink: MetricsSink) {
        let counts = rooms.counts
        sink.gauge("sluice_rooms", Double(counts.rooms), help: "AppRTC rooms open.")
        sink.gauge("sluice_room_clients", Double(counts.clients), help: "Clients in AppRTC rooms.")
        sink.gauge("sluice_websockets", Double(sockets.value), help: "Open room WebSocket connections.")
        sink.gauge("sluice_camera_sessions", Double(cameras.count), help: "Live camera API media sessions.")
        sink.gauge("sluice_draining", drain.isDraining ? 1 : 0, help: "1 while the server drains (no new sessions).")
        sink.gauge("sluice_whip_sessions", Double(ingest.sessionCount), help: "WHIP publishers into receive pipelines.")
        let relays = ingest.relayCounts
        sink.gauge("sluice_relays", Double(relays.relays), help: "Relayed WHIP publishers.")
        sink.gauge("sluice_relay_viewers", Double(relays.viewers), help: "WHEP viewers of relayed publishers.")
        collectLayers(into: sink)
        for (reason, n) in ingest.reapedCounts {
            sink.counter(
                "sluice_whip_sessions_reaped_total", total: Double(n), labels: [("reason", reason)],
                help: "WHIP publishers and relays ended without DELETE, by reason.")
        }
        for (name, t) in ingest.endedTotals {
            let labels = [("pipeline", name)]
            sink.counter("sluice_whip_sessions_ended_total", total: Double(t.sessions), labels: labels, help: "WHIP sessions ended.")
            sink.counter(
                "sluice_whip_received_video_frames_total", total: Double(t.video), labels: labels,
                help: "Video frames decoded from ended WHIP sessions.")
        }
    }
}
