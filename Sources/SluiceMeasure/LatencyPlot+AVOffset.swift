import Foundation
import SluiceRun

extension LatencyPlot {
    /// The colour of audio's figures (the stamps' squares, the audio header, the A/V offset).
    static let audioColor = "#9467bd"

    /// The seconds of `audio` that have an A/V offset (a stamp paired with a frame), in order.
    static func avOffsetSeconds(_ audio: AudioMeasurement?) -> [AudioMeasurement.Second] {
        (audio?.per_second ?? []).filter { $0.av_offset_ms?.isFinite == true }.sorted { $0.t < $1.t }
    }

    /// The A/V offset panel: each second's median A/V offset (audio minus video, ms) at the
    /// middle of its second, on the latency panel's time axis, consecutive seconds joined (a
    /// second without offsets breaks the line), with a solid line at 0: above it audio is late.
    static func avOffsetPanel(_ seconds: [AudioMeasurement.Second], top: Double, layout: Layout, tMax: Double) -> [String] {
        let values = seconds.compactMap(\.av_offset_ms)
        guard let lowest = values.min(), let highest = values.max() else { return [] }
        let left = layout.left, plotW = layout.plotW, h = layout.h4
        // The range holds every offset and 0, with a margin, rounded out to a round step.
        let low = min(lowest * 1.05, 0), high = max(highest * 1.05, 0), step = niceCeiling(max(high - low, 1) / 4)
        let lo = floor(low / step) * step, hi = max(ceil(high / step) * step, lo + step)
        func x(_ t: Double) -> Double { left + min(max(t, 0), tMax) / tMax * plotW }
        func y(_ ms: Double) -> Double { top + h - (min(max(ms, lo), hi) - lo) / (hi - lo) * h }
        var out = [
            text(left, top - 10, "A/V offset (ms, audio minus video; above 0: audio late), median of each second, over time (s)", size: 13, weight: "bold")
        ]
        out += axes(left: left, top: top, width: plotW, height: h)
        for v in ticks(lo, hi) {
            out.append(line(left - 4, y(v), left + plotW, y(v), stroke: "#e5e5e5"))
            out.append(text(left - 8, y(v) + 4, label(v), anchor: "end"))
        }
        for v in ticks(0, tMax) { out.append(text(x(v), top + h + 16, label(v), anchor: "middle")) }
        out += [##"<g id="av-offset-zero">"##, line(left, y(0), left + plotW, y(0), stroke: "#333"), "</g>"]
        var d = ""
        for (i, s) in seconds.enumerated() {
            guard let ms = s.av_offset_ms else { continue }
            let joined = i > 0 && s.t - seconds[i - 1].t == 1
            d += (joined ? "L" : "M") + String(format: "%.1f %.1f", x(Double(s.t) + 0.5), y(ms))
        }
        out.append(##"<path id="av-offset" d="\##(d)" fill="none" stroke="\##(audioColor)" stroke-width="1.5"/>"##)
        // Each second's point a small diamond in a group of its own: circles are the latency
        // panel's frames, one per frame read, and stay so.
        out.append(##"<g id="av-offset-points">"##)
        for s in seconds {
            guard let ms = s.av_offset_ms else { continue }
            let (px, py) = (x(Double(s.t) + 0.5), y(ms))
            out.append(
                String(
                    format: ##"<path d="M%.1f %.1fL%.1f %.1fL%.1f %.1fL%.1f %.1fZ" fill="%@"/>"##, px, py - 3, px + 3, py, px, py + 3, px - 3, py,
                    audioColor))
        }
        out.append("</g>")
        out.append(text(left + plotW - 4, top + 14, "— A/V offset, median of each second's stamps", anchor: "end", fill: audioColor))
        return out
    }
}
