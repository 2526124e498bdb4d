import Foundation
import SluiceRun
import SluiceMeasure

extension LoadReport {
    /// The human summary: how the clients ended, the distributions across them, the groups when
    /// there are several, each distinct failure with its count, and what the process used.
    public var text: String {
        let o = overall
        var head = "load \(pipeline) → \(target) (" + String(format: "%.1f s", duration_s)
        let who = role ?? LoadRole.viewer.rawValue
        head += ", \(clients_planned) \(who)\(clients_planned == 1 ? "" : "s") planned" + (shard.map { ", shard \($0)" } ?? "") + ")"
        var lines = [head, "  outcome        " + Self.outcomeLine(o)]
        let churned = clients.filter { $0.churned == true }.count
        if churned > 0 {
            lines.append("  churn          \(churned) replaced: each left early and a new client took its place (counted as left as planned)")
        }
        lines.append("  connect        " + Self.figures(o.connect_ms, unit: " ms", of: "clients"))
        lines.append("  dtls           " + Self.figures(o.dtls_ms, unit: " ms", of: "clients"))
        // A publisher's frames are those it sent: from the request to its first one out.
        let first = who == LoadRole.publisher.rawValue ? "first sent     " : "first frame    "
        lines.append("  \(first)" + Self.figures(o.time_to_first_frame_ms, unit: " ms", of: "clients"))
        lines.append("  fps            " + Self.figures(o.fps, unit: "", of: "clients", lowest: true))
        if let sizes = o.video_sizes, who != LoadRole.publisher.rawValue { lines.append("  picture        " + Self.sizes(sizes)) }
        lines.append(
            "  freezes        " + Self.figures(o.freezes_per_minute, unit: "/min", of: "clients")
                + String(format: "; %d in all, %.1f s frozen", o.freezes, o.freeze_s))
        if let encoded = shared_encoder_frames {
            let counted = clients.reduce(0) { $0 + $1.frames }
            let whose = who == LoadRole.member.rawValue ? "received by the members" : "sent by the publishers"
            lines.append("  encoded once   \(encoded) video frames by the shared encoder; \(counted) \(whose) in all")
        }
        if o.glass_to_glass_ms.count > 0 {
            lines.append("  glass-to-glass " + Self.figures(o.glass_to_glass_ms, unit: " ms", of: "frames"))
        }
        lines += Self.audioLines(o)
        if groups.count > 1 {
            for g in groups { lines.append(Self.groupLine(g)) }
        }
        for (i, f) in o.failures.enumerated() {
            lines.append((i == 0 ? "  failures       " : "                 ") + "\(f.clients) \(Self.words(f.outcome)): \(f.reason)")
        }
        if let cpu = timeline.compactMap(\.cpu_cores).max() {
            let memory = timeline.compactMap(\.memory_mib).max() ?? 0
            lines.append(String(format: "  peak use       %.2f cores, %.0f MiB", cpu, memory))
        }
        if let p = process {
            lines.append(
                String(
                    format: "  after crowd    %+d open files, %+d threads, %+.0f MiB against before it (%d files, %d threads): "
                        + "what the process keeps (thread pools, caches), not per client; docs/measure-and-load.md",
                    p.end.fds - p.start.fds, p.end.threads - p.start.threads, p.end.memory_mib - p.start.memory_mib, p.start.fds,
                    p.start.threads))
        }
        return lines.joined(separator: "\n")
    }

    /// What the clients heard, when audio arrived: time to first audio, missing audio per
    /// minute, and where stamps were read, mouth-to-ear and the A/V offset.
    private static func audioLines(_ o: LoadAggregate) -> [String] {
        guard o.time_to_first_audio_ms.count > 0 else { return [] }
        var lines = [
            "  first audio    " + figures(o.time_to_first_audio_ms, unit: " ms", of: "clients"),
            "  audio missing  " + figures(o.missing_audio_ms_per_minute, unit: " ms/min", of: "clients")
                + "  (lost packets' sound, per minute of audio)"
        ]
        if o.mouth_to_ear_ms.count > 0 {
            lines.append("  mouth-to-ear   " + figures(o.mouth_to_ear_ms, unit: " ms", of: "audio stamps"))
        }
        if o.av_offset_ms.count > 0 {
            lines.append(
                "  A/V offset     " + figures(o.av_offset_ms, unit: " ms", of: "stamps", lowest: true) + "  (audio minus video, positive: audio late)")
        }
        return lines
    }

    /// `117 of 120 succeeded (97.5%); 2 refused, 1 failed to connect, 0 service gone`.
    private static func outcomeLine(_ a: LoadAggregate) -> String {
        var s = "\(a.succeeded) of \(a.clients) succeeded" + (a.success_rate.map { String(format: " (%.1f%%)", $0 * 100) } ?? "")
        s += "; \(a.refused) refused, \(a.failed_to_connect) failed to connect, \(a.service_gone) service gone"
        if a.running > 0 { s += ", \(a.running) still running" }
        if a.stopped_early > 0 { s += " (\(a.stopped_early) of the successes cut short by the stop)" }
        return s
    }

    /// `group viewers   40 of 40 succeeded (100.0%); connect p50 … p95 …; first frame …; fps p50 …`,
    /// and glass-to-glass where its clients read stamps.
    private static func groupLine(_ g: LoadAggregate) -> String {
        let name = (g.group ?? "").isEmpty ? "(none)" : g.group!
        func pair(_ d: LoadDistribution, _ unit: String) -> String {
            "p50 \(value(d.p50, unit))  p95 \(value(d.p95, unit))"
        }
        return "  group " + name.padding(toLength: max(name.count, 8), withPad: " ", startingAt: 0) + " " + outcomeLine(g)
            + "; connect " + pair(g.connect_ms, " ms") + "; first frame " + pair(g.time_to_first_frame_ms, " ms")
            + "; fps p50 \(value(g.fps.p50, ""))"
            + (g.glass_to_glass_ms.count > 0 ? "; glass-to-glass " + pair(g.glass_to_glass_ms, " ms") : "")
            + (g.video_sizes.map { "; picture " + sizes($0) } ?? "")
    }

    /// `640x360 ×10, 320x180 ×2`: clients by picture size, most first.
    private static func sizes(_ counts: [String: Int]) -> String {
        counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
    }

    /// `p50 120.3 ms  p95 180.1 ms  p99 250.0 ms  max 260.2 ms  (118 clients)`, with the
    /// minimum first when low values are the bad ones (frame rates); `-` when empty.
    private static func figures(_ d: LoadDistribution, unit: String, of what: String, lowest: Bool = false) -> String {
        guard d.count > 0 else { return "-  (no \(what))" }
        var parts = lowest ? ["min \(value(d.min, unit))"] : []
        parts += [("p50", d.p50), ("p95", d.p95), ("p99", d.p99), ("max", d.max)].map { "\($0.0) \(value($0.1, unit))" }
        return parts.joined(separator: "  ") + "  (\(d.count) \(what))"
    }

    /// A figure to one decimal with its unit; `-` when unknown.
    private static func value(_ v: Double?, _ unit: String) -> String {
        v.map { String(format: "%.1f", $0) + unit } ?? "-"
    }

    /// An outcome in words: `refused`, `failed to connect`, `service gone`, ...
    package static func words(_ kind: ClientOutcome.Kind) -> String {
        switch kind {
        case .running: "still running"
        case .leftAsPlanned: "left as planned"
        case .stoppedEarly: "stopped early"
        case .refused: "refused"
        case .failedToConnect: "failed to connect"
        case .serviceGone: "service gone"
        }
    }
}
