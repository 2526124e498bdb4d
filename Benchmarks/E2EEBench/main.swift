// What end-to-end encryption costs against the encode it follows: a 1280x720 30 fps stream at
// 2.5 Mbit/s, VP8 (vp8enc) and H.264 (x264enc, then h264parse to AVC access units, where
// Sluice's H.264 encoded filters sit), each encoder with Sluice's realtime settings, through
// `sluice-e2ee` (AES-GCM in LiveKit's format), and through `identity` as the floor. Each
// element is timed from its sink pad to its src pad on the streaming thread, frame by frame:
// vp8enc with lag-in-frames=0 and x264enc with tune=zerolatency push a frame's output from
// inside its chain, so their span is that frame's encode.
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

func now(_ clock: clockid_t = CLOCK_MONOTONIC) -> UInt64 {
    var ts = timespec()
    clock_gettime(clock, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// The process's CPU time so far (user and system, every thread), nanoseconds.
func processCPU() -> UInt64 { now(CLOCK_PROCESS_CPUTIME_ID) }

/// The element's spans from its sink pad to its src pad on the streaming thread: wall-clock
/// time with `clock` CLOCK_MONOTONIC, the thread's own CPU time with CLOCK_THREAD_CPUTIME_ID
/// (what it costs, without the time the thread waited for a core).
func time(_ element: Element, clock: clockid_t = CLOCK_MONOTONIC) -> Spans {
    let spans = Spans()
    element.staticPad("sink")?.addProbe { (_: borrowing Pad.ProbeInfo) in
        spans.start = now(clock)
        return .ok
    }
    element.staticPad("src")?.addProbe { (_: borrowing Pad.ProbeInfo) in
        spans.values.append(now(clock) - spans.start)
        return .ok
    }
    return spans
}

/// One run's totals after the warm-up: the encoder's and the stage's nanoseconds, and the
/// bytes encoded; and the stage's span on the first frame.
struct Run {
    var encode: Double
    var stage: Double
    /// The stage's CPU time (its streaming thread's) after the warm-up, and the whole
    /// process's CPU time over the run (every frame), nanoseconds.
    var stageCPU: Double
    var processCPU: Double
    var allFrames: Int
    var bytes: Int
    var frames: Int
    var firstFrame: Double
}

/// Frames left out of the totals at the start.
let warmUp = 10

/// The encoders, with the properties Sluice's `realtime` preset gives them (EncoderPresets) at
/// 2.5 Mbit/s and a keyframe every 60 frames; H.264 leaves h264parse as AVC access units.
/// libvpx threads as Sluice's preset sets them (`EncoderPresets.vpxThreads`): 1 on 2 cores or fewer.
let vpxThreads = ProcessInfo.processInfo.activeProcessorCount <= 2 ? 1 : 2
let encoders: [(codec: String, fragment: String)] = [
    (
        "vp8",
        "vp8enc name=enc deadline=1 cpu-used=16 end-usage=cbr lag-in-frames=0 error-resilient=default threads=\(vpxThreads) "
            + "target-bitrate=2500000 keyframe-max-dist=60 buffer-size=300 buffer-initial-size=200 buffer-optimal-size=250 undershoot=95"
    ),
    (
        "h264",
        "x264enc name=enc bitrate=2500 key-int-max=60 aud=false tune=zerolatency speed-preset=ultrafast bframes=0 b-adapt=false "
            + "rc-lookahead=0 sync-lookahead=0 vbv-buf-capacity=300 ! h264parse ! video/x-h264,stream-format=avc,alignment=au"
    )
]

func measure(encoder: String, stage fragment: String, frames: Int) throws -> Run {
    let bin = try Bin.parse(
        "videotestsrc num-buffers=\(frames) pattern=smpte horizontal-speed=4 ! video/x-raw,width=1280,height=720,framerate=30/1,format=I420 "
            + "! \(encoder) ! \(fragment) name=stage ! fakesink name=out sync=false", ghostUnlinkedPads: false)
    let pipeline = Pipeline()
    try pipeline.add([bin])
    guard let encoder = bin.child(named: "enc"), let stage = bin.child(named: "stage"), let sink = bin.child(named: "out") else {
        throw GstError("the benchmark pipeline lacks its elements")
    }
    let encodeSpans = time(encoder), stageSpans = time(stage), stageCPU = time(stage, clock: CLOCK_THREAD_CPUTIME_ID)
    let bytes = Spans()
    sink.staticPad("sink")?.addProbe { (info: borrowing Pad.ProbeInfo) in
        bytes.values.append(UInt64(info.buffer?.size ?? 0))
        return .ok
    }
    let cpuBefore = processCPU()
    try play(pipeline, what: fragment)
    let cpu = Double(processCPU() - cpuBefore)
    guard stageSpans.values.count > warmUp, encodeSpans.values.count > warmUp else { throw GstError("\(fragment): too few frames") }
    return Run(
        encode: Double(encodeSpans.values.dropFirst(warmUp).reduce(0, +)), stage: Double(stageSpans.values.dropFirst(warmUp).reduce(0, +)),
        stageCPU: Double(stageCPU.values.dropFirst(warmUp).reduce(0, +)), processCPU: cpu, allFrames: stageSpans.values.count,
        bytes: Int(bytes.values.dropFirst(warmUp).reduce(0, +)), frames: stageSpans.values.count - warmUp,
        firstFrame: Double(stageSpans.values[0]))
}

/// Plays `pipeline` to its end.
func play(_ pipeline: Pipeline, what: String) throws {
    pipeline.setState(.playing)
    var finished = false
    while let m = pipeline.bus.pop(timeout: 120_000_000_000) {
        if m.kind == .eos { finished = true; break }
        if m.kind == .error { throw GstError("\(what): \(m.parsedError?.message ?? "error")") }
    }
    pipeline.setState(.null)
    guard finished else { throw GstError("\(what): no EOS") }
}

/// The process CPU the source alone takes for `frames` frames (to leave out of the encode's).
func sourceCPU(frames: Int) throws -> Double {
    let pipeline = Pipeline()
    try pipeline.add([
        try Bin.parse(
            "videotestsrc num-buffers=\(frames) pattern=smpte horizontal-speed=4 ! video/x-raw,width=1280,height=720,framerate=30/1,format=I420 "
                + "! fakesink sync=false", ghostUnlinkedPads: false)
    ])
    let before = processCPU()
    try play(pipeline, what: "the source")
    return Double(processCPU() - before)
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

/// identity: the floor of being an element at all; faults with no fault set: a Swift encoded
/// filter that keeps every frame (Sluice's element around a filter: the mapping, the settings
/// check, the statistics); e2ee: that plus the encryption.
let stages = [("identity", "identity"), ("swift-keep", "sluice-faults"), ("e2ee", "sluice-e2ee passphrase=benchmark")]
func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }

/// One codec's medians: what the JSON document holds per codec.
/// One codec's medians: what the JSON document holds per codec. Wall-clock spans (as the
/// streaming thread sees them, waits for a core included) and CPU: the stage's thread CPU per
/// frame against the encode's, which is the process's CPU per frame less the source's (a
/// source-only pipeline, each run) and the stage's.
func measureCodec(_ codec: String, encoder: String, runs: Int, frames: Int) throws -> [String: Any] {
    var shares: [String: [Double]] = [:], perFrame: [String: [Double]] = [:], encodePerFrame: [Double] = [], kbps: [Double] = []
    var firstFrame: [String: [Double]] = [:], cpuPerFrame: [String: [Double]] = [:], cpuShares: [String: [Double]] = [:]
    var encodeCPUPerFrame: [Double] = []
    for run in 0..<runs {
        let source = try sourceCPU(frames: frames) / Double(frames)
        for (label, fragment) in run % 2 == 0 ? stages : stages.reversed() { // drift hits them alike
            let r = try measure(encoder: encoder, stage: fragment, frames: frames)
            let n = Double(max(1, r.frames)), stageCPU = r.stageCPU / n
            let encodeCPU = r.processCPU / Double(max(1, r.allFrames)) - source - stageCPU
            shares[label, default: []].append(r.stage / r.encode)
            perFrame[label, default: []].append(r.stage / n / 1000)
            firstFrame[label, default: []].append(r.firstFrame / 1_000_000)
            cpuPerFrame[label, default: []].append(stageCPU / 1000)
            cpuShares[label, default: []].append(stageCPU / encodeCPU)
            if label == "e2ee" {
                encodePerFrame.append(r.encode / n / 1000)
                encodeCPUPerFrame.append(encodeCPU / 1000)
                kbps.append(Double(r.bytes) * 8 / (n / 30) / 1000)
            }
        }
    }
    print("\(codec) 1280x720 30 fps, \(String(format: "%.0f", median(kbps))) kbit/s encoded; median of \(runs) runs × \(frames) frames\n")
    print("| stage | µs per frame | share of the encode's time | CPU µs per frame | share of the encode's CPU | first frame, ms |")
    print("|---|---|---|---|---|---|")
    print(String(format: "| the encode | %.0f | 1 | %.0f | 1 | – |", median(encodePerFrame), median(encodeCPUPerFrame)))
    for (label, _) in stages {
        print(
            String(
                format: "| %@ | %.1f | %.4f | %.1f | %.4f | %.1f |", label, median(perFrame[label] ?? [0]), median(shares[label] ?? [0]),
                median(cpuPerFrame[label] ?? [0]), median(cpuShares[label] ?? [0]), median(firstFrame[label] ?? [0])))
    }
    print(
        String(
            format: "\ne2ee costs %.2f%% of the encode's CPU (%.2f%% of its time); the target is at most 2%%.\n",
            median(cpuShares["e2ee"] ?? [0]) * 100, median(shares["e2ee"] ?? [0]) * 100))
    return [
        "encoded_kbps": median(kbps), "encode_us_per_frame": median(encodePerFrame), "us_per_frame": perFrame.mapValues(median),
        "share_of_encode": shares.mapValues(median), "first_frame_ms": firstFrame.mapValues(median),
        "encode_cpu_us_per_frame": median(encodeCPUPerFrame), "cpu_us_per_frame": cpuPerFrame.mapValues(median),
        "share_of_encode_cpu": cpuShares.mapValues(median)
    ]
}

var codecs: [String: Any] = [:]
for (codec, encoder) in encoders { codecs[codec] = try measureCodec(codec, encoder: encoder, runs: runs, frames: frames) }
if let jsonPath {
    let document: [String: Any] = [
        "runs": runs, "frames": frames, "width": 1280, "height": 720, "fps": 30, "target_kbps": 2500,
        "how": "RUNS=\(runs) FRAMES=\(frames) Benchmarks/e2ee-bench.sh",
        "recorded_at": ISO8601DateFormatter().string(from: Date()), "warm_up_frames": warmUp, "codecs": codecs
    ]
    let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
    try data.write(to: URL(fileURLWithPath: jsonPath))
}
