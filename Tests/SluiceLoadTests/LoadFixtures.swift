import Foundation
import XCTest
@testable import SluiceLoad
@testable import SluiceMeasure
@testable import SluiceRun

/// A seeded generator (SplitMix64), so the synthetic crowds are the same on every run.
struct LoadRandom: RandomNumberGenerator {
    /// The generator's state.
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Synthetic load clients for the report tests.
enum LoadFixtures {
    /// Frames at `fps` from `from` to before `to`, each moved by up to ±`jitter` seconds, a
    /// keyframe every `fps` frames, 1200 bytes each (keyframes 6000).
    static func stream(
        _ track: inout FrameTrack, from: Double, to: Double, fps: Double = 30, jitter: Double = 0,
        rng: inout LoadRandom
    ) {
        var i = 0
        while from + Double(i) / fps < to {
            let raw = from + Double(i) / fps + (jitter > 0 ? Double.random(in: -jitter...jitter, using: &rng) : 0)
            // Jitter moves no frame past `to`, nor before the one it follows.
            let t = max(min(raw, to - 0.0001), track.lastAt ?? raw)
            let key = i % Int(fps) == 0
            track.record(at: t, keyframe: key, bytes: key ? 6000 : 1200)
            i += 1
        }
    }

    /// A crowd of `count` clients over `duration` seconds, ids from `firstID`. Client `i` is in
    /// group `viewers` (i % 3 == 0) or `watchers`; every fourth does not decode. Some are
    /// refused (`503 server busy`), some fail to connect (`ICE failed`), some lose the service
    /// half-way (`session ended`); every fifth sees a 500 ms gap in its frames at 8 s.
    static func crowd(_ count: Int, firstID: Int = 0, duration: Double = 20, seed: UInt64 = 7) -> [ClientObservation] {
        var rng = LoadRandom(state: seed)
        return (firstID..<firstID + count).map { i in client(i, duration: duration, rng: &rng) }
    }

    /// One client of `crowd`.
    static func client(_ i: Int, duration: Double, rng: inout LoadRandom) -> ClientObservation {
        var o = ClientObservation(id: i, group: i % 3 == 0 ? "viewers" : "watchers", decodes: i % 4 != 3, startedAt: 0.05 * Double(i % 40))
        if i % 17 == 5 {
            o.endedAt = o.startedAt + 0.02
            o.outcome = .refused(reason: "503 server busy")
            return o
        }
        if i % 23 == 7 {
            o.endedAt = o.startedAt + 5
            o.outcome = .failedToConnect(reason: "ICE failed")
            return o
        }
        let ice = o.startedAt + 0.05 + Double.random(in: 0...0.4, using: &rng)
        o.iceConnectedAt = ice
        o.dtlsConnectedAt = ice + Double.random(in: 0.02...0.1, using: &rng)
        let gone = i % 29 == 11
        let end = gone ? duration / 2 : duration
        let first = o.dtlsConnectedAt! + Double.random(in: 0.05...0.3, using: &rng)
        if i % 5 == 0 {
            stream(&o.frames, from: first, to: 8, jitter: 0.004, rng: &rng)
            stream(&o.frames, from: (o.frames.lastAt ?? 8) + 0.5, to: end, jitter: 0.004, rng: &rng)
        } else {
            stream(&o.frames, from: first, to: end, jitter: 0.004, rng: &rng)
        }
        if o.decodes {
            o.glassToGlassMs = (0..<o.frames.count).map { _ in 40 + Double.random(in: 0...60, using: &rng) }
        }
        var n = ClientNetwork()
        n.bytesReceived = o.frames.bytes + 5000
        n.packetsLost = i % 7
        n.rttMs = 1 + Double(i % 5)
        o.network = n
        o.endedAt = end
        o.outcome = gone ? .serviceGone(reason: "session ended") : .leftAsPlanned
        return o
    }

    /// The nearest-rank percentile of sorted values, the rank worked out as HdrHistogram does
    /// (less a hair, so that 99.9% of 10000 is rank 9990 whatever the rounding of 99.9 / 100).
    static func nearestRank(_ sorted: [Double], _ p: Double) -> Double {
        let rank = Int((p * Double(sorted.count) / 100 - 1e-9).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// One process sample a second for `duration` seconds, using `cores` and `memory` MiB.
    static func samples(duration: Int, cores: Double, memory: Double) -> [ProcessSample] {
        (0..<duration).map { ProcessSample(second: $0, cpuCores: cores + Double($0 % 3) * 0.125, memoryMiB: memory + Double($0)) }
    }
}

/// What loading a file that must be refused says (its diagnostics); fails the test at `line`
/// when `load` accepts it.
func refusal(line: UInt = #line, _ load: () throws -> PipelineSpec) -> String {
    do {
        _ = try load()
        XCTFail("expected an error", line: line)
        return ""
    } catch {
        return "\(error)"
    }
}
