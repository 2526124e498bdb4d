import Foundation
import SluiceTestSupport
import XCTest

/// Isolation, dead peers and resources under load, with a foreign stack as the viewers
/// (`Tests/Interop/load/`): what the server holds must come back to where it started.
final class ServeLoadTests: XCTestCase {
    struct Resources { var fds: Int; var threads: Int; var rssKB: Int }

    static func resources(_ line: String?) throws -> Resources {
        let line = try XCTUnwrap(line)
        func v(_ k: String) -> Int { Int(line.components(separatedBy: "\(k)=").last?.split(separator: " ").first ?? "") ?? -1 }
        return Resources(fds: v("fds"), threads: v("threads"), rssKB: v("rss"))
    }

    static func line(_ prefix: String, in out: String) -> String? {
        out.split(separator: "\n").last { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }

    static func run(_ script: String, env: [String: String], port: Int, timeout: Double) throws -> CLIResult {
        try CLI.execute(
            inNamespace: "ip link set lo up; exec bash \(Repository.root.path)/Tests/Interop/load/\(script)",
            env: env.merging(["SLUICE": CLI.binary.path, "PYTHON": Repository.python, "PORT": "\(port)"]) { a, _ in a },
            timeout: timeout, reportPath: nil)
    }

    /// 40 aiortc viewers on one stream; 20 vanish without DELETE (killed). The other 20 keep
    /// getting the stream (continuous RTP, no silence, a keyframe after each PLI; 3 of them
    /// decode pictures), the vanished are found within 10 s, and after the rest leave the
    /// viewer count is 0 and open files and threads are back at the baseline.
    ///
    /// The viewers count RTP packets at their video receiver and decoded frames themselves:
    /// aiortc's `getStats()` reports one inbound-rtp entry per receiver, which after the first
    /// retransmission is the RTX stream's count (that once read as "every viewer stalled").
    func testForeignViewersHalfVanishingDoNotHurtTheOthers() throws {
        try CLI.requireBrowserTools()
        let r = try Self.run("crowd.sh", env: [:], port: 18661, timeout: 150)
        XCTAssertEqual(r.status, 0, r.stderr.suffix(3000) + "")
        let out = r.stdout
        let reaped = try XCTUnwrap(Self.line("REAPED_AFTER ", in: out), out)
        let seconds = Double(reaped.split(separator: " ").first ?? "") ?? 99
        XCTAssertLessThanOrEqual(seconds, 10, "vanished viewers are removed within 10 s: \(reaped)")
        XCTAssertTrue(reaped.contains(#""viewers":20"#) && reaped.contains(#""silent":20"#), reaped)
        let stayers = try XCTUnwrap(Self.line("STAYERS ", in: out), out)
        let j = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(stayers.utf8)) as? [String: Any])
        let context = "\(stayers)\n\(reaped)\n\(out.suffix(1500))"
        // What the server controls, at every staying viewer.
        let packets = j["packets_last_2s"] as? [Int] ?? [], all = j["packets"] as? [Int] ?? []
        let missing = j["seq_missing"] as? [Int] ?? [], gaps = j["max_gap_ms"] as? [Int] ?? []
        XCTAssertEqual(packets.count, 20, stayers)
        // 15 fps of 320x180 VP8 is at least 15 RTP packets a second, sent to each viewer apart.
        XCTAssertTrue(packets.allSatisfy { $0 >= 30 }, "every staying viewer still gets the stream: \(context)")
        // RTP continuity: the stream's sequence numbers arrive (or are repaired) without holes.
        XCTAssertEqual(missing.count, 20, stayers)
        for (m, n) in zip(missing, all) {
            XCTAssertLessThanOrEqual(m, max(2, n / 100), "at most 1% of a viewer's packets missing after repair: \(context)")
        }
        // No silence a viewer would be reaped for (the reaper's silence timeout): the server
        // kept sending to the stayers while it found and removed the vanished.
        let reapAfterMs = 6000 // ViewerReaper's default `silenceTimeout`
        XCTAssertTrue(gaps.count == 20 && gaps.allSatisfy { $0 < reapAfterMs }, "longest silence at each viewer: \(context)")
        // Keyframes: each PLI a counting viewer sent was answered by a keyframe.
        let answered = j["pli_answered_ms"] as? [[Int]] ?? [], unanswered = j["pli_unanswered"] as? [Int] ?? []
        XCTAssertEqual(answered.count, 17, stayers)
        XCTAssertTrue(answered.allSatisfy { $0.count == 2 && $0.allSatisfy { $0 < 2000 } }, "a keyframe within 2 s of each PLI: \(context)")
        XCTAssertEqual(unanswered.reduce(0, +), 0, stayers)
        // What a user sees, at the few viewers that decode (decoding twenty in one Python
        // process on two cores would measure aiortc, not the server): pictures, still flowing.
        let frames = j["frames"] as? [Int] ?? [], recent = j["frames_last_2s"] as? [Int] ?? []
        XCTAssertEqual(frames.count, 3, stayers)
        XCTAssertTrue(frames.allSatisfy { $0 >= 30 }, "every decoding viewer decoded pictures: \(stayers)")
        XCTAssertTrue(recent.allSatisfy { $0 >= 15 }, "and still decodes ≥ 7.5 fps at the end: \(stayers)")
        let end = try XCTUnwrap(Self.line("END ", in: out))
        XCTAssertTrue(end.contains(#""viewers":0"#) && end.contains(#""deleted":20"#), end)
        let before = try Self.resources(Self.line("BASE ", in: out)), after = try Self.resources(Self.line("AFTER ", in: out))
        XCTAssertLessThanOrEqual(after.fds, before.fds + 10, "open files back at baseline: \(before) → \(after)")
        XCTAssertLessThanOrEqual(after.threads, before.threads + 2, "threads back at baseline: \(before) → \(after)")
    }

    /// 200 WHEP viewers and 200 WHIP publishers, each created and DELETEd: open files,
    /// threads and memory end within a small bound of where they started.
    func testTwoHundredWHEPAndWHIPCyclesReturnToBaseline() throws {
        try CLI.requireBrowserTools()
        let r = try Self.run("churn.sh", env: ["N": "200"], port: 18662, timeout: 300)
        XCTAssertEqual(r.status, 0, r.stderr.suffix(3000) + "")
        XCTAssertFalse(r.stdout.contains("no location"), "every POST created a session: \(r.stdout.suffix(2000))")
        let codes = r.stdout.split(separator: "\n").first { $0.contains(" 200 ") } ?? ""
        XCTAssertEqual(codes.split(separator: " ").filter { $0 == "200" }.count, 400, "every DELETE answered 200: \(codes.prefix(300))")
        let before = try Self.resources(Self.line("BASE ", in: r.stdout)), after = try Self.resources(Self.line("AFTER ", in: r.stdout))
        XCTAssertLessThanOrEqual(after.fds, before.fds + 10, "\(before) → \(after)")
        XCTAssertLessThanOrEqual(after.threads, before.threads + 2, "\(before) → \(after)")
        XCTAssertLessThanOrEqual(after.rssKB, before.rssKB + 10_000, "\(before) → \(after)")
        XCTAssertTrue(r.stdout.contains(#""viewers":0"#), r.stdout.suffix(500) + "")
    }
}
