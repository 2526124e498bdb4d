import Foundation
import SluiceTestSupport
import XCTest

/// The harness every end-to-end test runs its scripts with: what a script leaves running
/// does not outlive it, nor hold its end back.
final class ProcessRunnerTests: XCTestCase {
    /// A script that starts a background process (which double-forks away from it, so no
    /// parent link leads there) and exits: `run` returns the script's status at once, and that
    /// process is gone.
    func testWhatAScriptLeavesRunningIsKilledWhenItEnds() throws {
        let r = try ProcessRunner.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "( sleep 300 > /dev/null 2>&1 & echo $! ); exit 7"], timeout: 20)
        XCTAssertEqual(r.status, 7, r.stderr)
        XCTAssertLessThan(r.seconds, 10, "the script's end was held back by what it left running")
        let pid = try XCTUnwrap(Int32(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), r.stdout)
        let deadline = Date().addingTimeInterval(5)
        while alive(pid), Date() < deadline { usleep(20_000) }
        XCTAssertFalse(alive(pid), "sleep (\(pid)) outlived the script that started it")
    }

    /// Running, and not a zombie waiting for its reaper.
    private func alive(_ pid: Int32) -> Bool {
        FileManager.default.fileExists(atPath: "/proc/\(pid)/stat") && !ProcessRunner.isZombie(pid)
    }
}
