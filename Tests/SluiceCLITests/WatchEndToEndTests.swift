import Foundation
import XCTest

/// `sluice run --watch`: editing the file's filters applies them live; editing anything
/// else is reported as needing a restart; an invalid edit keeps the pipeline running.
final class WatchEndToEndTests: XCTestCase {
    func testEditsAreAppliedOrReported() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("w.yaml").path
        func write(filters: String, fps: Int = 30) throws {
            try """
            transport: { ice: { addresses: [127.0.0.1] } }
            send:
              video:
                capture: { kind: test, width: 160, height: 120, fps: \(fps) }
                filters:
            \(filters)
                encode: { codec: vp8, bitrate: 300 }
            """.write(toFile: file, atomically: true, encoding: .utf8)
        }
        try write(filters: "      - filter: grayscale")

        // Drive the edits from the process's own output: each edit waits for the line the
        // previous one produced (no sleeping on guesses).
        let script = EditScript(steps: [
            ("fps", { try write(filters: "      - filter: invert\n      - filter: pixelate\n        block: 8") }),
            ("applied send.video.filters", { try write(filters: "      - filter: invert", fps: 15) }),
            ("need a restart", { try write(filters: "      - filter: nosuchfilter") }),
            ("the file is invalid now", nil)
        ])
        let r = try CLI.run(
            ["run", file, "--watch", "--report", dir.appendingPathComponent("r.json").path],
            timeout: 60
        ) { line, process in
            if script.advance(on: line) { process.interrupt() }
        }
        XCTAssertTrue(script.finished, "stopped at step \(script.step): \(r.stdout)\n\(r.stderr)")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("watch: applied send.video.filters without restarting"), r.stdout)
        XCTAssertTrue(r.stdout.contains("watch: changes to send.video need a restart"), r.stdout)
        XCTAssertTrue(r.stderr.contains("unknown Swift filter 'nosuchfilter'"), r.stderr)
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("r.json"))) as? [String: Any]
        let filters = (report?["filters"] as? [[String: Any]])?.compactMap { $0["filter"] as? String } ?? []
        XCTAssertEqual(filters, ["grayscale", "invert", "pixelate", "invert"], "each applied chain ran")
    }

    /// An audio chain edited while a tone plays (gain −12 dB → gain 0 dB and a level meter) is
    /// swapped in without a restart, and the receiver hears the louder tone.
    func testAnAudioChainEditIsHeardWithoutARestart() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("a.yaml").path
        func write(filters: String) throws {
            try """
            transport: { ice: { addresses: [127.0.0.1] } }
            send:
              audio:
                capture: { kind: test, wave: sine, frequency: 440 }
                filters:
            \(filters)
                encode: { codec: opus, bitrate: 64 }
            receive:
              audio:
                filters:
                  - filter: level
                    interval_ms: 200
            """.write(toFile: file, atomically: true, encoding: .utf8)
        }
        try write(filters: "      - filter: gain\n        db: -12")
        // Each live line (one a second) carries the bitrate; three after the swap give the
        // receiver's meter several intervals of the new sound.
        let script = EditScript(steps: [
            ("kbit/s", { try write(filters: "      - filter: gain\n        db: 0\n      - filter: level") }),
            ("applied send.audio.filters", nil), ("kbit/s", nil), ("kbit/s", nil), ("kbit/s", nil)
        ])
        let report = dir.appendingPathComponent("r.json").path
        let r = try CLI.run(["run", file, "--watch", "--report", report], timeout: 60) { line, process in
            if script.advance(on: line) { process.interrupt() }
        }
        XCTAssertTrue(script.finished, "stopped at step \(script.step): \(r.stdout)\n\(r.stderr)")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("watch: applied send.audio.filters without restarting"), r.stdout)
        XCTAssertFalse(r.stdout.contains("need a restart"), r.stdout)
        let j = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        let filters = j["filters"] as? [[String: Any]] ?? []
        XCTAssertEqual(filters.compactMap { $0["filter"] as? String }.filter { $0 == "gain" }.count, 2, "both chains ran: \(filters)")
        // The meters' last readings: the tone (RMS −4.95 dBFS) at 0 dB, sent and heard.
        let levels = filters.filter { $0["filter"] as? String == "level" }.compactMap {
            (($0["last_event_fields"] as? [String: Any])?["level"] as? [String: Any])?["rms_db"] as? Double
        }
        XCTAssertEqual(levels.count, 2, "\(filters)")
        for level in levels { XCTAssertEqual(level, -4.95, accuracy: 1.5, "the louder tone after the swap: \(levels)") }
    }

    /// A send branch's encoded filters edited while it runs are swapped in without a restart:
    /// `sei` added to an H.264 sender that had none (the receiver's reader starts reading its
    /// messages), then replaced by `faults` dropping every second frame (the messages stop,
    /// the frames keep coming, half of them).
    func testASendersEncodedFiltersAreSwappedWhileItRuns() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("s.yaml").path
        func write(encoded: String) throws {
            try """
            transport: { ice: { addresses: [127.0.0.1] } }
            send:
              video:
                capture: { kind: test, width: 320, height: 240, fps: 30 }
                encode: { codec: h264, bitrate: 500 }
            \(encoded)
            receive:
              video:
                codecs: [h264]
                encoded_filters:
                  - filter: sei
            """.write(toFile: file, atomically: true, encoding: .utf8)
        }
        try write(encoded: "")
        let script = EditScript(steps: [
            ("fps", { try write(encoded: "    encoded_filters:\n      - filter: sei\n        value: 5") }),
            ("applied send.video.encoded_filters", nil), ("fps", nil),
            ("fps", { try write(encoded: "    encoded_filters:\n      - filter: faults\n        drop_every: 2") }),
            ("applied send.video.encoded_filters", nil), ("fps", nil), ("fps", nil)
        ])
        let report = dir.appendingPathComponent("r.json").path
        let r = try CLI.run(["run", file, "--watch", "--report", report], timeout: 60) { line, process in
            if script.advance(on: line) { process.interrupt() }
        }
        XCTAssertTrue(script.finished, "stopped at step \(script.step): \(r.stdout)\n\(r.stderr)")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.stdout.contains("need a restart"), r.stdout)
        let j = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        let filters = j["filters"] as? [[String: Any]] ?? []
        let seiFilters = filters.filter { $0["filter"] as? String == "sei" }
        XCTAssertEqual(seiFilters.count, 2, "the receiver's reader and the writer swapped in: \(filters)")
        let reader = seiFilters.first { (($0["events"] as? [String: Any])?["sei"] as? Int ?? 0) > 0 } ?? [:]
        XCTAssertGreaterThan((reader["events"] as? [String: Any])?["sei"] as? Int ?? 0, 20, "messages arrived once sei was swapped in: \(filters)")
        let value = ((reader["last_event_fields"] as? [String: Any])?["sei"] as? [String: Any])?["value"] as? Double
        XCTAssertEqual(value, 5, "\(reader)")
        let faults = try XCTUnwrap(filters.first { $0["filter"] as? String == "faults" }, "\(filters)")
        XCTAssertGreaterThan(faults["dropped"] as? Int ?? 0, 10, "faults swapped in dropped frames: \(faults)")
        let received = ((j["receive"] as? [String: Any])?["video"] as? [String: Any])?["frames"] as? Int ?? 0
        XCTAssertGreaterThan(received, 90, "frames kept coming across both swaps: \(j["receive"] ?? "")")
    }

    /// A new `e2ee` passphrase written on both ends of the file is set on the running filters
    /// (receiver first), not a restart: the picture keeps coming, hardly a frame fails.
    func testANewKeyInTheFileIsTakenByBothEndsWhileRunning() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("e.yaml").path
        func write(passphrase: String) throws {
            try """
            transport: { ice: { addresses: [127.0.0.1] } }
            send:
              video:
                capture: { kind: test, width: 160, height: 120, fps: 30 }
                encode: { codec: vp8, bitrate: 300 }
                encoded_filters:
                  - filter: e2ee
                    passphrase: \(passphrase)
            receive:
              video:
                codecs: [vp8]
                encoded_filters:
                  - filter: e2ee
                    passphrase: \(passphrase)
            """.write(toFile: file, atomically: true, encoding: .utf8)
        }
        try write(passphrase: "one")
        let script = EditScript(steps: [
            ("fps", { try write(passphrase: "s3cr3t-two") }),
            ("applied receive.video.encoded_filters, send.video.encoded_filters without restarting", nil),
            ("fps", nil), ("fps", nil)
        ])
        let report = dir.appendingPathComponent("r.json").path
        let r = try CLI.run(["run", file, "--watch", "--report", report], timeout: 60) { line, process in
            if script.advance(on: line) { process.interrupt() }
        }
        XCTAssertTrue(script.finished, "stopped at step \(script.step): \(r.stdout)\n\(r.stderr)")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.stdout.contains("need a restart"), r.stdout)
        XCTAssertFalse(r.stdout.contains("s3cr3t") || r.stderr.contains("s3cr3t"), "the key is never printed")
        let j = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        let filters = j["filters"] as? [[String: Any]] ?? []
        let failed = filters.compactMap { ($0["events"] as? [String: Any])?["decrypt-failed"] as? Int }.reduce(0, +)
        XCTAssertLessThanOrEqual(failed, 2, "\(filters)")
        let received = ((j["receive"] as? [String: Any])?["video"] as? [String: Any])?["frames"] as? Int ?? 0
        XCTAssertGreaterThan(received, 45, "frames kept coming across the change: \(j["receive"] ?? "")")
    }
}

/// Steps triggered by output lines; the last step's trigger ends the run.
final class EditScript: @unchecked Sendable { // all state behind `lock`
    private let lock = NSLock()
    private let steps: [(trigger: String, edit: (() throws -> Void)?)]
    private(set) var step = 0
    var finished: Bool { lock.lock(); defer { lock.unlock() }; return step >= steps.count }

    init(steps: [(String, (() throws -> Void)?)]) { self.steps = steps.map { (trigger: $0.0, edit: $0.1) } }

    /// Returns true when the final trigger appeared.
    func advance(on line: String) -> Bool {
        lock.lock(); defer { lock.unlock() }
        guard step < steps.count, line.contains(steps[step].trigger) else { return false }
        let edit = steps[step].edit
        step += 1
        try? edit?()
        return step == steps.count
    }
}
