import Foundation
import XCTest

/// Tests that open sockets must run in a network namespace whose only interface is
/// loopback (Scripts/test.sh runs the suite under `unshare -n`).
func requireLoopbackOnlyNetwork(file: StaticString = #filePath, line: UInt = #line) throws {
    // /proc/net/dev lists the interfaces of this process's own network namespace.
    let table = (try? String(contentsOfFile: "/proc/net/dev", encoding: .utf8)) ?? ""
    let interfaces = table.split(separator: "\n").dropFirst(2)
        .compactMap { $0.split(separator: ":").first?.trimmingCharacters(in: .whitespaces) }
    guard interfaces == ["lo"] else {
        XCTFail("this test opens sockets: run it in a loopback-only namespace (Scripts/test.sh); interfaces here: \(interfaces)",
                file: file, line: line)
        throw XCTSkip("not isolated")
    }
}
