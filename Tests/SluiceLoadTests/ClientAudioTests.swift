import SluiceLoad
import XCTest

/// Missing audio from RTP sequence numbers, and audio stamps paired with video frames.
final class ClientAudioTests: XCTestCase {
    func testMissingPacketsAreCountedFromSequenceNumbersNotFromTimestamps() {
        var a = ClientAudio()
        // 20 ms packets (960 at 48 kHz): 10, 11, then 14 (12 and 13 lost), 15.
        a.record(at: 1.0, sequence: 10, timestamp: 0)
        a.record(at: 1.02, sequence: 11, timestamp: 960)
        a.record(at: 1.08, sequence: 14, timestamp: 960 * 4)
        a.record(at: 1.1, sequence: 15, timestamp: 960 * 5)
        XCTAssertEqual(a.missingPackets, 2)
        XCTAssertEqual(a.missingMs, 40, accuracy: 0.001)
        // DTX: a second of silence skips timestamps, not sequence numbers: nothing missing.
        a.record(at: 2.1, sequence: 16, timestamp: 960 * 55)
        XCTAssertEqual(a.missingPackets, 2)
        // A late packet (older than one seen) and a repeat change nothing.
        a.record(at: 2.12, sequence: 13, timestamp: 960 * 3)
        a.record(at: 2.13, sequence: 16, timestamp: 960 * 55)
        XCTAssertEqual(a.missingPackets, 2)
        XCTAssertEqual(a.packets, 7)
        XCTAssertEqual(a.firstAt, 1.0)
        // Across the wrap of the 16-bit sequence number: 65535 → 1 loses one (0).
        var b = ClientAudio()
        b.record(at: 0, sequence: 65534, timestamp: 0)
        b.record(at: 0.02, sequence: 65535, timestamp: 960)
        b.record(at: 0.06, sequence: 1, timestamp: 960 * 3)
        XCTAssertEqual(b.missingPackets, 1)
        XCTAssertEqual(b.missingMs, 20, accuracy: 0.001)
        // A jump of more than 10 s of packets is a new stream, not loss.
        b.record(at: 1, sequence: 5000, timestamp: 960 * 5000)
        XCTAssertEqual(b.missingPackets, 1)
    }

    func testStampsPairWithTheFrameCapturedClosestOnceNoCloserCanCome() {
        var p = AVOffsetPairing()
        // A stamp captured at 1000 ms, 60 ms mouth-to-ear; frames every 33 ms, 40 ms glass-to-glass.
        p.video(capturedMs: 967, latencyMs: 40)
        p.audio(capturedMs: 1000, delayMs: 60)
        XCTAssertEqual(p.paired, [], "a closer frame may still come")
        p.video(capturedMs: 1001, latencyMs: 42)
        XCTAssertEqual(p.paired, [], "and one within 40 ms after the stamp still may")
        p.video(capturedMs: 1034, latencyMs: 40)
        XCTAssertEqual(p.paired, [], "1034 is under 40 ms after the stamp")
        p.video(capturedMs: 1067, latencyMs: 40)
        XCTAssertEqual(p.paired, [18], "paired with the frame captured at 1001: 60 - 42")
        // A stamp with no frame within 40 ms pairs with nothing.
        p.audio(capturedMs: 5000, delayMs: 10)
        p.video(capturedMs: 6000, latencyMs: 40)
        XCTAssertEqual(p.offsets, [18])
        // A stamp still waiting at the end is paired with what came: audio early is negative.
        p.audio(capturedMs: 6010, delayMs: 25)
        XCTAssertEqual(p.offsets, [18, -15])
    }
}
