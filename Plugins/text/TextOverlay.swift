import SluiceFilterKit

/// Writes a line of text (or several, split at `\n`) on the picture in white, on a black box,
/// with Sluice's own 5×7 bitmap font (`Font5x7`: capitals, digits, punctuation; lower case
/// is drawn in capitals, other characters as `?`). It needs no font library, so it works
/// where GStreamer's `textoverlay` (the pango plugin) is not installed, and it is what a
/// fallback slate's `text:` uses.
///
/// - `text`: what to write; empty leaves the frame as is.
/// - `position`: `top-left`, `top`, `top-right`, `left`, `center`, `right`, `bottom-left`
///   (default), `bottom` or `bottom-right`, a margin of two font units from the edges.
/// - `size`: pixels per font unit, 1–64 (a glyph is 5×7 units in a 6×8 cell); 0 (default)
///   picks `max(1, height / 90)`: 8 at 720p, 4 at 360p.
/// - `box`: a black box behind the text, one unit around it (default true).
///
/// The text is clipped to the frame. In 4:2:0 formats the chroma under the box (or under
/// each inked pixel without a box) is set to neutral, so the text stays white on any picture.
public final class TextOverlay: FrameFilter {
    public static let name = "text"
    public static let summary = "Writes text on the picture (built-in 5x7 font, white on a black box)"
    public static let formats: [PixelFormat] = [.i420, .nv12, .rgba, .bgrx]
    public static let positions = ["top-left", "top", "top-right", "left", "center", "right", "bottom-left", "bottom", "bottom-right"]
    public static let parameters: [FilterParameter] = [
        FilterParameter("text", .string(choices: nil), default: .string(""), summary: "what to write (\\n starts a line)"),
        FilterParameter(
            "position", .string(choices: positions), default: .string("bottom-left"), summary: "where, inside a small margin"),
        FilterParameter("size", .integer(min: 0, max: 64), default: .integer(0), summary: "pixels per font unit (0: height / 90)"),
        FilterParameter("box", .boolean, default: .boolean(true), summary: "a black box behind the text")
    ]

    /// The lines to write.
    public let lines: [[Character]]
    /// Each character's glyph rows, looked up once here rather than for every pixel.
    private let glyphs: [[[UInt8]]]
    /// One of `positions`.
    public let position: String
    /// Pixels per font unit; 0 picks one from the frame's height.
    public let size: Int
    /// Whether a black box is drawn behind the text.
    public let box: Bool

    public convenience init(configuration: FilterConfiguration) throws {
        self.init(
            text: configuration.string("text"), position: configuration.string("position"),
            size: configuration.integer("size"), box: configuration.boolean("box"))
    }

    /// Text written at `position` (unknown positions are `bottom-left`), `size` clamped to 0–64.
    public init(text: String, position: String = "bottom-left", size: Int = 0, box: Bool = true) {
        lines = Self.lines(of: text)
        glyphs = lines.map { $0.map(Font5x7.rows(of:)) }
        self.position = Self.positions.contains(position) ? position : "bottom-left"
        self.size = min(max(size, 0), 64)
        self.box = box
    }

    /// `text` cut at its line breaks and at the two characters `\n` (as a YAML plain scalar
    /// or a filter property gives them).
    static func lines(of text: String) -> [[Character]] {
        var out: [[Character]] = [[]]
        var rest = Substring(text)
        while let c = rest.first {
            rest = rest.dropFirst()
            if c.isNewline || (c == "\\" && rest.first == "n") {
                if c == "\\" { rest = rest.dropFirst() }
                out.append([])
            } else {
                out[out.count - 1].append(c)
            }
        }
        return out
    }

    /// Where the text goes in a frame: the box (clipped later) and the font unit.
    public struct Layout: Equatable, Sendable {
        /// Pixels per font unit.
        public var unit: Int
        /// The box's top-left corner and size, in pixels (the text starts one unit inside it);
        /// even, so that 4:2:0 chroma covers it exactly. It may reach past the frame.
        public var x: Int, y: Int, width: Int, height: Int

        /// A layout of `unit` pixels per font unit and a box at `(x, y)` of `width`×`height`.
        public init(unit: Int, x: Int, y: Int, width: Int, height: Int) {
            self.unit = unit; self.x = x; self.y = y; self.width = width; self.height = height
        }
    }

    /// The layout of this text in a `width`×`height` frame; nil when there is nothing to write.
    public func layout(width: Int, height: Int) -> Layout? {
        let columns = lines.map(\.count).max() ?? 0
        guard columns > 0 else { return nil }
        let unit = size > 0 ? size : max(1, height / 90)
        let w = (columns * Font5x7.cellWidth + 1) * unit, h = (lines.count * Font5x7.cellHeight + 1) * unit
        let margin = 2 * unit
        let horizontal = position.hasSuffix("left") ? 0 : position.hasSuffix("right") ? 2 : 1
        let vertical = position.hasPrefix("top") ? 0 : position.hasPrefix("bottom") ? 2 : 1
        let x = [margin, (width - w) / 2, width - w - margin][horizontal]
        let y = [margin, (height - h) / 2, height - h - margin][vertical]
        return Layout(unit: unit, x: max(0, x) & ~1, y: max(0, y) & ~1, width: (w + 1) & ~1, height: (h + 1) & ~1)
    }

    /// Whether the pixel at `(px, py)` of a frame with `layout` is ink.
    func inked(_ px: Int, _ py: Int, in layout: Layout) -> Bool {
        let u = layout.unit
        let fx = (px - layout.x - u), fy = (py - layout.y - u)
        guard fx >= 0, fy >= 0 else { return false }
        let line = fy / u / Font5x7.cellHeight, column = fx / u / Font5x7.cellWidth
        guard line < glyphs.count, column < glyphs[line].count else { return false }
        let gx = fx / u % Font5x7.cellWidth, gy = fy / u % Font5x7.cellHeight
        guard gx < Font5x7.glyphWidth, gy < Font5x7.glyphHeight else { return false }
        return glyphs[line][column][gy] & (0x10 >> UInt8(gx)) != 0
    }

    public func process(_ frame: borrowing Frame, context: FilterContext) throws -> FilterVerdict {
        guard let layout = layout(width: frame.width, height: frame.height) else { return .keep }
        let x1 = min(layout.x + layout.width, frame.width), y1 = min(layout.y + layout.height, frame.height)
        guard layout.x < x1, layout.y < y1 else { return .keep }
        let area = Area(x0: layout.x, y0: layout.y, x1: x1, y1: y1)
        switch frame.format {
        case .i420:
            drawLuma(frame.plane(0), area, layout)
            neutralChroma(frame.plane(1), area, layout, bytesPerSample: 1)
            neutralChroma(frame.plane(2), area, layout, bytesPerSample: 1)
        case .nv12:
            drawLuma(frame.plane(0), area, layout)
            neutralChroma(frame.plane(1), area, layout, bytesPerSample: 2)
        case .rgba, .bgrx:
            drawPacked(frame.plane(0), area, layout, opaque: frame.format == .rgba)
        }
        return .keep
    }

    /// The clipped box, in luma pixels.
    struct Area {
        var x0: Int, y0: Int, x1: Int, y1: Int
    }

    private func drawLuma(_ plane: Plane, _ a: Area, _ layout: Layout) {
        for py in a.y0..<a.y1 {
            let row = plane.row(py)
            for px in a.x0..<a.x1 {
                if inked(px, py, in: layout) {
                    row[px] = 235
                } else if box {
                    row[px] = 16
                }
            }
        }
    }

    /// Sets the chroma under the box (or under ink, without a box) to neutral grey.
    private func neutralChroma(_ plane: Plane, _ a: Area, _ layout: Layout, bytesPerSample bps: Int) {
        for cy in (a.y0 / 2)..<min((a.y1 + 1) / 2, plane.height) {
            let row = plane.row(cy)
            for cx in (a.x0 / 2)..<min((a.x1 + 1) / 2, plane.width) {
                guard box || (0..<4).contains(where: { inked(cx * 2 + $0 % 2, cy * 2 + $0 / 2, in: layout) }) else { continue }
                for b in 0..<bps { row[cx * bps + b] = 128 }
            }
        }
    }

    private func drawPacked(_ plane: Plane, _ a: Area, _ layout: Layout, opaque: Bool) {
        for py in a.y0..<a.y1 {
            let row = plane.row(py)
            for px in a.x0..<a.x1 {
                let ink = inked(px, py, in: layout)
                guard ink || box else { continue }
                let value: UInt8 = ink ? 255 : 0
                // RGBA's alpha is made opaque; BGRx's x byte is left as it is.
                for c in 0..<3 { row[px * 4 + c] = value }
                if opaque { row[px * 4 + 3] = 255 }
            }
        }
    }
}
