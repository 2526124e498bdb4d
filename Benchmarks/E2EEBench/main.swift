// What end-to-end encryption costs against the encode it follows: a 1280x720 30 fps VP8
// stream at 2.5 Mbit/s (vp8enc with Sluice's realtime settings) through `sluice-e2ee` (AES-GCM
// in LiveKit's format), and through `identity` as the floor. Each element is timed from its
// sink pad to its src pad on the streaming thread, frame by frame: vp8enc with lag-in-frames=0
// pushes a frame's output from inside its chain, so its span is that frame's encode.
// The figure is e2ee's total time over the encoder's total time, per run, after the first 10
// frames; the first frame's span (where `e2ee` derives its key: PBKDF2, 100 000 rounds, once)
// is reported apart. Runs alternate.
//
//   swift run -c release sluice-e2ee-bench [--runs 5] [--frames 300] [--json PATH]
import Foundation
import GStreamer
import Sluice
import SluiceBuiltInPlugins
import SluiceFilterKit

/// Nanosecond spans of one element, collected by its probes.
final class Spans: @unchecked Sendable { // one writer (the streaming thread), read after EOS
    var start: UInt64 = 0
    var values: [UInt64] = []
}

func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

func time(_ element: Element) -> Spans {
    let spans = Spans()
    element.staticPad("sink")?.addProbe { (_: borrowing Pad.ProbeInfo) in
        spans.start = now()
        return .ok
    }
    element.staticPad("src")?.addProbe { (_: borrowing Pad.ProbeInfo) in
        spans.values.append(now() - spans.start)
        return .ok
    }
    return spans
}

/// One run's totals after the warm-up: the encoder's and the stage's nanoseconds, and the
/// bytes encoded; and the stage's span on the first frame.
struct Run {
    var encode: Double
    var stage: Double
    var bytes: Int
    var frames: Int
    var firstFrame: Double
}

/// Frames left out of the totals at the start.
let warmUp = 10

func measure(stage fragment: String, frames: Int) throws -> Run {
    let bin = try Bin.parse(
        "videotestsrc num-buffers=\(frames) pattern=smpte horizontal-speed=4 ! video/x-raw,width=1280,height=720,framerate=30/1,format=I420 "
            + "! vp8enc name=enc deadline=1 cpu-used=16 end-usage=cbr lag-in-frames=0 error-resilient=default threads=2 "
            + "target-bitrate=2500000 keyframe-max-dist=60 buffer-size=300 buffer-initial-size=200 buffer-optimal-size=250 undershoot=95 "
            + "! \(fragment) name=stage ! fakesink name=out sync=false", ghostUnlinkedPads: false)
    let pipeline = Pipeline()
    try pipeline.add([bin])
    guard let encoder = bin.child(named: "enc"), let stage = bin.child(named: "stage"), let sink = bin.child(named: "out") else {
        throw GstError("the benchmark pipeline lacks its elements")
    }
    let encodeSpans = time(encoder), stageSpans = time(stage)
    let bytes = Spans()
    sink.staticPad("sink")?.addProbe { (info: borrowing Pad.ProbeInfo) in
        bytes.values.append(UInt64(info.buffer?.size ?? 0))
        return .ok
    }
    pipeline.setState(.playing)
    var finished = false
    while let m = pipeline.bus.pop(timeout: 120_000_000_000) {
        if m.kind == .eos { finished = true; break }
        if m.kind == .error { throw GstError("\(fragment): \(m.parsedError?.message ?? "error")") }
    }
    pipeline.setState(.null)
    guard finished else { throw GstError("\(fragment): no EOS") }
    guard stageSpans.values.count > warmUp, encodeSpans.values.count > warmUp else { throw GstError("\(fragment): too few frames") }
    return Run(
        encode: Double(encodeSpans.values.dropFirst(warmUp).reduce(0, +)), stage: Double(stageSpans.values.dropFirst(warmUp).reduce(0, +)),
        bytes: Int(bytes.values.dropFirst(warmUp).reduce(0, +)), frames: stageSpans.values.count - warmUp,
        firstFrame: Double(stageSpans.values[0]))
}

var runs = 5, frames = 300
var jsonPath: String?
var args = CommandLine.arguments.dropFirst().makeIterator()
while let a = args.next() {
    switch a {
    case "--runs": runs = Int(args.next() ?? "") ?? runs
    case "--frames": frames = Int(args.next() ?? "") ?? frames
    case "--json": jsonPath = args.next()
    default: FileHandle.standardError.write(Data("unknown argument \(a)\n".utf8)); exit(2)
    }
}

Gst.initialize()
for f in BuiltInPlugins.encodedFilters { try FilterRegistry.shared.register(EncodedFilterFactory(f)) }

let stages = [("identity", "identity"), ("e2ee", "sluice-e2ee passphrase=benchmark")]
var shares: [String: [Double]] = [:], perFrame: [String: [Double]] = [:], encodePerFrame: [Double] = [], kbps: [Double] = []
var firstFrame: [String: [Double]] = [:]
for run in 0..<runs {
    for (label, fragment) in run % 2 == 0 ? stages : stages.reversed() { // drift hits both alike
        let r = try measure(stage: fragment, frames: frames)
        shares[label, default: []].append(r.stage / r.encode)
        perFrame[label, default: []].append(r.stage / Double(max(1, r.frames)) / 1000)
        firstFrame[label, default: []].append(r.firstFrame / 1_000_000)
        if label == "e2ee" {
            encodePerFrame.append(r.encode / Double(max(1, r.frames)) / 1000)
            kbps.append(Double(r.bytes) * 8 / (Double(r.frames) / 30) / 1000)
        }
    }
}
func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
let e2eeShare = median(shares["e2ee"] ?? [0]), floorShare = median(shares["identity"] ?? [0])
print("VP8 1280x720 30 fps, \(String(format: "%.0f", median(kbps))) kbit/s encoded; median of \(runs) runs × \(frames) frames\n")
print("| stage | µs per frame | share of the encode's time | first frame, ms |")
print("|---|---|---|---|")
print(String(format: "| vp8enc (the encode) | %.0f | 1 | – |", median(encodePerFrame)))
for (label, _) in stages {
    print(String(format: "| %@ | %.1f | %.4f | %.1f |", label, median(perFrame[label] ?? [0]), median(shares[label] ?? [0]), median(firstFrame[label] ?? [0])))
}
print(String(format: "\ne2ee costs %.2f%% of the encode (identity's floor %.2f%%); the target is at most 2%%.", e2eeShare * 100, floorShare * 100))
if let jsonPath {
    let document: [String: Any] = [
        "runs": runs, "frames": frames, "width": 1280, "height": 720, "fps": 30, "target_kbps": 2500,
        "how": "RUNS=\(runs) FRAMES=\(frames) Benchmarks/e2ee-bench.sh",
        "recorded_at": ISO8601DateFormatter().string(from: Date()),
        "encoded_kbps": median(kbps), "encode_us_per_frame": median(encodePerFrame),
        "us_per_frame": perFrame.mapValues(median), "share_of_encode": shares.mapValues(median),
        "first_frame_ms": firstFrame.mapValues(median), "warm_up_frames": warmUp
    ]
    let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
    try data.write(to: URL(fileURLWithPath: jsonPath))
}
