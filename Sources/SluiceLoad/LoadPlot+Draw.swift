import Foundation
import SluiceRun
import SluiceMeasure

extension LoadPlot {
    /// SVG elements as text, in the style of `LatencyPlot` (whose rounding helpers it uses).
    package enum Draw {
        /// The left and bottom axes of a panel.
        package static func axes(left: Double, top: Double, width: Double, height: Double) -> [String] {
            [line(left, top, left, top + height, stroke: "#333"), line(left, top + height, left + width, top + height, stroke: "#333")]
        }

        /// A straight line, dashed when `dash` is given.
        package static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, stroke: String, dash: String? = nil) -> String {
            String(
                format: ##"<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%@" stroke-width="1"%@/>"##,
                x1, y1, x2, y2, stroke, dash.map { ##" stroke-dasharray="\##($0)""## } ?? "")
        }

        /// A polyline through `points`, named `id`, dashed when `dash` is given.
        package static func path(id: String, _ points: [Point], stroke: String, width: Double = 1.5, dash: String? = nil) -> String {
            let d = points.enumerated().map { i, p in (i == 0 ? "M" : "L") + String(format: "%.1f %.1f", p.x, p.y) }.joined()
            let dashes = dash.map { ##" stroke-dasharray="\##($0)""## } ?? ""
            return ##"<path id="\##(id)" d="\##(d)" fill="none" stroke="\##(stroke)" stroke-width="\##(width)"\##(dashes)/>"##
        }

        /// A text label (escaped).
        package static func text(
            _ x: Double, _ y: Double, _ s: String, anchor: String = "start", size: Int = 12,
            weight: String = "normal", fill: String = "#222"
        ) -> String {
            String(
                format: ##"<text x="%.1f" y="%.1f" text-anchor="%@" font-size="%d" font-weight="%@" fill="%@">%@</text>"##,
                x, y, anchor, size, weight, fill, escape(s))
        }

        /// Horizontal grid lines with their labels on the left axis, or only the labels on the
        /// right axis.
        package static func yGrid(
            _ values: [Double], y: (Double) -> Double, left: Double, width: Double, rightAxis: Bool = false,
            label: (Double) -> String = format
        ) -> [String] {
            values.flatMap { v -> [String] in
                rightAxis
                    ? [text(left + width + 8, y(v) + 4, label(v), anchor: "start", fill: "#2ca02c")]
                    : [line(left - 4, y(v), left + width, y(v), stroke: "#e5e5e5"), text(left - 8, y(v) + 4, label(v), anchor: "end")]
            }
        }

        /// `&`, `<`, `>` and `"` as entities.
        package static func escape(_ s: String) -> String { LatencyPlot.escape(s) }

        /// 1, 2 or 5 × 10^k at or above `v`.
        package static func niceCeiling(_ v: Double) -> Double { LatencyPlot.niceCeiling(v) }

        /// About five round ticks from `lo` to `hi`.
        package static func ticks(_ lo: Double, _ hi: Double) -> [Double] { LatencyPlot.ticks(lo, hi) }

        /// A tick label: whole numbers plain, others to one decimal.
        package static func format(_ v: Double) -> String {
            v == v.rounded() ? String(Int(v)) : String(format: "%.1f", v)
        }
    }

    /// A point on the page, SVG units.
    package struct Point {
        /// Across, from the left.
        package var x: Double
        /// Down, from the top.
        package var y: Double
    }
}
