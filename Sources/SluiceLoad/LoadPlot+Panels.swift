import Foundation
import SluiceRun
import SluiceMeasure

extension LoadPlot {
    /// Panel 1: the CDFs of connect time, time to first frame and, when any client heard
    /// audio, time to first audio, as shares of every client in the report (a curve that stops
    /// short of 100% tells how many never got there).
    package static func cdfPanel(_ rows: [LoadClientRow], layout: Layout) -> [String] {
        let left = layout.left, plotW = layout.plotW, top = layout.top1, h = layout.h1
        let series = cdfSeries(rows)
        let xMax = Draw.niceCeiling(max(series.flatMap(\.values).max() ?? 1, 1) * 1.05)
        func x(_ ms: Double) -> Double { left + min(max(ms, 0), xMax) / xMax * plotW }
        func y(_ share: Double) -> Double { top + h - share * h }
        let reached = series.count > 2 ? "connected, with a first frame and with first audio" : "connected and with a first frame"
        var out = [Draw.text(left, top - 10, "share of clients (%) \(reached), by ms since their request", size: 13, weight: "bold")]
        out += Draw.axes(left: left, top: top, width: plotW, height: h)
        out += Draw.yGrid([0, 0.25, 0.5, 0.75, 1], y: y, left: left, width: plotW) { Draw.format($0 * 100) }
        for v in Draw.ticks(0, xMax) { out.append(Draw.text(x(v), top + h + 16, Draw.format(v), anchor: "middle")) }
        for (i, s) in series.enumerated() {
            if !s.values.isEmpty {
                out.append(Draw.path(id: s.id, steps(s.values, of: rows.count).map { Point(x: x($0.x), y: y($0.y)) }, stroke: s.color, dash: s.dash))
            }
            // The legend from the bottom up, the last series lowest.
            let share = Double(s.values.count) / Double(rows.count) * 100, line = Double(series.count - 1 - i)
            out.append(
                Draw.text(left + plotW - 4, top + h - 16 - line * 14, String(format: "%@ (%.0f%%)", s.name, share), anchor: "end", fill: s.color))
        }
        out.append(Draw.text(left + plotW / 2, top + h + 36, "ms since the client's request", anchor: "middle"))
        return out
    }

    /// The curves of panel 1: connect and first frame always, first audio when a client heard any.
    private static func cdfSeries(_ rows: [LoadClientRow]) -> [CDFSeries] {
        let firstAudio = rows.compactMap { $0.audio?.time_to_first_audio_ms }.sorted()
        return [
            CDFSeries(id: "cdf-connect", name: "connect", values: rows.compactMap(\.connect_ms).sorted(), color: "#1f77b4"),
            CDFSeries(id: "cdf-first-frame", name: "first frame", values: rows.compactMap(\.time_to_first_frame_ms).sorted(), color: "#ff7f0e")
        ]
            // Dashed: first audio often comes with the first frame, whose curve then shows through.
            + (firstAudio.isEmpty ? [] : [CDFSeries(id: "cdf-first-audio", name: "first audio", values: firstAudio, color: audioColor, dash: "6 3")])
    }

    /// One CDF curve.
    private struct CDFSeries {
        /// The path's id in the SVG.
        var id: String
        /// Its legend.
        var name: String
        /// The values, sorted.
        var values: [Double]
        /// Its colour.
        var color: String
        /// Its dashes (nil: a solid line).
        var dash: String? = nil
    }

    /// The empirical CDF of sorted, non-empty `values` as a step curve (value, share of `total`).
    package static func steps(_ values: [Double], of total: Int) -> [Point] {
        var points = [Point(x: values[0], y: 0)]
        for (i, v) in values.enumerated() {
            points.append(Point(x: v, y: Double(i) / Double(total)))
            points.append(Point(x: v, y: Double(i + 1) / Double(total)))
        }
        return points
    }

    /// Panel 2: clients connected (left axis) and their aggregate video bitrate (right axis,
    /// Mbit/s), second by second.
    package static func timelinePanel(_ seconds: [LoadSecond], layout: Layout) -> [String] {
        let left = layout.left, plotW = layout.plotW, top = layout.top2, h = layout.h2
        let tMax = Double(max(seconds.count, 1))
        let cMax = Draw.niceCeiling(Double(max(seconds.map(\.clients_connected).max() ?? 1, 1)) * 1.05)
        let bMax = Draw.niceCeiling(max((seconds.map(\.bitrate_kbps).max() ?? 0) / 1000, 0.001) * 1.05)
        func x(_ t: Double) -> Double { left + t / tMax * plotW }
        func yc(_ c: Double) -> Double { top + h - c / cMax * h }
        func yb(_ mbps: Double) -> Double { top + h - mbps / bMax * h }
        var out = [
            Draw.text(left, top - 10, "clients connected (blue, left) and their video bitrate in Mbit/s (green, right), by second", size: 13, weight: "bold")
        ]
        out += Draw.axes(left: left, top: top, width: plotW, height: h)
        out.append(Draw.line(left + plotW, top, left + plotW, top + h, stroke: "#333"))
        out += Draw.yGrid(Draw.ticks(0, cMax), y: yc, left: left, width: plotW)
        out += Draw.yGrid(Draw.ticks(0, bMax), y: yb, left: left, width: plotW, rightAxis: true)
        for v in Draw.ticks(0, tMax) { out.append(Draw.text(x(v), top + h + 16, Draw.format(v), anchor: "middle")) }
        // Each second's value is drawn at its middle.
        let clients = seconds.map { Point(x: x(Double($0.t) + 0.5), y: yc(Double($0.clients_connected))) }
        let bitrate = seconds.map { Point(x: x(Double($0.t) + 0.5), y: yb($0.bitrate_kbps / 1000)) }
        if !seconds.isEmpty {
            out.append(Draw.path(id: "timeline-clients", clients, stroke: "#1f77b4"))
            out.append(Draw.path(id: "timeline-bitrate", bitrate, stroke: "#2ca02c"))
        }
        out.append(Draw.text(left + plotW / 2, top + h + 36, "seconds since the run started", anchor: "middle"))
        return out
    }

    /// Every glass-to-glass delay in about 40 bins, with the p50, p95 and p99 marks: the first
    /// panel below the timeline, at `top`.
    package static func glassToGlassPanel(_ d: LoadDistribution, top: Double, layout: Layout) -> [String] {
        delayPanel(
            d, top: top, layout: layout,
            names: .init(id: "glass-to-glass", title: "glass-to-glass delay: frames", axis: "glass-to-glass delay (ms)"))
    }

    /// What a delay panel is called: its SVG group id, title and axis label.
    package struct DelayNames {
        /// The id of the SVG group holding the bars.
        package var id: String
        /// The title, before "per N ms, all decoding clients".
        package var title: String
        /// The x axis's label.
        package var axis: String
    }

    /// A delay histogram in about 40 bins, with the p50, p95 and p99 marks. Signed values (an
    /// A/V offset) bin as well as positive ones; a range that spans 0 gets a solid line there.
    package static func delayPanel(_ d: LoadDistribution, top: Double, layout: Layout, names: DelayNames) -> [String] {
        let left = layout.left, plotW = layout.plotW, h = layout.h3
        let lo = floor(d.min ?? 0), hi = max(ceil(d.max ?? 1), lo + 1)
        let binWidth = LatencyPlot.niceBin((hi - lo) / 40), start = floor(lo / binWidth) * binWidth
        let count = max(1, Int(ceil((hi - start) / binWidth)) + 1)
        var bins = Array(repeating: 0, count: count)
        for b in d.buckets { bins[min(count - 1, max(0, Int((b.value - start) / binWidth)))] += b.count }
        let cMax = Draw.niceCeiling(Double(bins.max() ?? 1))
        func x(_ ms: Double) -> Double { left + (ms - start) / (Double(count) * binWidth) * plotW }
        func y(_ c: Double) -> Double { top + h - c / cMax * h }
        var out = [Draw.text(left, top - 10, "\(names.title) per \(Draw.format(binWidth)) ms, all decoding clients", size: 13, weight: "bold")]
        out += Draw.axes(left: left, top: top, width: plotW, height: h)
        out += Draw.yGrid(Draw.ticks(0, cMax), y: y, left: left, width: plotW)
        for v in Draw.ticks(start, start + Double(count) * binWidth) { out.append(Draw.text(x(v), top + h + 16, Draw.format(v), anchor: "middle")) }
        out.append(##"<g id="\##(names.id)">"##)
        for (i, c) in bins.enumerated() where c > 0 {
            let x0 = x(start + Double(i) * binWidth), x1 = x(start + Double(i + 1) * binWidth)
            out.append(
                String(
                    format: ##"<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#1f77b4"/>"##,
                    x0 + 0.5, y(Double(c)), max(0.5, x1 - x0 - 1), top + h - y(Double(c))))
        }
        out.append("</g>")
        if start < 0, start + Double(count) * binWidth > 0 {
            out += [##"<g id="\##(names.id)-zero">"##, Draw.line(x(0), top, x(0), top + h, stroke: "#333"), "</g>"]
        }
        for (i, (name, v, color)) in [("p50", d.p50, "#2ca02c"), ("p95", d.p95, "#ff7f0e"), ("p99", d.p99, "#d62728")].enumerated() {
            guard let v else { continue }
            out.append(Draw.line(x(v), top, x(v), top + h, stroke: color, dash: "6 4"))
            out.append(Draw.text(left + plotW - 4, top + 14 + Double(i) * 14, String(format: "%@ %.1f ms", name, v), anchor: "end", fill: color))
        }
        out.append(Draw.text(left + plotW / 2, top + h + 36, names.axis, anchor: "middle"))
        return out
    }
}
