import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SluiceSignalling
import XCTest
@testable import SluiceServer

/// `--token` over every route the server registers, taken from the router itself: a route
/// added later is walked too, and fails here unless it is protected or deliberately public.
final class AuthenticationTests: XCTestCase {
    /// The routes anyone may call, token or not (`SluiceHTTPServer.router()` says why). Adding
    /// a route here is a security decision.
    static let publicRoutes: Set<String> = [
        "GET /",
        "GET /status.json",
        "POST /join/{room}",
        "POST /message/{room}/{client}",
        "POST /leave/{room}/{client}",
        "GET /ws",
        "GET /healthz", // orchestrators' probes: a status word, nothing else
        "GET /readyz",
        "GET /openapi.yaml" // the control API's description: no data
    ]

    /// Routes that must exist and be protected: a floor, so the walk cannot pass by walking
    /// nothing (or by a route quietly moving to the public group).
    static let mustBeProtected: Set<String> = [
        "GET /streams.json", "GET /whip.json", "GET /receivers.json", "GET /ice-servers.json",
        "POST /whep/{stream}", "PATCH /whep/{stream}/{session}", "DELETE /whep/{stream}/{session}",
        "POST /whip/{name}", "PATCH /whip/{name}/{session}", "DELETE /whip/{name}/{session}",
        "POST /enterprises/{project}/devices/{command}",
        "GET /metrics", "GET /pipelines/{name}/{file}",
        "GET /api/v1/pipelines", "POST /api/v1/pipelines", "GET /api/v1/pipelines/{name}",
        "DELETE /api/v1/pipelines/{name}", "GET /api/v1/pipelines/{name}/events",
        "PUT /api/v1/pipelines/{name}/branches/{side}/{media}/filters",
        "PATCH /api/v1/pipelines/{name}/branches/{side}/{media}/filters/{index}",
        "PATCH /api/v1/pipelines/{name}/send/{media}/encoder", "POST /api/v1/pipelines/{name}/send/video/keyframe",
        "PATCH /api/v1/pipelines/{name}/send/{media}/track", "POST /api/v1/pipelines/{name}/datachannels/{label}/messages"
    ]

    private static let token = "s3cret"

    private static func server(token: String?) -> SluiceHTTPServer {
        SluiceHTTPServer(configuration: .init(host: "127.0.0.1", port: 0, token: token))
    }

    /// Every registered route as (description, method, a URI that matches it).
    private static func routes(_ server: SluiceHTTPServer) -> [(name: String, method: HTTPRequest.Method, uri: String)] {
        let samples = [
            "room": "r1", "client": "c1", "stream": "cam", "name": "pub", "session": "s1",
            "project": "p", "command": "server:executeCommand", "side": "send", "media": "video",
            "index": "0", "label": "chat"
        ]
        return server.router().routes.map { route in
            let path = route.path.description
            // `{parameter}` → a sample value; anything else is taken literally.
            var uri = ""
            var rest = Substring(path)
            while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
                uri += rest[..<open]
                uri += samples[String(rest[rest.index(after: open)..<close])] ?? "x"
                rest = rest[rest.index(after: close)...]
            }
            uri += rest
            return ("\(route.method) \(path)", route.method, uri)
        }
    }

    private static func isCamera(_ uri: String) -> Bool { uri.hasPrefix("/enterprises/") }
    private static func isControlAPI(_ uri: String) -> Bool { uri.hasPrefix("/api/") }

    func testTheRouteListIsComplete() {
        let names = Set(Self.routes(Self.server(token: Self.token)).map(\.name))
        XCTAssertTrue(Self.publicRoutes.isSubset(of: names), "stale public list: \(Self.publicRoutes.subtracting(names))")
        XCTAssertTrue(Self.mustBeProtected.isSubset(of: names), "missing routes: \(Self.mustBeProtected.subtracting(names))")
        XCTAssertTrue(Self.publicRoutes.isDisjoint(with: Self.mustBeProtected))
        XCTAssertGreaterThanOrEqual(names.count, Self.publicRoutes.count + Self.mustBeProtected.count, "\(names.sorted())")
    }

    /// With `--token`: every route but the public ones answers 401 (and `WWW-Authenticate:
    /// Bearer`) without a token and 403 with a wrong one, before its handler runs; with the
    /// token it gets past authentication. Public routes answer either way.
    func testEveryRouteNeedsTheTokenUnlessPublic() async throws {
        let server = Self.server(token: Self.token)
        let routes = Self.routes(server)
        try await server.application().test(.live) { client in
            for route in routes {
                let label = "\(route.name) as \(route.method) \(route.uri)"
                let none = try await client.execute(uri: route.uri, method: route.method)
                let wrong = try await client.execute(uri: route.uri, method: route.method, headers: [.authorization: "Bearer wrong"])
                let basic = try await client.execute(uri: route.uri, method: route.method, headers: [.authorization: "Basic czNjcmV0"])
                let right = try await client.execute(uri: route.uri, method: route.method, headers: [.authorization: "Bearer \(Self.token)"])
                XCTAssertNotEqual(right.status, .unauthorized, label)
                XCTAssertNotEqual(right.status, .forbidden, label)
                // The router's own 404 has no body; the handlers' all say what was not found.
                XCTAssertFalse(right.status == .notFound && right.body.readableBytes == 0, "\(label): the router matched nothing")

                if Self.publicRoutes.contains(route.name) {
                    for r in [none, wrong, basic] {
                        XCTAssertNotEqual(r.status, .unauthorized, "public: \(label)")
                        XCTAssertNotEqual(r.status, .forbidden, "public: \(label)")
                    }
                    continue
                }
                XCTAssertEqual(none.status, .unauthorized, label)
                XCTAssertEqual(basic.status, .unauthorized, "another scheme is no bearer token: \(label)")
                XCTAssertTrue(none.headers[.wwwAuthenticate]?.hasPrefix("Bearer") ?? false, "\(label): \(none.headers)")
                if Self.isControlAPI(route.uri) {
                    // The control API: an unknown token is no token of this server (401), in
                    // problem+json; 403 is for a token whose scope is too small.
                    XCTAssertEqual(wrong.status, .unauthorized, label)
                    for r in [none, wrong] {
                        XCTAssertEqual(r.headers[.contentType], "application/problem+json", label)
                        let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(buffer: r.body)) as? [String: Any], label)
                        XCTAssertEqual(o["status"] as? Int, 401, label)
                        XCTAssertNotNil(o["detail"] as? String, label)
                    }
                    continue
                }
                XCTAssertEqual(wrong.status, .forbidden, label)
                if Self.isCamera(route.uri) {
                    // Google's error shape.
                    for (r, code, status) in [(none, 401, "UNAUTHENTICATED"), (wrong, 403, "PERMISSION_DENIED")] {
                        let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(buffer: r.body)) as? [String: Any], label)
                        let e = try XCTUnwrap(o["error"] as? [String: Any], label)
                        XCTAssertEqual(e["code"] as? Int, code, label)
                        XCTAssertEqual(e["status"] as? String, status, label)
                        XCTAssertNotNil(e["message"] as? String, label)
                        XCTAssertEqual(r.headers[.contentType], "application/json", label)
                    }
                } else {
                    // WHIP, WHEP, the lists and /metrics: problem+json (RFC 9457).
                    for (r, code) in [(none, 401), (wrong, 403)] {
                        XCTAssertEqual(r.headers[.contentType], "application/problem+json", label)
                        let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(buffer: r.body)) as? [String: Any], label)
                        XCTAssertEqual(o["status"] as? Int, code, label)
                        XCTAssertTrue((o["detail"] as? String ?? "").contains("bearer token"), "\(label): \(o)")
                    }
                }
            }
        }
    }

    /// Without `--token` nothing is refused for want of one.
    func testWithoutATokenEveryRouteIsOpen() async throws {
        let server = Self.server(token: nil)
        let routes = Self.routes(server)
        try await server.application().test(.live) { client in
            for route in routes {
                for headers: HTTPFields in [[:], [.authorization: "Bearer anything"], [.authorization: "Basic czNjcmV0"]] {
                    let r = try await client.execute(uri: route.uri, method: route.method, headers: headers)
                    XCTAssertNotEqual(r.status, .unauthorized, "\(route.name) \(headers)")
                    XCTAssertNotEqual(r.status, .forbidden, "\(route.name) \(headers)")
                }
            }
        }
    }

    /// The reported hole: the camera API handed out a stream without the token.
    func testCameraAPIRefusesAStreamWithoutTheToken() async throws {
        let body = #"{"command":"sdm.devices.commands.CameraLiveStream.GenerateWebRtcStream","params":{"offerSdp":"v=0"}}"#
        let server = Self.server(token: Self.token)
        try await server.application().test(.live) { client in
            let uri = "/enterprises/p/devices/server:executeCommand"
            let none = try await client.execute(
                uri: uri, method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: body))
            XCTAssertEqual(none.status, .unauthorized)
            XCTAssertTrue(String(buffer: none.body).contains(#""status":"UNAUTHENTICATED""#), String(buffer: none.body))
            let wrong = try await client.execute(
                uri: uri, method: .post, headers: [.contentType: "application/json", .authorization: "Bearer nope"],
                body: ByteBuffer(string: body))
            XCTAssertEqual(wrong.status, .forbidden)
            XCTAssertTrue(String(buffer: wrong.body).contains(#""status":"PERMISSION_DENIED""#), String(buffer: wrong.body))
            // With the token the request reaches the API (no device of that name here).
            let right = try await client.execute(
                uri: uri, method: .post, headers: [.contentType: "application/json", .authorization: "Bearer s3cret"],
                body: ByteBuffer(string: body))
            XCTAssertEqual(right.status, .notFound, String(buffer: right.body))
            XCTAssertTrue(String(buffer: right.body).contains("Device server not found"), String(buffer: right.body))
            XCTAssertEqual(server.cameras.count, 0)
        }
    }

    /// The page sends the token on every request it makes (its lists included), so it keeps
    /// working under `--token`.
    func testThePageSendsTheTokenOnEveryRequest() {
        let calls = WebPage.html.components(separatedBy: "fetch(").dropFirst()
        XCTAssertGreaterThanOrEqual(calls.count, 3, "the lists, the offer and the DELETE")
        for call in calls {
            let args = call.components(separatedBy: ");").first ?? ""
            XCTAssertTrue(args.contains("headers: headers("), "a fetch without the token: fetch(\(args.prefix(120))")
        }
    }
}
