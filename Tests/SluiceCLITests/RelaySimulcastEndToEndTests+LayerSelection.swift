import Foundation
import SluiceTestSupport
import XCTest

/// WHEP's video layer selection (draft-ietf-wish-whep): a viewer of a simulcast relay is
/// told where to choose its layer (`Link: <…/layer>; rel="urn:ietf:params:whep:ext:core:layer"`)
/// and moves there when it asks.
extension RelaySimulcastEndToEndTests {
    /// aiortc, a WHEP viewer nobody here wrote, asks for the smallest layer, a layer that is
    /// not there, the largest and then the server's own choice: it decodes 160x90, gets a 400
    /// naming the layers, decodes 640x360, and is answered 200; each move lands within 2 s.
    /// A selection that is not JSON gets 415, one for a session that is not there 404.
    func testAViewerChoosesItsLayerThroughWHEPLayerSelection() throws {
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-layer-selection-\(UUID().uuidString)").path
        defer { for suffix in ["aiortc", "p.err", "server"] { try? FileManager.default.removeItem(atPath: "\(t).\(suffix)") } }
        let script = """
            ip link set lo up
            \(Self.relayWithPublisher(port: 18487, logged: true))
            "$PYTHON" Tests/Interop/aiortc/aiortc_peer.py whep-play http://127.0.0.1:18487/whep/live --no-audio --seconds 4 \\
              --select-layers l,zz,h,auto > "$T.aiortc" 2>&1
            echo "AIORTC: $?"
            echo "NOTJSON: $(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: text/plain' -d 'l' http://127.0.0.1:18487/whep/live/nobody/layer)"
            echo "NOBODY: $(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' -d '{"rid":"l"}' http://127.0.0.1:18487/whep/live/nobody/layer)"
            kill -INT $publisher; wait $publisher
            kill -INT $server; wait $server
            """
        let r = try CLI.execute(
            inNamespace: script, env: ["SLUICE": CLI.binary.path, "PYTHON": Repository.python, "T": t], timeout: 150, reportPath: nil)
        let output = (try? String(contentsOfFile: "\(t).aiortc", encoding: .utf8)) ?? ""
        let context = "\(r.stdout.suffix(2000))\naiortc: \(output.suffix(3000))"
        XCTAssertEqual(r.keyedLines["AIORTC"], "0", context)
        let line = output.split(separator: "\n").last.map(String.init) ?? ""
        let played = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
        let selections = played["layer_selections"] as? [[String: Any]] ?? []
        print("layer selection through aiortc: \(selections)")
        let int = { (s: [String: Any], k: String) in (s[k] as? NSNumber)?.intValue ?? -1 }
        XCTAssertEqual(selections.map { $0["rid"] as? String ?? "?" }, ["l", "zz", "h", "auto"], context)
        XCTAssertEqual(selections.map { int($0, "status") }, [200, 400, 200, 200], "\(selections)")
        guard selections.count == 4 else { return }
        XCTAssertEqual([int(selections[0], "width"), int(selections[0], "height")], [160, 90], "the smallest layer: \(selections[0])")
        XCTAssertEqual([int(selections[2], "width"), int(selections[2], "height")], [640, 360], "the largest layer: \(selections[2])")
        // On a slow move, the relay's account of it: when it was pinned, asked again, landed.
        let moves = ((try? String(contentsOfFile: "\(t).server", encoding: .utf8)) ?? "").split(separator: "\n").filter { $0.contains("rendition") }
        for s in [selections[0], selections[2]] {
            XCTAssertLessThan(int(s, "ms"), 2000, "the move landed within 2 s: \(s)\nthe relay:\n\(moves.suffix(30).joined(separator: "\n"))")
        }
        let refused = selections[1]["body"] as? String ?? ""
        XCTAssertTrue(refused.contains("no layer 'zz'") && refused.contains("h, m, l"), "the 400 names the layers: \(refused)")
        XCTAssertTrue((selections[3]["body"] as? String ?? "").contains(#""rid":null"#), "back to the server's choice: \(selections[3])")
        XCTAssertEqual(r.keyedLines["NOTJSON"], "415", context)
        XCTAssertEqual(r.keyedLines["NOBODY"], "404", context)
    }
}
