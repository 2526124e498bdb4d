import SluiceSignalling
import XCTest

/// `--stun` and `--turn` as viewers receive them: `Link` headers and `RTCIceServer`s.
final class ICEServerTests: XCTestCase {
    func testTURNCredentialsAndSchemesAreSplitOut() {
        let t = ICEServer(turn: "turn://viewer:se:cret@100.64.0.1:3478?transport=tcp")
        XCTAssertEqual(t.url, "turn:100.64.0.1:3478?transport=tcp")
        XCTAssertEqual(t.username, "viewer")
        XCTAssertEqual(t.credential, "se:cret", "the password is everything after the user's colon")
        XCTAssertTrue(t.isTURN)
        XCTAssertEqual(t.rtcIceServer, ["urls": "turn:100.64.0.1:3478?transport=tcp", "username": "viewer", "credential": "se:cret"])
        XCTAssertEqual(ICEServer(turn: "turns://u:p@turn.example:5349").url, "turns:turn.example:5349")
    }

    func testSTUNHasNoCredentials() {
        let s = ICEServer(stun: "stun://127.0.0.1:3478")
        XCTAssertEqual(s.rtcIceServer, ["urls": "stun:127.0.0.1:3478"])
        XCTAssertFalse(s.isTURN)
        XCTAssertEqual(s.linkHeader, "<stun:127.0.0.1:3478>; rel=\"ice-server\"")
        XCTAssertEqual(ICEServer.list(stun: ["stun://a:1"], turn: ["turn://u:p@b:2"]).map(\.url), ["stun:a:1", "turn:b:2"])
    }
}
