import Foundation
import SluiceRun
import SluiceMeasure

extension LoadPlot {
    /// Panel 1: the CDFs of connect time and time to first frame, as shares of every client in
    /// the report (a curve that stops short of 100% tells how many never got there).
    package static func cdfPanel(_ rows: [LoadClientRow], layout: Layout) -> [String] {
        let left = layout.left, plotW = layout.plotW, top = layout.top1, h = layout.h1
        let connect = rows.compactMap(\.connect_ms).sorted(), first = rows.compactMap(\.time_to_first_frame_ms).sorted()
        let xMax = Draw.niceCeiling(max((connect + first).max() ?? 1, 1) * 1.05)
        func x(_ ms: Double) -> Double { left + min(max(ms, 0), xMax) / xMax * plotW }
        func y(_ share: Double) -> Double { top + h - share * h }
        var out = [Draw.text(left, top - 10, "share of clients (%) connected and with a first frame, by ms since their request", size: 13, weight: "bold")]
        out += Draw.axes(left: left, top: top, width: plotW, height: h)
        out += Draw.yGrid([0, 0.25, 0.5, 0.75, 1], y: y, left: left, width: plotW) { Draw.format($0 * 100) }
        for v in Draw.ticks(0, xMax) { out.append(Draw.text(x(v), top + h + 16, Draw.format(v), anchor: "middle")) }
        let series = [
            CDFSeries(id: "cdf-connect", name: "connect", values: connect, color: "#1f77b4"),
            CDFSeries(id: "cdf-first-frame", name: "first frame", values: first, color: "#ff7f0e")
        ]
        for (i, s) in series.enumerated() {
            if !s.values.isEmpty {
                out.append(Draw.path(id: s.id, steps(s.values, of: rows.count).map { Point(x: x($0.x), y: y($0.y)) }, stroke: s.color))
            }
            let share = Double(s.values.count) / Double(rows.count) * 100
            out.append(Draw.text(left + plotW - 4, top + h - 30 + Double(i) * 14, String(format: "%@ (%.0f%%)", s.name, share), anchor: "end", fill: s.color))
        }
        out.append(Draw.text(left + plotW / 2, top + h + 36, "ms since the client's request", anchor: "middle"))
        return out
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
    }

    /// The empirical CDF of sorted `values` as a step curve (value, share of `total`).
    private static func steps(_ values: [Double], of total: Int) -> [Point] {
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

    /// Panel 3: every glass-to-glass delay in about 40 bins, with the p50, p95 and p99 marks.
    package static func glassToGlassPanel(_ d: LoadDistribution, layout: Layout) -> [String] {
        delayPanel(
            d, top: layout.top3, layout: layout,
            names: .init(id: "glass-to-glass", title: "glass-to-glass delay: frames", axis: "glass-to-glass delay (ms)"))
    }

    /// Panel 4: every mouth-to-ear delay read, as panel 3 draws glass-to-glass.
    package static func mouthToEarPanel(_ d: LoadDistribution, top: Double, layout: Layout) -> [String] {
        delayPanel(
            d, top: top, layout: layout,
            names: .init(id: "mouth-to-ear", title: "mouth-to-ear delay: audio stamps", axis: "mouth-to-ear delay (ms)"))
    }

    /// What a delay panel is called: its SVG group id, title and axis label.
    package struct DelayNames {
        package var id: String, title: String, axis: String
    }

    /// A delay histogram in about 40 bins, with the p50, p95 and p99 marks.
    private static func delayPanel(_ d: LoadDistribution, top: Double, layout: Layout, names: DelayNames) -> [String] {
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
        for (i, (name, v, color)) in [("p50", d.p50, "#2ca02c"), ("p95", d.p95, "#ff7f0e"), ("p99", d.p99, "#d62728")].enumerated() {
            guard let v else { continue }
            out.append(Draw.line(x(v), top, x(v), top + h, stroke: color, dash: "6 4"))
            out.append(Draw.text(left + plotW - 4, top + 14 + Double(i) * 14, String(format: "%@ %.1f ms", name, v), anchor: "end", fill: color))
        }
        out.append(Draw.text(left + plotW / 2, top + h + 36, names.axis, anchor: "middle"))
        return out
    }
}
