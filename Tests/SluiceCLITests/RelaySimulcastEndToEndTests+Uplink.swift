import Foundation
import SluiceTestSupport
import XCTest

/// The simulcast publisher's own congestion control (`encode.adaptive_layers`) behind a link
/// that drops and comes back (Benchmarks/simulcast_uplink.py: the publisher in one namespace,
/// `sluice serve --relay` in another, a token bucket between them). What the server receives
/// is the proof: its `sluice_relay_layer_sending` per layer, read every 100 ms.
extension RelaySimulcastEndToEndTests {
    /// 3 Mbit/s carries every layer; at 400 kbit/s the top layer (1 Mbit/s) stops reaching
    /// the server while the smallest keeps coming; back at 3 Mbit/s the top layer returns.
    func testThePublisherSwitchesItsTopLayerOffWhenItsLinkDropsAndOnWhenItComesBack() throws {
        let r = try CLI.execute(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [Repository.path("Benchmarks/simulcast_uplink.py"), "--sluice", CLI.binary.path, "--runs", "1", "--json"],
            env: ["FREE": "8", "DROP": "8", "AFTER": "22"], timeout: 150, reportPath: nil)
        XCTAssertEqual(r.status, 0, r.stderr)
        let line = try XCTUnwrap(r.stdout.split(separator: "\n").last, r.stderr)
        print("SimulcastUplink:", line)
        let result = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line))
        let run = try XCTUnwrap((result["runs_raw"] as? [[String: Any]])?.first, String(line))
        XCTAssertNil(run["publisher_error"] as? String, String(line))
        XCTAssertGreaterThanOrEqual((run["top_sent_before_drop"] as? NSNumber)?.doubleValue ?? 0, 0.9, "a free link carries every layer: \(line)")
        let off = try XCTUnwrap((run["top_off_after_drop_s"] as? NSNumber)?.doubleValue, "the top layer never stopped: \(line)")
        XCTAssertLessThanOrEqual(off, 6, "the top layer stops within seconds of the drop: \(line)")
        XCTAssertGreaterThanOrEqual((run["smallest_sent_during_drop"] as? NSNumber)?.doubleValue ?? 0, 0.9, "the smallest layer keeps coming: \(line)")
        XCTAssertNotNil(run["top_on_after_restore_s"] as? NSNumber, "the top layer came back once the link did: \(line)")
        let layers = try XCTUnwrap(run["layers"] as? [[String: Any]], String(line))
        let top = try XCTUnwrap(layers.first { $0["rid"] as? String == "h" }, String(line))
        XCTAssertGreaterThanOrEqual((top["switched_off"] as? NSNumber)?.intValue ?? 0, 1, "the publisher's report: \(line)")
        XCTAssertGreaterThanOrEqual((top["switched_on"] as? NSNumber)?.intValue ?? 0, 1, "the publisher's report: \(line)")
        XCTAssertEqual(layers.first { $0["rid"] as? String == "l" }?["switched_off"] as? NSNumber, 0, "the smallest layer is always sent: \(line)")
    }
}
