import Foundation
import Metrics
import Prometheus
import Synchronization

/// Something that reports metrics when `/metrics` is scraped: a served stream, the WHIP
/// ingest, the process. A new thing to watch is one new conforming type.
public protocol MetricsSource: Sendable {
    /// Reports the source's current values into `sink` (called once per scrape).
    func collect(into sink: MetricsSink)
}

/// Sluice's metrics in Prometheus text format, through swift-prometheus.
///
/// Values are read from the live objects at scrape time (the counters Sluice keeps anyway),
/// so nothing is counted twice and a scrape costs nothing between scrapes. A counter is
/// mirrored: the registry's counter is advanced by the growth since the last scrape.
public final class SluiceMetrics: Sendable {
    /// The swift-prometheus registry the sources' values are mirrored into; render it for `/metrics`.
    public let registry = PrometheusCollectorRegistry()
    private let sources = Mutex<[any MetricsSource]>([])
    private let sink: MetricsSink

    /// An empty set of metrics: no sources until `add(_:)`.
    public init() { sink = MetricsSink(registry: registry) }

    /// Adds a source; sources are asked in the order they were added.
    public func add(_ source: any MetricsSource) { sources.withLock { $0.append(source) } }

    /// Makes this registry the process's swift-metrics backend, so what libraries report
    /// through swift-metrics — Hummingbird's `MetricsMiddleware`: requests, errors and their
    /// durations per route — appears in the same `/metrics`, under Prometheus names
    /// (`swiftMetricsNames`). swift-metrics allows one backend per process: call this once,
    /// from the command that owns the process.
    public func bootstrapSwiftMetrics() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.nameAndLabelSanitizer = Self.swiftMetricsNames
        MetricsSystem.bootstrap(factory)
    }

    /// Hummingbird's metric labels (OpenTelemetry's dotted names) as Prometheus names with
    /// their conventional suffixes; anything else keeps its name, with the registry replacing
    /// characters Prometheus does not allow.
    @Sendable public static func swiftMetricsNames(_ name: String, _ labels: [(String, String)]) -> (String, [(String, String)]) {
        let names = [
            "hb.requests": "sluice_http_requests_total",
            "hb.request.errors": "sluice_http_request_errors_total",
            "http.server.request.duration": "sluice_http_request_duration_seconds",
            "http.server.active_requests": "sluice_http_active_requests"
        ]
        let labelNames = [
            "http.route": "route", "http.request.method": "method",
            "http.response.status_code": "status", "error.type": "status"
        ]
        return (names[name] ?? name, labels.map { (labelNames[$0.0] ?? $0.0, $0.1) })
    }

    /// The Prometheus text exposition of every source's current values.
    public func render() -> String {
        for source in sources.withLock({ $0 }) { source.collect(into: sink) }
        return registry.emitToString()
    }
}

/// Where sources put values. Names follow Prometheus conventions: `_total` for counters,
/// base units (`_seconds`, `_bytes`).
public final class MetricsSink: Sendable {
    private let registry: PrometheusCollectorRegistry
    private struct Key: Hashable { var name: String; var labels: [String] }
    /// The last total each mirrored counter was advanced to.
    private let totals = Mutex<[Key: Double]>([:])

    package init(registry: PrometheusCollectorRegistry) { self.registry = registry }

    /// Sets a gauge.
    public func gauge(_ name: String, _ value: Double, labels: [(String, String)] = [], help: String) {
        registry.makeGauge(name: name, labels: labels, help: help).set(value)
    }

    /// Removes a gauge, so a figure nobody reports now (no viewer left to measure a round
    /// trip) is absent from the exposition instead of showing its last value.
    public func removeGauge(_ name: String, labels: [(String, String)] = [], help: String) {
        registry.unregisterGauge(registry.makeGauge(name: name, labels: labels, help: help))
    }

    /// Reports a counter's running total (it only ever grows; a smaller total, as after a
    /// source was replaced, is taken as the new base and adds nothing).
    public func counter(_ name: String, total: Double, labels: [(String, String)] = [], help: String) {
        let counter = registry.makeCounter(name: name, labels: labels, help: help)
        let key = Key(name: name, labels: labels.flatMap { [$0.0, $0.1] })
        let delta = totals.withLock { t -> Double in
            let last = t[key] ?? 0
            t[key] = total
            return total > last ? total - last : 0
        }
        if delta > 0 { counter.increment(by: delta) }
    }
}
