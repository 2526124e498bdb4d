import Foundation
import Hummingbird
import HummingbirdWebSocket
import SluiceSignalling

/// The web page at `GET /` (see `WebPage`), the list of WHIP receivers it shows,
/// `GET /receivers.json`: `[{"name": ..., "whip": "/whip/<name>"}]`, and the ICE servers its
/// peer connections use, `GET /ice-servers.json`: `{"iceServers": [RTCIceServer...]}`.
extension SluiceHTTPServer {
    /// The page itself: public, it holds no data (everything it shows, it fetches with the
    /// token typed into it).
    func addPageRoutes(to router: Routes) {
        let page = ByteBuffer(string: WebPage.html)
        router.get("/") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache"],
                body: .init(byteBuffer: page))
        }
    }

    /// The data the page polls besides `/streams.json` and `/whip.json`: protected.
    func addPageDataRoutes(to router: Routes) {
        let list = ingest.receivers.keys.sorted().map { ["name": $0, "whip": "/whip/\($0)"] }
        let receivers =
            (try? JSONSerialization.data(withJSONObject: list, options: [.sortedKeys]))
            .map { String(decoding: $0, as: UTF8.self) } ?? "[]"
        router.get("/receivers.json") { _, _ -> Response in Self.json(receivers) }
        // Protected like the WHEP POST whose Link headers carry the same credentials.
        let servers = ICEServer.list(stun: configuration.stun, turn: configuration.turn).map(\.rtcIceServer)
        let ice =
            (try? JSONSerialization.data(withJSONObject: ["iceServers": servers], options: [.sortedKeys]))
            .map { String(decoding: $0, as: UTF8.self) } ?? #"{"iceServers":[]}"#
        router.get("/ice-servers.json") { _, _ -> Response in Self.json(ice) }
    }
}
