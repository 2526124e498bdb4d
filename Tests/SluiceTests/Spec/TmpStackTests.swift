import Foundation
import Sluice
import XCTest

final class TmpStackTests: XCTestCase {
    func testSmallStack() {
        let depth = Int(ProcessInfo.processInfo.environment["DEPTH"] ?? "100")!
        let kind = ProcessInfo.processInfo.environment["KIND"] ?? "map"
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let text: String
            switch kind {
            case "map": text = "send: " + String(repeating: "{a: ", count: depth) + "1" + String(repeating: "}", count: depth)
            case "seq": text = "send: " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            default: text = (0..<depth).map { String(repeating: " ", count: $0) + "a:" }.joined(separator: "\n") + " 1"
            }
            _ = specLoad(text)
            print("OK", kind, depth)
            done.signal()
        }
        thread.stackSize = 512 * 1024
        thread.start()
        done.wait()
    }
}
