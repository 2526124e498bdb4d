import Foundation
import Logging
import Synchronization
import XCTest
@testable import SluiceRun

final class JSONLogHandlerTests: XCTestCase {
    func testOneJSONObjectPerLineWithLevelLabelMessageAndMetadata() throws {
        let lines = Mutex<[Data]>([])
        var handler = JSONLogHandler(label: "sluice.test") { data in lines.withLock { $0.append(data) } }
        handler.logLevel = .info
        handler[metadataKey: "stream"] = "cam"
        var logger = Logger(label: "sluice.test") { _ in handler }
        logger.logLevel = .info
        logger.debug("not written")
        logger.warning("viewer \"a\"\nreaped", metadata: ["reason": "silent"])
        let written = lines.withLock { $0 }
        XCTAssertEqual(written.count, 1)
        let data = try XCTUnwrap(written.first)
        XCTAssertEqual(data.last, 0x0A, "newline-terminated")
        XCTAssertEqual(data.filter { $0 == 0x0A }.count, 1, "a message's own newline is escaped, not a line break")
        let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: String])
        XCTAssertEqual(o["level"], "warning")
        XCTAssertEqual(o["label"], "sluice.test")
        XCTAssertEqual(o["message"], "viewer \"a\"\nreaped")
        XCTAssertEqual(o["stream"], "cam")
        XCTAssertEqual(o["reason"], "silent")
        let time = try XCTUnwrap(o["time"])
        XCTAssertNotNil(try? Date(time, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted)), time)
        XCTAssertTrue(time.hasSuffix("Z"), time)
    }
}
