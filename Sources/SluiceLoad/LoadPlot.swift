import Foundation
import SluiceRun
import SluiceMeasure

/// Draws a load report as a self-contained SVG (or an HTML page holding it): the CDFs of the
/// clients' connect time, time to first frame and (when audio arrived) time to first audio,
/// the timeline of clients connected and their aggregate bitrate, then, each when the report
/// has samples for it, the glass-to-glass histogram (frames stamped), the mouth-to-ear and
/// A/V offset histograms (sound stamped) and the CDF of missing audio per minute. No scripts,
/// no external resources; the house style of `LatencyPlot`.
public enum LoadPlot {
    /// Where the panels sit on the page, in SVG units.
    package struct Layout {
        package let width = 960.0, left = 70.0, right = 70.0
        package var plotW: Double { width - left - right }
        /// The CDF panel.
        package let top1 = 110.0, h1 = 240.0
        /// The timeline panel.
        package var top2: Double { top1 + h1 + 80 }
        package let h2 = 220.0
        /// The first panel below the timeline (`Panel`), when there is one.
        package var top3: Double { top2 + h2 + 80 }
        /// The height of each panel below the timeline.
        package let h3 = 200.0

        /// The top of the panel below the timeline at `index` (0: the first present one).
        package func lowerTop(_ index: Int) -> Double { top3 + Double(index) * (h3 + 80) }

        /// The page's height with `lower` panels below the timeline.
        package func height(lower: Int) -> Double { (lower == 0 ? top2 + h2 : lowerTop(lower - 1) + h3) + 60 }
    }

    /// The whole picture: the title lines, then the panels (or a note that there is no client).
    public static func svg(_ report: LoadReport) -> String {
        let layout = Layout()
        // Below the timeline, each panel the report has samples for takes the next place.
        let lower = report.clients.isEmpty ? [] : Panel.allCases.filter { $0.isPresent(in: report) }
        let height = layout.height(lower: lower.count)
        var out = [
            ##"<svg xmlns="http://www.w3.org/2000/svg" width="\##(Int(layout.width))" height="\##(Int(height))" viewBox="0 0 \##(Int(layout.width)) \##(Int(height))" font-family="sans-serif" font-size="12">"##,
            ##"<rect width="100%" height="100%" fill="white"/>"##
        ]
        out += header(report, layout: layout)
        guard !report.clients.isEmpty else {
            out.append(Draw.text(layout.left, layout.top1 + layout.h1 / 2, "no client in the report: nothing to plot", size: 14))
            out.append("</svg>")
            return out.joined(separator: "\n")
        }
        out += cdfPanel(report.clients, layout: layout)
        out += timelinePanel(report.timeline, layout: layout)
        for (i, panel) in lower.enumerated() { out += panel.draw(report, top: layout.lowerTop(i), layout: layout) }
        out.append("</svg>")
        return out.joined(separator: "\n")
    }

    /// The SVG in a minimal HTML page, titled after the run.
    public static func html(_ report: LoadReport) -> String {
        let title = Draw.escape("sluice load — \(report.pipeline) → \(report.target)")
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head><meta charset="utf-8"><title>\(title)</title></head>
            <body style="margin: 0; background: white">
            \(svg(report))
            </body>
            </html>

            """
    }

    /// The title (pipeline, target), the setup (clients, duration, shard) and the outcome with
    /// the headline percentiles.
    private static func header(_ report: LoadReport, layout: Layout) -> [String] {
        let o = report.overall, left = layout.left
        func ms(_ v: Double?) -> String { v.map { String(format: "%.0f ms", $0) } ?? "-" }
        let setup =
            "\(report.clients.count) clients (\(report.clients_planned) planned)" + String(format: ", %.1f s", report.duration_s)
            + (report.shard.map { ", shard \($0)" } ?? "")
        let rate = o.success_rate.map { String(format: " (%.1f%%)", $0 * 100) } ?? ""
        let figures =
            "\(o.succeeded) of \(o.clients) succeeded\(rate); connect p50 \(ms(o.connect_ms.p50)) p95 \(ms(o.connect_ms.p95)); "
            + "first frame p50 \(ms(o.time_to_first_frame_ms.p50)) p95 \(ms(o.time_to_first_frame_ms.p95))"
        return [
            Draw.text(left, 24, "load \(report.pipeline) → \(report.target)", size: 16, weight: "bold"),
            Draw.text(left, 44, setup, size: 12, fill: "#555"),
            Draw.text(left, 66, figures, size: 13)
        ] + audioHeader(o, left: left)
    }
}
