import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import XCTest
@testable import SluiceServer

/// A body the control API cannot decode is answered like a file error: which field, and a
/// did-you-mean for a likely typo, not Swift's decoder talking.
final class ProblemMiddlewareTests: XCTestCase {
    private func patchEncoder(_ json: String) async throws -> (status: HTTPResponse.Status, detail: String) {
        let server = SluiceHTTPServer(configuration: .init(host: "127.0.0.1", port: 0, token: "t0k"))
        return try await server.application().test(.router) { client in
            let r = try await client.execute(
                uri: "/api/v1/pipelines/cam/send/video/encoder", method: .patch,
                headers: [.authorization: "Bearer t0k", .contentType: "application/json"], body: ByteBuffer(string: json))
            let o = try JSONSerialization.jsonObject(with: Data(buffer: r.body)) as? [String: Any]
            return (r.status, o?["detail"] as? String ?? "")
        }
    }

    func testAMistypedFieldGetsADidYouMean() async throws {
        let r = try await patchEncoder(#"{"bitrat_kbps": 300}"#)
        XCTAssertEqual(r.status, .badRequest)
        XCTAssertTrue(
            r.detail.contains(
                "'bitrate_kbps' is missing; the body has 'bitrat_kbps': did you mean 'bitrate_kbps' (in kbit/s, as in pipeline files)?"),
            r.detail)
        XCTAssertFalse(r.detail.contains("CodingKeys"), "no decoder internals: \(r.detail)")
    }

    /// The field's name before it said its unit (`bitrate`, in bit/s) is pointed to the new
    /// one, with the unit.
    func testAFieldWithoutItsUnitGetsADidYouMeanWithTheUnit() async throws {
        let r = try await patchEncoder(#"{"bitrate": 300000}"#)
        XCTAssertEqual(r.status, .badRequest)
        XCTAssertTrue(
            r.detail.contains(
                "'bitrate_kbps' is missing; the body has 'bitrate': did you mean 'bitrate_kbps' (in kbit/s, as in pipeline files)?"),
            r.detail)
    }

    func testAnUnknownFieldIsNamed() async throws {
        let r = try await patchEncoder(#"{"bitrate_kbps": 300, "fps": 30}"#)
        XCTAssertEqual(r.status, .badRequest)
        XCTAssertTrue(r.detail.contains("'fps' is not a field of this request"), r.detail)
    }

    func testAWrongTypeNamesItsField() async throws {
        let r = try await patchEncoder(#"{"bitrate_kbps": "fast"}"#)
        XCTAssertEqual(r.status, .badRequest)
        XCTAssertTrue(r.detail.contains("'bitrate_kbps':"), r.detail)
    }
}
