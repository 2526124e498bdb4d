// Per-buffer cost of Swift audio filters against GStreamer's elements doing the same work,
// measured inside one process, side by side: `gain` against `volume`, `level` against
// `level`, and GStreamer's `identity` as the floor. Each candidate is timed from its sink pad
// to its src pad on the streaming thread, so the source's cost is excluded for all alike.
// Interleaved stereo at 48 kHz, F32LE and S16LE, buffers of 10 and 20 ms.
//
//   swift run -c release sluice-audio-filter-bench [--runs 5] [--buffers 2000] [--json PATH]
import Foundation
import GStreamer
import Sluice
import SluiceBuiltInPlugins
import SluiceFilterKit

struct Candidate {
    let label: String
    let fragment: String
}

/// Nanosecond deltas collected by the probes.
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

/// Median nanoseconds per buffer of `c` over `buffers` buffers (after 50 warm-up buffers).
func measure(_ c: Candidate, format: String, frames: Int, buffers: Int) throws -> Double {
    let pipeline = Pipeline()
    let src = try Element.make("audiotestsrc")
    try src.set("num-buffers", buffers + 50)
    try src.set("samplesperbuffer", frames)
    try src.set("wave", fromString: "sine")
    let caps = try Element.make("capsfilter")
    try caps.set("caps", fromString: "audio/x-raw,format=\(format),rate=48000,channels=2,layout=interleaved")
    let section = try Bin.parse(c.fragment)
    let sink = try Element.make("fakesink")
    try sink.set("sync", false)
    try pipeline.add([src, caps, section, sink])
    try Element.link([src, caps, section, sink])
    let deltas = Deltas(capacity: buffers + 50)
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
    guard finished, deltas.values.count > 50 else { throw GstError("\(c.label): no EOS") }
    let sorted = deltas.values.dropFirst(50).sorted()
    return Double(sorted[sorted.count / 2])
}

var runs = 5, buffers = 2000
var jsonPath: String?
var args = CommandLine.arguments.dropFirst().makeIterator()
while let a = args.next() {
    switch a {
    case "--runs": runs = Int(args.next() ?? "") ?? runs
    case "--buffers": buffers = Int(args.next() ?? "") ?? buffers
    case "--json": jsonPath = args.next()
    default: FileHandle.standardError.write(Data("unknown argument \(a)\n".utf8)); exit(2)
    }
}

Gst.initialize()
for f in BuiltInPlugins.audioFilters { try FilterRegistry.shared.register(AudioFilterFactory(f)) }

// −6.0206 dB is a factor of 0.5 exactly enough for both.
let candidates = [
    Candidate(label: "identity", fragment: "identity"),
    Candidate(label: "volume", fragment: "volume volume=0.5"),
    Candidate(label: "Swift gain", fragment: "sluice-gain db=-6.0206"),
    Candidate(label: "level", fragment: "level interval=100000000"),
    Candidate(label: "Swift level", fragment: "sluice-level interval-ms=100")
]
let formats = ["F32LE", "S16LE"]
let sizes = [("10 ms", 480), ("20 ms", 960)]

var results: [String: [String: [String: Double]]] = [:] // format → size → label → median ns
for format in formats {
    for (name, frames) in sizes {
        var perRun: [String: [Double]] = [:]
        for run in 0..<runs {
            let order = run % 2 == 0 ? candidates : candidates.reversed() // drift hits all alike
            for c in order {
                perRun[c.label, default: []].append(try measure(c, format: format, frames: frames, buffers: buffers))
            }
        }
        results[format, default: [:]][name] = perRun.mapValues { $0.sorted()[$0.count / 2] }
        FileHandle.standardError.write(Data("\(format) \(name) done\n".utf8))
    }
}

print("Per-buffer cost in ns, 48 kHz stereo (median of \(runs) runs × \(buffers) buffers; each run's median)\n")
print("| format | buffer | " + candidates.map(\.label).joined(separator: " | ") + " | gain ÷ volume | Swift level ÷ level |")
print("|---|---|" + String(repeating: "---|", count: candidates.count + 2))
for format in formats {
    for (name, _) in sizes {
        let r = results[format]?[name] ?? [:]
        let cells = candidates.map { r[$0.label].map { String(format: "%.0f", $0) } ?? "–" }
        let gain = (r["Swift gain"] ?? 0) / max(1, r["volume"] ?? 1), level = (r["Swift level"] ?? 0) / max(1, r["level"] ?? 1)
        print("| \(format) | \(name) | " + cells.joined(separator: " | ") + String(format: " | %.3f | %.3f |", gain, level))
    }
}
if let jsonPath {
    let document: [String: Any] = [
        "runs": runs, "buffers": buffers, "rate": 48_000, "channels": 2,
        "how": "RUNS=\(runs) BUFFERS=\(buffers) Benchmarks/audio-filter-bench.sh",
        "recorded_at": ISO8601DateFormatter().string(from: Date()),
        "median_ns": results
    ]
    let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
    try data.write(to: URL(fileURLWithPath: jsonPath))
}
