import Foundation

/// Sound the tests decoded to raw 16-bit mono (`… ! audio/x-raw,format=S16LE,channels=1,rate=R
/// ! filesink`): whether each stretch of it is sound or silence.
public struct PCMRecording: Sendable {
    /// Samples per second.
    public let rate: Int
    private let samples: [Int16]

    /// Reads the file at `path` (empty when there is none) as samples at `rate`.
    public init(path: String, rate: Int) {
        self.rate = rate
        let data = FileManager.default.contents(atPath: path) ?? Data()
        samples = data.withUnsafeBytes { raw in Array(raw.bindMemory(to: Int16.self)) }
    }

    /// Seconds of sound in the file.
    public var seconds: Double { Double(samples.count) / Double(rate) }

    /// The file in windows of `window` seconds, as runs of `sound` (a peak above `threshold`)
    /// and `silence`, in order: [("sound", 16), ("silence", 12), …] (counts of windows).
    public func loudnessRuns(window: Double = 0.25, threshold: Int16 = 1000) -> [(kind: String, windows: Int)] {
        let size = max(1, Int(window * Double(rate)))
        var runs: [(kind: String, windows: Int)] = []
        for start in stride(from: 0, to: samples.count - size + 1, by: size) {
            let peak = samples[start..<start + size].map { $0 == .min ? Int16.max : abs($0) }.max() ?? 0
            let kind = peak > threshold ? "sound" : "silence"
            if runs.last?.kind == kind { runs[runs.count - 1].windows += 1 } else { runs.append((kind, 1)) }
        }
        return runs
    }
}
