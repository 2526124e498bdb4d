import Foundation
import XCTest

/// Running tests' processes where the only network is loopback: in a fresh network namespace
/// made with `unshare -n`, so nothing a test starts can reach anything else (or be reached).
public enum NetworkNamespace {
    /// util-linux's `unshare`.
    public static let unshare = URL(fileURLWithPath: "/usr/bin/unshare")

    /// The command that runs the shell `script` in a fresh network namespace. The namespace's
    /// loopback starts down: the script brings it up (`ip link set lo up`) if it needs it.
    public static func shell(_ script: String) -> (executable: URL, arguments: [String]) {
        (unshare, ["-n", "sh", "-c", script])
    }

    /// The command that runs `executable arguments…` in a fresh network namespace whose
    /// loopback is up.
    public static func loopbackOnly(_ executable: URL, _ arguments: [String]) -> (executable: URL, arguments: [String]) {
        (unshare, ["-n", "sh", "-c", "ip link set lo up && exec \"$0\" \"$@\"", executable.path] + arguments)
    }

    /// The interfaces of this process's own network namespace (from `/proc/net/dev`).
    public static var interfaces: [String] {
        let table = (try? String(contentsOfFile: "/proc/net/dev", encoding: .utf8)) ?? ""
        return table.split(separator: "\n").dropFirst(2)
            .compactMap { $0.split(separator: ":").first?.trimmingCharacters(in: .whitespaces) }
    }
}

/// Tests that open sockets must run in a network namespace whose only interface is
/// loopback (Scripts/test.sh runs the suite under `unshare -n`): otherwise this fails the
/// test (and throws, so it goes no further).
public func requireLoopbackOnlyNetwork(file: StaticString = #filePath, line: UInt = #line) throws {
    let interfaces = NetworkNamespace.interfaces
    guard interfaces == ["lo"] else {
        XCTFail(
            "this test opens sockets: run it in a loopback-only namespace (Scripts/test.sh); interfaces here: \(interfaces)",
            file: file, line: line)
        throw XCTSkip("not isolated")
    }
}
