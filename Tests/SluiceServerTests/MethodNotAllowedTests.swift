import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import XCTest
@testable import SluiceServer

/// A method a path does not have is `405` with `Allow` (the control API's in problem+json),
/// where the router alone answered 404 as if the path did not exist.
final class MethodNotAllowedTests: XCTestCase {
    func testAMethodAPathDoesNotHaveIs405WithAllow() async throws {
        let server = SluiceHTTPServer(configuration: .init(host: "127.0.0.1", port: 0, token: "s3cret"))
        try await server.application().test(.live) { client in
            let trace = try await client.execute(uri: "/api/v1/pipelines", method: .trace)
            XCTAssertEqual(trace.status, .methodNotAllowed)
            XCTAssertEqual(trace.headers[.allow], "GET, POST")
            XCTAssertEqual(trace.headers[.contentType], "application/problem+json")
            let problem = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(buffer: trace.body)) as? [String: Any])
            XCTAssertEqual(problem["status"] as? Int, 405)

            let put = try await client.execute(uri: "/api/v1/pipelines/cam/send/video/keyframe", method: .put)
            XCTAssertEqual(put.status, .methodNotAllowed)
            XCTAssertEqual(put.headers[.allow], "POST")

            let delete = try await client.execute(uri: "/streams.json", method: .delete)
            XCTAssertEqual(delete.status, .methodNotAllowed, "outside the API too")
            XCTAssertEqual(delete.headers[.allow], "GET")
            XCTAssertEqual(delete.headers[.contentType], "text/plain; charset=utf-8")

            let whep = try await client.execute(uri: "/whep/cam/a.1", method: .get)
            XCTAssertEqual(whep.headers[.allow], "DELETE, PATCH", "a session: \(whep.status)")

            // A path nothing serves stays 404, and a route that exists still answers itself.
            let nowhere = try await client.execute(uri: "/nowhere/at/all", method: .trace)
            XCTAssertEqual(nowhere.status, .notFound)
            let listed = try await client.execute(uri: "/api/v1/pipelines", method: .get, headers: [.authorization: "Bearer s3cret"])
            XCTAssertEqual(listed.status, .ok)
        }
    }
}
