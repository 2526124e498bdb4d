import Foundation
import SluiceFilterKit

/// The in-band audio marker `audiostamp` writes and `audiostamp-read` reads: seven DTMF
/// symbols of 30 ms tone and 10 ms silence each (280 ms), replacing the sound while it lasts.
///
/// 1. sync: `D` (941 + 1633 Hz), whose onset is the stamp's instant;
/// 2. the sequence number modulo 16;
/// 3–6. the capture time in milliseconds of the monotonic clock, modulo 65 536, four nibbles,
///    most significant first;
/// 7. a check nibble: the sum of the five before, modulo 16, XOR 0xA.
///
/// DTMF is what telephone networks carry through every speech codec, and Opus keeps it from
/// 16 kbit/s up. The receiver finds the sync's onset to the sample by correlating with the
/// tone's frequencies (phase-free), reads each symbol from the middle 20 ms of its tone (so
/// a playout that stretches or shrinks audio by a few ms still reads), and accepts a stamp
/// only when the check nibble agrees. A stamp's capture time is recovered as the latest time
/// before its arrival with the same low 16 bits: delays up to 65 s read correctly.
public enum AudioStampCode {
    /// The keypad's characters in nibble order: nibble v is `characters[v]`.
    public static let characters: [Character] = Array("0123456789*#ABCD")
    /// Row (low) frequencies, Hz.
    public static let rows: [Double] = [697, 770, 852, 941]
    /// Column (high) frequencies, Hz.
    public static let columns: [Double] = [1209, 1336, 1477, 1633]
    /// The sync symbol's nibble (`D`).
    public static let sync: UInt8 = 15
    /// Symbols per stamp.
    public static let symbolCount = 7
    /// Tone and silence per symbol, seconds.
    public static let toneSeconds = 0.030, gapSeconds = 0.010
    /// One symbol, seconds.
    public static var symbolSeconds: Double { toneSeconds + gapSeconds }
    /// One stamp, seconds.
    public static var stampSeconds: Double { symbolSeconds * Double(symbolCount) }

    /// The keypad position (row, column) of nibble `v`.
    public static func position(_ v: UInt8) -> (row: Int, column: Int) {
        let layout: [Character] = Array("123A456B789C*0#D")
        let index = layout.firstIndex(of: characters[Int(v & 15)]) ?? 0
        return (index / 4, index % 4)
    }

    /// The nibble at keypad position (`row`, `column`).
    public static func nibble(row: Int, column: Int) -> UInt8 {
        let layout: [Character] = Array("123A456B789C*0#D")
        return UInt8(characters.firstIndex(of: layout[row * 4 + column]) ?? 0)
    }

    /// The seven nibbles of a stamp.
    public static func symbols(sequence: Int, captureMilliseconds: UInt64) -> [UInt8] {
        let t = UInt16(truncatingIfNeeded: captureMilliseconds)
        let data: [UInt8] = [
            UInt8(sequence & 15), UInt8(t >> 12), UInt8((t >> 8) & 15), UInt8((t >> 4) & 15), UInt8(t & 15)
        ]
        return [sync] + data + [check(data)]
    }

    /// The check nibble of the five data nibbles.
    public static func check(_ data: [UInt8]) -> UInt8 { UInt8(data.reduce(0) { $0 + Int($1) } & 15) ^ 0xA }

    /// The sequence number and low 16 bits of the capture time of seven nibbles, or nil when
    /// the sync or the check nibble is wrong.
    public static func decode(_ nibbles: [UInt8]) -> (sequence: Int, captureLow: UInt16)? {
        guard nibbles.count == symbolCount, nibbles[0] == sync else { return nil }
        let data = Array(nibbles[1...5])
        guard check(data) == nibbles[6] else { return nil }
        let t = UInt16(data[1]) << 12 | UInt16(data[2]) << 8 | UInt16(data[3]) << 4 | UInt16(data[4])
        return (Int(data[0]), t)
    }

    /// The full capture time of a stamp whose low 16 bits are `low`, read at `arrival`
    /// (milliseconds of the same clock): the latest time not after the arrival with those bits.
    public static func captureTime(low: UInt16, arrival: UInt64) -> UInt64 {
        arrival - ((arrival &- UInt64(low)) & 0xFFFF)
    }

    /// The monotonic clock both ends read, in microseconds (the video framestamp's clock).
    public static func monotonicMicroseconds() -> UInt64 {
        var ts = timespec()
        _ = clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1000
    }

    /// The power of `frequency` in `samples` (Goertzel at that exact frequency), scaled so that
    /// a sine of amplitude A reads about A².
    public static func power(_ samples: UnsafeBufferPointer<Float>, frequency: Double, rate: Int) -> Double {
        let w = 2 * Double.pi * frequency / Double(rate), c = 2 * cos(w)
        var s1 = 0.0, s2 = 0.0
        for x in samples {
            let s = Double(x) + c * s1 - s2
            s2 = s1
            s1 = s
        }
        let n = Double(max(1, samples.count)) / 2
        return max(0, s1 * s1 + s2 * s2 - c * s1 * s2) / (n * n)
    }
}
