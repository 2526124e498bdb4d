// Per-frame cost of frame filters, measured inside one process, side by side:
// GStreamer's identity vs a no-op Swift filter; Swift grayscale vs the same operation as a
// C GstVideoFilter (Benchmarks/CFilters) vs videobalance saturation=0; and a chain of four
// Swift filters. Each candidate is timed from its first sink pad to its last src pad on the
// streaming thread, so the source's cost is excluded for all alike.
//
//   swift run -c release sluice-filter-bench [--runs 5] [--frames 200] [--json PATH] [--sizes 480p,720p,1080p,4K]
import BenchCFilters
import Foundation
import GStreamer
import Sluice
import SluiceBuiltInPlugins
import SluiceFilterKit
import Synchronization

/// Does nothing: the cost of the Swift filter machinery itself.
final class NoOp: FrameFilter {
    static let name = "noop"
    static let summary = "Does nothing (benchmark)"
    static let formats: [PixelFormat] = [.i420, .nv12, .rgba, .bgrx]
    init(configuration: FilterConfiguration) throws {}
    func process(_ frame: borrowing Frame, context: FilterContext) throws -> FilterVerdict { .keep }
}

struct Candidate {
    let label: String
    let fragment: String
}

/// Nanosecond deltas collected by the probes (written on the streaming thread only).
final class Deltas: @unchecked Sendable { // one writer (the streaming thread), read after EOS
    var start: UInt64 = 0
    var values: [UInt64] = []
    init(capacity: Int) { values.reserveCapacity(capacity) }
}

func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Median per-frame nanoseconds of `candidate` over `frames` frames (after 20 warm-up frames).
func measure(_ c: Candidate, format: String, width: Int, height: Int, frames: Int) throws -> Double {
    let pipeline = Pipeline()
    let src = try Element.make("videotestsrc")
    try src.set("num-buffers", frames + 20)
    try src.set("pattern", fromString: "smpte")
    let caps = try Element.make("capsfilter")
    try caps.set("caps", fromString: "video/x-raw,format=\(format),width=\(width),height=\(height),framerate=30/1")
    let section = try Bin.parse(c.fragment)
    let sink = try Element.make("fakesink")
    try sink.set("sync", false)
    try pipeline.add([src, caps, section, sink])
    try Element.link([src, caps, section, sink])
    let deltas = Deltas(capacity: frames + 20)
    section.staticPad("sink")?.addProbe { (_: borrowing Pad.ProbeInfo) in
        deltas.start = now()
        return .ok
    }
    section.staticPad("src")?.addProbe { (_: borrowing Pad.ProbeInfo) in
        deltas.values.append(now() - deltas.start)
        return .ok
    }
    pipeline.setState(.playing)
    var finished = false
    while let m = pipeline.bus.pop(timeout: 30_000_000_000) {
        if m.kind == .eos { finished = true; break }
        if m.kind == .error { throw GstError("\(c.label): \(m.parsedError?.message ?? "error")") }
    }
    pipeline.setState(.null)
    guard finished, deltas.values.count > 20 else { throw GstError("\(c.label): no EOS") }
    let sorted = deltas.values.dropFirst(20).sorted()
    return Double(sorted[sorted.count / 2])
}

// MARK: - Main

var runs = 5, frames = 200
var jsonPath: String?
var onlySizes: Set<String>? // --sizes 720p,1080p: only these (Benchmarks/guard.sh)
var args = CommandLine.arguments.dropFirst().makeIterator()
while let a = args.next() {
    switch a {
    case "--runs": runs = Int(args.next() ?? "") ?? runs
    case "--frames": frames = Int(args.next() ?? "") ?? frames
    case "--json": jsonPath = args.next()
    case "--sizes": onlySizes = Set((args.next() ?? "").split(separator: ",").map(String.init))
    default: FileHandle.standardError.write(Data("unknown argument \(a)\n".utf8)); exit(2)
    }
}

Gst.initialize()
guard bench_cgrayscale_register() != 0 else { fatalError("cannot register cgrayscale") }
for f in BuiltInPlugins.filters { try FilterRegistry.shared.register(FilterFactory(f)) }
try FilterRegistry.shared.register(NoOp.self)

let candidates = [
    Candidate(label: "identity", fragment: "identity"),
    Candidate(label: "Swift no-op", fragment: "sluice-noop"),
    Candidate(label: "C grayscale", fragment: "cgrayscale"),
    Candidate(label: "Swift grayscale", fragment: "sluice-grayscale"),
    Candidate(label: "videobalance saturation=0", fragment: "videobalance saturation=0"),
    Candidate(label: "4 Swift filters", fragment: "sluice-grayscale ! sluice-invert ! sluice-pixelate block=16 ! sluice-motion")
]
let sizes = [("480p", 854, 480), ("720p", 1280, 720), ("1080p", 1920, 1080), ("4K", 3840, 2160)]
    .filter { onlySizes?.contains($0.0) ?? true }
let formats = ["I420", "RGBA"]

var results: [String: [String: [String: Double]]] = [:] // format → size → label → median ns
for format in formats {
    for (name, w, h) in sizes {
        var perRun: [String: [Double]] = [:]
        for run in 0..<runs {
            // Alternate the order every run so drift on a noisy machine hits all alike.
            let order = run % 2 == 0 ? candidates : candidates.reversed()
            for c in order {
                if format == "RGBA", c.label == "videobalance saturation=0" { continue } // videobalance wants YUV
                perRun[c.label, default: []].append(try measure(c, format: format, width: w, height: h, frames: frames))
            }
        }
        results[format, default: [:]][name] = perRun.mapValues { $0.sorted()[$0.count / 2] }
        FileHandle.standardError.write(Data("\(format) \(name) done\n".utf8))
    }
}

func us(_ ns: Double?) -> String { ns.map { String(format: "%.1f", $0 / 1000) } ?? "–" }

print("Per-frame cost in µs (median of \(runs) runs × \(frames) frames; each run's median)\n")
for format in formats {
    print("\(format):\n")
    print("| candidate | " + sizes.map(\.0).joined(separator: " | ") + " |")
    print("|---" + String(repeating: "|---", count: sizes.count) + "|")
    for c in candidates where !(format == "RGBA" && c.label == "videobalance saturation=0") {
        print("| \(c.label) | " + sizes.map { us(results[format]?[$0.0]?[c.label]) }.joined(separator: " | ") + " |")
    }
    print("")
}
if let r = results["I420"]?["720p"], let id = r["identity"], let noop = r["Swift no-op"],
    let cg = r["C grayscale"], let sg = r["Swift grayscale"]
{
    print(String(format: "720p I420: Swift no-op overhead over identity %.2f µs/frame; Swift grayscale / C grayscale = %.3f", (noop - id) / 1000, sg / cg))
}
if let r = results["RGBA"]?["720p"], let cg = r["C grayscale"], let sg = r["Swift grayscale"] {
    print(String(format: "720p RGBA: Swift grayscale / C grayscale = %.3f", sg / cg))
}
if let chain = results["I420"]?["1080p"]?["4 Swift filters"] {
    print(String(format: "1080p I420: 4 Swift filters take %.2f ms/frame = %.0f%% of one core at 30 fps", chain / 1e6, chain / 1e6 / 33.333 * 100))
}
if let jsonPath {
    let data = try JSONSerialization.data(withJSONObject: results, options: [.prettyPrinted, .sortedKeys])
    try data.write(to: URL(fileURLWithPath: jsonPath))
}
