import Foundation
import SluiceRun

/// Draws a measurement as a self-contained SVG: latency over time (every frame, with the
/// p50 and p95 lines, and every audio stamp's mouth-to-ear delay) above its histogram, and,
/// when the report has them, the bitrates over time with the network conditions and the A/V
/// offset second by second. No scripts, no external resources.
public enum LatencyPlot {
    /// Where the panels sit on the page, in SVG units.
    struct Layout {
        let width = 960.0, left = 70.0, right = 30.0
        var plotW: Double { width - left - right }
        /// The time series panel.
        let top1 = 110.0, h1 = 260.0
        /// The histogram panel.
        var top2: Double { top1 + h1 + 70 }
        let h2 = 200.0
        /// The bitrate panel, when there are bitrates.
        var top3: Double { top2 + h2 + 80 }
        let h3 = 200.0
        /// The A/V offset panel's height.
        let h4 = 140.0

        /// The A/V offset panel, when there are offsets: below the bitrate panel when there is
        /// one, else below the histogram.
        func top4(bitrate: Bool) -> Double { (bitrate ? top3 + h3 : top2 + h2) + 80 }

        /// The page's height with the panels present.
        func height(bitrate: Bool, avOffset: Bool) -> Double {
            (avOffset ? top4(bitrate: bitrate) + h4 : bitrate ? top3 + h3 : top2 + h2) + 60
        }
    }

    /// One frame read back: seconds since the start and its latency in ms.
    private struct Point {
        var t: Double
        var ms: Double
    }

    /// Latencies counted into bins of `binWidth` ms, the first starting at `start`.
    private struct Histogram {
        var start: Double
        var binWidth: Double
        var bins: [Int]
    }

    /// The whole picture: the title lines, then the latency and histogram panels (or a note
    /// that nothing was read back), then the bitrate panel when the report has bitrates and
    /// the A/V offset panel when it has offsets.
    public static func svg(_ report: MeasureReport) -> String {
        let layout = Layout()
        let width = layout.width
        let points = report.samples.compactMap { s -> Point? in s.count >= 3 ? Point(t: s[0], ms: s[2]) : nil }
        let offsets = points.isEmpty ? [] : avOffsetSeconds(report.audio)
        let height = layout.height(bitrate: !report.bitrate.isEmpty, avOffset: !offsets.isEmpty)
        var out: [String] = []
        out.append(
            ##"<svg xmlns="http://www.w3.org/2000/svg" width="\##(Int(width))" height="\##(Int(height))" viewBox="0 0 \##(Int(width)) \##(Int(height))" font-family="sans-serif" font-size="12">"##
        )
        out.append(##"<rect width="100%" height="100%" fill="white"/>"##)
        out += header(report, layout: layout)
        guard !points.isEmpty else {
            out.append(text(layout.left, layout.top1 + layout.h1 / 2, "no frame was read back: nothing to plot", size: 14))
            out.append("</svg>")
            return out.joined(separator: "\n")
        }
        let tMax = max(report.duration_s, points.map(\.t).max() ?? 1, 1)
        let heard = (report.audio?.samples ?? []).compactMap { s -> Point? in s.count >= 2 ? Point(t: s[0], ms: s[1]) : nil }
        out += latencyPanel(points, audio: heard, latency: report.latency, layout: layout, tMax: tMax)
        out += histogramPanel(histogram(points.map(\.ms)), latency: report.latency, layout: layout)
        if !report.bitrate.isEmpty {
            out += bitratePanel(report, left: layout.left, top: layout.top3, width: layout.plotW, height: layout.h3, tMax: tMax)
        }
        if !offsets.isEmpty {
            out += avOffsetPanel(offsets, top: layout.top4(bitrate: !report.bitrate.isEmpty), layout: layout, tMax: tMax)
        }
        out.append("</svg>")
        return out.joined(separator: "\n")
    }

    /// The title (pipeline, size, codec), the setup (processes, netem, duration) and the
    /// figures (percentiles, frames read, lost, delivered rate, unreadable).
    private static func header(_ report: MeasureReport, layout: Layout) -> [String] {
        let l = report.latency, left = layout.left
        let title = "\(report.pipeline) — \(report.width)x\(report.height) \(report.codec ?? "")"
        let setup =
            (report.processes == 1 ? "one process" : "two processes") + (report.netem.map { ", netem \($0)" } ?? "")
            + String(format: ", %.1f s", report.duration_s)
        return [
            text(left, 24, title, size: 16, weight: "bold"),
            text(left, 44, setup, size: 12, fill: "#555"),
            text(
                left, 66,
                String(
                    format: "p50 %@  p95 %@  p99 %@  max %@   %d frames read, %d lost, %.1f fps delivered, %d unreadable",
                    f(l.p50_ms), f(l.p95_ms), f(l.p99_ms), f(l.max_ms), report.frames.received,
                    report.frames.lost, report.delivered_fps, report.frames.unreadable), size: 13)
        ] + audioHeader(report.audio, left: left)
    }

    /// The audio line under the figures, when the report has audio: mouth-to-ear and the A/V offset.
    private static func audioHeader(_ audio: AudioMeasurement?, left: Double) -> [String] {
        guard let audio else { return [] }
        let m = audio.mouth_to_ear, o = audio.av_offset
        let line =
            audio.note
            ?? String(
                format: "audio mouth-to-ear p50 %@  p95 %@  p99 %@   A/V offset p50 %@ (audio minus video)   %d stamps read",
                f(m.p50_ms), f(m.p95_ms), f(m.p99_ms), f(o.p50_ms), audio.stamps_read)
        return [text(left, 86, line, size: 13, fill: "#9467bd")]
    }

    /// Panel 1: every frame's latency over time, consecutive frames joined, with the p50, p95
    /// and p99 lines.
    private static func latencyPanel(
        _ points: [Point], audio: [Point], latency l: LatencyFigures, layout: Layout, tMax: Double
    ) -> [String] {
        let left = layout.left, plotW = layout.plotW, top1 = layout.top1, h1 = layout.h1
        var out: [String] = []
        let yMax = niceCeiling(max((points + audio).map(\.ms).max() ?? 1, 1) * 1.05)
        func x(_ t: Double) -> Double { left + t / tMax * plotW }
        func y1(_ ms: Double) -> Double { top1 + h1 - min(ms, yMax) / yMax * h1 }
        out.append(text(left, top1 - 10, "glass-to-glass latency per frame (ms) over time (s)", size: 13, weight: "bold"))
        out += axes(left: left, top: top1, width: plotW, height: h1)
        for v in ticks(0, yMax) {
            out.append(line(left - 4, y1(v), left + plotW, y1(v), stroke: "#e5e5e5"))
            out.append(text(left - 8, y1(v) + 4, label(v), anchor: "end"))
        }
        for v in ticks(0, tMax) {
            out.append(text(x(v), top1 + h1 + 16, label(v), anchor: "middle"))
        }
        // Consecutive frames are joined; a gap (frames lost or unreadable) breaks the line.
        var path = ""
        for (i, p) in points.enumerated() {
            let joined = i > 0 && p.t - points[i - 1].t < 0.25
            path += (joined ? "L" : "M") + String(format: "%.1f %.1f", x(p.t), y1(p.ms))
        }
        out.append(##"<path d="\##(path)" fill="none" stroke="#9ab" stroke-width="0.8"/>"##)
        for p in points { out.append(String(format: ##"<circle cx="%.1f" cy="%.1f" r="1.6" fill="#1f77b4"/>"##, x(p.t), y1(p.ms))) }
        for (name, v, color) in [("p50", l.p50_ms, "#2ca02c"), ("p95", l.p95_ms, "#ff7f0e"), ("p99", l.p99_ms, "#d62728")] {
            guard let v else { continue }
            out.append(line(left, y1(v), left + plotW, y1(v), stroke: color, dash: "6 4"))
            out.append(text(left + plotW - 4, y1(v) - 4, "\(name) \(f(v))", anchor: "end", fill: color))
        }
        guard !audio.isEmpty else { return out }
        // Each audio stamp read, its mouth-to-ear delay, as a square over the frames' dots.
        out.append(##"<g id="audio">"##)
        for p in audio {
            out.append(String(format: ##"<rect x="%.1f" y="%.1f" width="5" height="5" fill="#9467bd"/>"##, x(p.t) - 2.5, y1(p.ms) - 2.5))
        }
        out.append("</g>")
        out.append(text(left + 8, top1 + 14, "● video frames (glass-to-glass)   ■ audio stamps (mouth-to-ear)", fill: "#555"))
        return out
    }

    /// The latencies in about 40 bins of a round width (at least 0.1 ms) covering them all.
    private static func histogram(_ values: [Double]) -> Histogram {
        let lo = floor(values.min() ?? 0), hi = max(ceil(values.max() ?? 1), lo + 1)
        let binWidth = niceBin((hi - lo) / 40)
        let start = floor(lo / binWidth) * binWidth
        let count = max(1, Int(ceil((hi - start) / binWidth)) + 1)
        var bins = Array(repeating: 0, count: count)
        for v in values { bins[min(count - 1, max(0, Int((v - start) / binWidth)))] += 1 }
        return Histogram(start: start, binWidth: binWidth, bins: bins)
    }

    /// Panel 2: the histogram's bars, with the p50, p95 and p99 marks.
    private static func histogramPanel(_ h: Histogram, latency l: LatencyFigures, layout: Layout) -> [String] {
        let left = layout.left, plotW = layout.plotW, top2 = layout.top2, h2 = layout.h2
        let start = h.start, binWidth = h.binWidth, bins = h.bins, count = h.bins.count
        var out: [String] = []
        let cMax = Double(bins.max() ?? 1)
        func x2(_ ms: Double) -> Double { left + (ms - start) / (Double(count) * binWidth) * plotW }
        func y2(_ c: Double) -> Double { top2 + h2 - c / niceCeiling(cMax) * h2 }
        out.append(text(left, top2 - 10, String(format: "histogram: frames per %@ ms of latency", label(binWidth)), size: 13, weight: "bold"))
        out += axes(left: left, top: top2, width: plotW, height: h2)
        for v in ticks(0, niceCeiling(cMax)) {
            out.append(line(left - 4, y2(v), left + plotW, y2(v), stroke: "#e5e5e5"))
            out.append(text(left - 8, y2(v) + 4, label(v), anchor: "end"))
        }
        for v in ticks(start, start + Double(count) * binWidth) {
            out.append(text(x2(v), top2 + h2 + 16, label(v), anchor: "middle"))
        }
        for (i, c) in bins.enumerated() where c > 0 {
            let x0 = x2(start + Double(i) * binWidth), x1 = x2(start + Double(i + 1) * binWidth)
            out.append(
                String(
                    format: ##"<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#1f77b4"/>"##,
                    x0 + 0.5, y2(Double(c)), max(0.5, x1 - x0 - 1), top2 + h2 - y2(Double(c))))
        }
        for (v, color) in [(l.p50_ms, "#2ca02c"), (l.p95_ms, "#ff7f0e"), (l.p99_ms, "#d62728")] {
            guard let v else { continue }
            out.append(line(x2(v), top2, x2(v), top2 + h2, stroke: color, dash: "6 4"))
        }
        out.append(text(left + plotW / 2, top2 + h2 + 36, "latency (ms)", anchor: "middle"))
        return out
    }

    /// Panel 3: target, encoder and RTP bitrates each second, the conditions' rate limits as
    /// a grey step line, and a mark where each condition starts.
    private static func bitratePanel(
        _ report: MeasureReport, left: Double, top: Double, width: Double, height: Double,
        tMax: Double
    ) -> [String] {
        var out: [String] = []
        let values =
            report.bitrate.flatMap { [$0.target_kbps, $0.encoder_kbps, $0.rtp_kbps].compactMap { $0 } }
            + report.conditions.compactMap(\.rate_kbps)
        let yMax = niceCeiling(max(values.max() ?? 1, 1) * 1.05)
        func x(_ t: Double) -> Double { left + min(max(t, 0), tMax) / tMax * width }
        func y(_ kbps: Double) -> Double { top + height - min(kbps, yMax) / yMax * height }
        out.append(
            text(
                left, top - 10, "bitrate (kbit/s) over time (s): target, encoder, RTP on the link; grey: the link's rate",
                size: 13, weight: "bold"))
        out += axes(left: left, top: top, width: width, height: height)
        for v in ticks(0, yMax) {
            out.append(line(left - 4, y(v), left + width, y(v), stroke: "#e5e5e5"))
            out.append(text(left - 8, y(v) + 4, label(v), anchor: "end"))
        }
        for v in ticks(0, tMax) { out.append(text(x(v), top + height + 16, label(v), anchor: "middle")) }
        for c in report.conditions {
            out.append(line(x(c.from_s), top, x(c.from_s), top + height, stroke: "#999", dash: "2 3"))
            out.append(text(x(c.from_s) + 3, top + 12, c.netem, size: 11, fill: "#666"))
            if let rate = c.rate_kbps {
                out.append(line(x(c.from_s), y(rate), x(c.to_s ?? tMax), y(rate), stroke: "#888"))
            }
        }
        let series: [(String, KeyPath<MeasureReport.BitrateSecond, Double?>, String)] = [
            ("target", \.target_kbps, "#d62728"), ("encoder", \.encoder_kbps, "#2ca02c"), ("RTP", \.rtp_kbps, "#1f77b4")
        ]
        for (i, (name, key, color)) in series.enumerated() {
            let points = report.bitrate.compactMap { row in row[keyPath: key].map { (row.t, $0) } }
            guard !points.isEmpty else { continue }
            let d = points.enumerated().map { j, p in (j == 0 ? "M" : "L") + String(format: "%.1f %.1f", x(p.0), y(p.1)) }.joined()
            out.append(##"<path d="\##(d)" fill="none" stroke="\##(color)" stroke-width="1.5"/>"##)
            out.append(text(left + width - 4, top + 14 + Double(i) * 14, name, anchor: "end", fill: color))
        }
        return out
    }

    // MARK: Drawing helpers

    /// A figure in ms to one decimal, or "-".
    static func f(_ v: Double?) -> String { v.map { String(format: "%.1f ms", $0) } ?? "-" }

    /// The left and bottom axes of a panel.
    static func axes(left: Double, top: Double, width: Double, height: Double) -> [String] {
        [line(left, top, left, top + height, stroke: "#333"), line(left, top + height, left + width, top + height, stroke: "#333")]
    }

    /// A straight line, dashed when `dash` is given.
    static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String, dash: String? = nil) -> String {
        String(
            format: ##"<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%@" stroke-width="1"%@/>"##,
            x1, y1, x2, y2, stroke, dash.map { ##" stroke-dasharray="\##($0)""## } ?? "")
    }

    /// A text label (escaped).
    static func text(
        _ x: Double, _ y: Double, _ s: String, anchor: String = "start", size: Int = 12,
        weight: String = "normal", fill: String = "#222"
    ) -> String {
        String(
            format: ##"<text x="%.1f" y="%.1f" text-anchor="%@" font-size="%d" font-weight="%@" fill="%@">%@</text>"##,
            x, y, anchor, size, weight, fill, escape(s))
    }

    /// `&`, `<`, `>` and `"` as entities.
    package static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// 1, 2 or 5 × 10^k at or above `v`.
    package static func niceCeiling(_ v: Double) -> Double {
        guard v > 0, v.isFinite else { return 1 }
        let p = pow(10, floor(log10(v)))
        for m in [1.0, 2, 5, 10] where m * p >= v { return m * p }
        return 10 * p
    }

    /// A bin width of 1, 2 or 5 × 10^k, at least 0.1 ms.
    package static func niceBin(_ v: Double) -> Double { max(0.1, niceCeiling(v)) }

    /// About five round ticks from `lo` to `hi`.
    package static func ticks(_ lo: Double, _ hi: Double) -> [Double] {
        guard hi > lo else { return [lo] }
        let step = niceCeiling((hi - lo) / 5)
        var out: [Double] = []
        var v = ceil(lo / step) * step
        while v <= hi + step * 1e-9 && out.count < 20 { out.append(v); v += step }
        return out
    }

    /// A tick label: whole numbers plain, others to one decimal.
    static func label(_ v: Double) -> String {
        v == v.rounded() ? String(Int(v)) : String(format: "%.1f", v)
    }
}
