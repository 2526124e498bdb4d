import Foundation
import SluiceTestSupport

extension CLI {
    /// What a round trip through an echo peer gave: the measure's result (its JSON report as
    /// `report`) and the peer's own JSON line (empty when it printed none).
    struct RoundTrip {
        var result: CLIResult
        var peer: [String: Any]
    }

    /// `sluice measure Pipelines/room-echo.yaml --round-trip` for `seconds` (leaving out the
    /// first `warmup`), with an audio stamp every 400 ms, against the echo peer `peer`
    /// (`chromium`, `firefox` or `aiortc`) in an AppRTC room of a `sluice serve` on `port`:
    /// `Benchmarks/room-echo-peer.sh`, as the benchmark runs it, in a namespace of its own.
    /// `file` is the pipeline measured, `peerArguments` more arguments for the echo peer
    /// (`ECHO_PEER_ARGS`), `environment` more variables for both, `prelude` shell lines run in
    /// the namespace first (a `tc … netem` on `lo`), `measureArguments` more arguments for the
    /// measure (`--set …`).
    static func roundTrip(
        through peer: String, port: Int, seconds: Int = 10, warmup: Int = 3, timeout: Double = 150,
        file: String = "Pipelines/room-echo.yaml", peerArguments: String = "", environment: [String: String] = [:],
        prelude: String = "", measureArguments: [String] = []
    ) throws -> RoundTrip {
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-echo-\(peer)-\(UUID().uuidString.prefix(6))").path
        defer { for e in ["json", "peer"] { try? FileManager.default.removeItem(atPath: "\(t).\(e)") } }
        let script = """
            ip link set lo up
            \(prelude)
            ROOM_ECHO_PORT=\(port) ECHO_PEER_OUT='\(t).peer' \(Repository.path("Benchmarks/room-echo-peer.sh")) \(peer) \\
              "$SLUICE" measure \(file) --round-trip --duration \(seconds) --warmup \(warmup) --quiet \\
              --json '\(t).json' --set 'send.audio.filters=[{filter: audiostamp, interval_ms: 400}]' \(Shell.quote(measureArguments))
            """
        let env = ["SLUICE": binary.path, "PYTHON": Repository.python, "ECHO_PEER_ARGS": peerArguments].merging(environment) { $1 }
        let r = try execute(inNamespace: script, env: env, timeout: timeout, reportPath: "\(t).json")
        let line = (try? String(contentsOfFile: "\(t).peer", encoding: .utf8))?.split(separator: "\n").last.map(String.init) ?? ""
        let peer = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
        return RoundTrip(result: r, peer: peer)
    }
}
