import Foundation
import SluiceRun
import SluiceMeasure

extension LoadPlot {
    /// The colour of audio's figures (as `LatencyPlot` draws audio stamps).
    package static let audioColor = "#9467bd"

    /// A panel below the timeline, drawn only when the report has samples for it; each present
    /// one takes the next place, in this order.
    package enum Panel: CaseIterable {
        /// Every glass-to-glass delay (frames were stamped).
        case glassToGlass
        /// Every mouth-to-ear delay (sound was stamped).
        case mouthToEar
        /// Every A/V offset (stamped sound paired with stamped frames).
        case avOffset
        /// Missing audio per minute, per client (clients with enough audio).
        case missingAudio

        /// Whether `report` has samples for the panel.
        package func isPresent(in report: LoadReport) -> Bool {
            switch self {
            case .glassToGlass: report.overall.glass_to_glass_ms.count > 0
            case .mouthToEar: report.overall.mouth_to_ear_ms.count > 0
            case .avOffset: report.overall.av_offset_ms.count > 0
            case .missingAudio: report.clients.contains { $0.audio?.missing_ms_per_minute != nil }
            }
        }

        /// The panel's elements, its plot area's top edge at `top`.
        package func draw(_ report: LoadReport, top: Double, layout: Layout) -> [String] {
            switch self {
            case .glassToGlass: glassToGlassPanel(report.overall.glass_to_glass_ms, top: top, layout: layout)
            case .mouthToEar: mouthToEarPanel(report.overall.mouth_to_ear_ms, top: top, layout: layout)
            case .avOffset: avOffsetPanel(report.overall.av_offset_ms, top: top, layout: layout)
            case .missingAudio: missingAudioPanel(report.clients, top: top, layout: layout)
            }
        }
    }

    /// Every mouth-to-ear delay read, as the glass-to-glass panel draws frames.
    package static func mouthToEarPanel(_ d: LoadDistribution, top: Double, layout: Layout) -> [String] {
        delayPanel(
            d, top: top, layout: layout,
            names: .init(id: "mouth-to-ear", title: "mouth-to-ear delay: audio stamps", axis: "mouth-to-ear delay (ms)"))
    }

    /// Every A/V offset (audio minus video, ms), as the glass-to-glass panel draws frames, with
    /// a line at 0: bars right of it are stamps whose sound came late, left of it early.
    package static func avOffsetPanel(_ d: LoadDistribution, top: Double, layout: Layout) -> [String] {
        delayPanel(
            d, top: top, layout: layout,
            names: .init(
                id: "av-offset", title: "A/V offset (audio minus video): audio stamps",
                axis: "A/V offset (ms): right of 0 audio late, left of it audio early"))
    }

    /// The CDF of missing audio (lost packets' sound, which the decoder conceals) in ms per
    /// minute of audio, over the clients with enough audio for the figure
    /// (`LoadClientRow.Audio.missing_ms_per_minute`): the curve reaches 100% at the right edge.
    package static func missingAudioPanel(_ rows: [LoadClientRow], top: Double, layout: Layout) -> [String] {
        let values = rows.compactMap { $0.audio?.missing_ms_per_minute }.sorted()
        guard let highest = values.last else { return [] }
        let left = layout.left, plotW = layout.plotW, h = layout.h3
        let xMax = Draw.niceCeiling(max(highest, 1) * 1.05)
        func x(_ v: Double) -> Double { left + min(max(v, 0), xMax) / xMax * plotW }
        func y(_ share: Double) -> Double { top + h - share * h }
        var out = [
            Draw.text(
                left, top - 10, "missing audio: share of clients (%) missing at most so many ms of sound per minute of audio",
                size: 13, weight: "bold")
        ]
        out += Draw.axes(left: left, top: top, width: plotW, height: h)
        out += Draw.yGrid([0, 0.25, 0.5, 0.75, 1], y: y, left: left, width: plotW) { Draw.format($0 * 100) }
        for v in Draw.ticks(0, xMax) { out.append(Draw.text(x(v), top + h + 16, Draw.format(v), anchor: "middle")) }
        let curve = steps(values, of: values.count) + [Point(x: xMax, y: 1)]
        out.append(Draw.path(id: "missing-audio", curve.map { Point(x: x($0.x), y: y($0.y)) }, stroke: audioColor))
        let p50 = LatencyFigures.percentile(values, 50), p95 = LatencyFigures.percentile(values, 95)
        out.append(
            Draw.text(
                left + plotW - 4, top + h - 16,
                String(
                    format: "%d clients with %.0f s of audio: p50 %.0f, p95 %.0f ms/min", values.count, LoadClientRow.minimumVideoSeconds,
                    p50, p95),
                anchor: "end", fill: audioColor))
        out.append(Draw.text(left + plotW / 2, top + h + 36, "missing audio (ms per minute of audio; what the decoder conceals)", anchor: "middle"))
        return out
    }

    /// The audio line under the figures, when clients heard audio: time to first audio,
    /// missing audio per minute and, where stamps were read, mouth-to-ear and the A/V offset.
    package static func audioHeader(_ o: LoadAggregate, left: Double) -> [String] {
        guard o.time_to_first_audio_ms.count > 0 else { return [] }
        func ms(_ v: Double?) -> String { v.map { String(format: "%.0f ms", $0) } ?? "-" }
        var parts = ["audio: first audio p50 \(ms(o.time_to_first_audio_ms.p50)) p95 \(ms(o.time_to_first_audio_ms.p95))"]
        let missing = o.missing_audio_ms_per_minute
        if missing.count > 0 { parts.append("missing p50 \(ms(missing.p50)) p95 \(ms(missing.p95)) a minute") }
        if o.mouth_to_ear_ms.count > 0 { parts.append("mouth-to-ear p50 \(ms(o.mouth_to_ear_ms.p50)) p95 \(ms(o.mouth_to_ear_ms.p95))") }
        if o.av_offset_ms.count > 0 { parts.append("A/V offset p50 \(ms(o.av_offset_ms.p50))") }
        return [Draw.text(left, 86, parts.joined(separator: "; "), size: 12, fill: audioColor)]
    }
}
