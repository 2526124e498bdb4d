import Foundation
import GStreamer
import Synchronization

/// `receive.video.mosaic` in a room: every publisher's video composed into one picture —
/// a grid, ordered by publisher name, each picture scaled into its cell with its aspect
/// ratio kept — which then goes through the branch's filters and sink like any received video.
/// The grid is laid out again whenever a publisher's stream arrives or leaves.
package final class Mosaic: Sendable {
    package let compositor: Element
    package let width: Int
    package let height: Int
    /// The compositor pad of each MID of the subscription.
    private let pads = Mutex<[String: Pad]>([:])

    package init(compositor: Element, width: Int, height: Int) {
        self.compositor = compositor; self.width = width; self.height = height
    }

    package func add(_ pad: Pad, mid: String) { pads.withLock { $0[mid] = pad } }

    /// Places the pads of the MIDs that carry a publisher now in a grid; hides the others.
    package func layout(_ streams: RoomStreams) {
        let all = pads.withLock { $0 }
        var live: [(name: String, pad: Pad)] = []
        for (mid, pad) in all {
            if let r = streams.slot(mid: mid)?.record, !r.left.load(ordering: .relaxed) {
                live.append((r.publisher, pad))
            } else {
                try? pad.set("alpha", 0.0)
            }
        }
        live.sort { $0.name < $1.name }
        let cells = Self.grid(count: live.count, width: width, height: height)
        for (i, entry) in live.enumerated() {
            let c = cells[i]
            try? entry.pad.set("xpos", fromString: String(c.x))
            try? entry.pad.set("ypos", fromString: String(c.y))
            try? entry.pad.set("width", fromString: String(c.w))
            try? entry.pad.set("height", fromString: String(c.h))
            try? entry.pad.set("alpha", 1.0)
        }
    }

    /// `count` cells in a near-square grid filling `width` x `height`, row by row.
    package static func grid(count: Int, width: Int, height: Int) -> [(x: Int, y: Int, w: Int, h: Int)] {
        guard count > 0 else { return [] }
        let columns = Int(Double(count).squareRoot().rounded(.up))
        let rows = (count + columns - 1) / columns
        let w = width / columns, h = height / rows
        return (0..<count).map { i in (x: (i % columns) * w, y: (i / columns) * h, w: w, h: h) }
    }
}

extension GraphBuilder {
    /// Builds compositor → the mosaic's size → the video branch's filters and sink, before
    /// the pipeline plays. Publishers' streams join it as they arrive.
    package func prepareMosaic(_ branch: ReceiveBranchSpec, _ spec: MosaicSpec) throws(RunError) {
        let compositor = try make("compositor", [("background", "black")], at: spec.location)
        // A black live picture underneath: the mosaic runs (black) before anyone publishes, and an
        // aggregator without any input would end its stream at once.
        let backdrop = try make("videotestsrc", [("is-live", "true"), ("pattern", "black")], at: spec.location)
        let backdropSize = try make(
            "capsfilter", [("caps", "video/x-raw,width=\(spec.width),height=\(spec.height),framerate=30/1")],
            at: spec.location)
        let size = try make(
            "capsfilter", [("caps", "video/x-raw,width=\(spec.width),height=\(spec.height),framerate=30/1,pixel-aspect-ratio=1/1")],
            at: spec.location)
        try prepareLocalReceive(
            branch, source: [backdrop, backdropSize, compositor], format: size,
            convert: try make("videoconvert", at: branch.location), at: spec.location)
        try ignoreInactivePadsOnceFed(compositor, backdrop: backdropSize, at: spec.location)
        counters.receiveVideoWidth.store(spec.width, ordering: .relaxed)
        counters.receiveVideoHeight.store(spec.height, ordering: .relaxed)
        counters.note("receive.video.codec", "mosaic")
        mosaicState.withLock { $0 = Mosaic(compositor: compositor, width: spec.width, height: spec.height) }
    }

    /// The room's mosaic, if the file asks for one.
    package var mosaic: Mosaic? { mosaicState.withLock { $0 } }

    /// Lays the mosaic out again (a publisher's stream arrived or left).
    package func relayoutMosaic() { mosaic?.layout(roomStreams) }

    /// Links a decoded publisher stream into the mosaic.
    package func joinMosaic(_ mosaic: Mosaic, from last: Element, mid: String, at location: SourceLocation?) throws(RunError) {
        guard let pad = mosaic.compositor.requestPad("sink_%u") else {
            throw RunError("the compositor refused another picture", at: location)
        }
        try? pad.set("sizing-policy", fromString: "keep-aspect-ratio")
        try? pad.set("alpha", 0.0)
        guard let out = last.staticPad("src") else { throw RunError("\(last) has no output pad", at: location) }
        do { try out.link(pad) } catch { throw RunError("cannot add a picture to the mosaic: \(error.message)", at: location) }
        mosaic.add(pad, mid: mid)
        mosaic.layout(roomStreams)
    }
}
