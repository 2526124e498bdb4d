import Foundation
import SluiceTestSupport
import XCTest

/// The image of `deploy/Containerfile`, built by `deploy/build-image.sh` with no registry (a
/// debootstrap base, the binary under test copied in) and run by podman with runc: the
/// loopback pipeline plays inside it, as its non-root user on a read-only root, and
/// `sluice serve` in it behind the cloud NAT of `Tests/Interop/nat/topology.sh` serves an
/// aiortc viewer behind a home NAT (aiortc: a WebRTC stack nobody here wrote).
///
/// The image is built once per test process and tagged `localhost/sluice:test`; podman's
/// store keeps the base and the package layer between runs, so only the binary is new.
final class ContainerEndToEndTests: XCTestCase {
    static let image = "localhost/sluice:test"
    static let conf = Repository.path("deploy/containers.conf")

    /// The build's output (the size line), or why it failed: once per process.
    static let build: Result<String, BuildFailed> = {
        do {
            let r = try CLI.execute(
                URL(fileURLWithPath: "/bin/bash"), [Repository.path("deploy/build-image.sh"), image],
                env: ["SLUICE_BINARY": CLI.binary.path, "CONTAINERS_CONF": conf], timeout: 900, reportPath: nil)
            guard r.status == 0 else { return .failure(BuildFailed("build-image.sh failed (\(r.status)): \(r.stdout.suffix(2000)) \(r.stderr.suffix(3000))")) }
            return .success(r.stdout)
        } catch {
            return .failure(BuildFailed("build-image.sh did not run: \(error)"))
        }
    }()

    /// Why the image could not be built.
    struct BuildFailed: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    override func setUpWithError() throws {
        let missing = ["podman", "runc", "debootstrap", "catatonit"].filter { tool in
            !["/usr/bin", "/usr/sbin", "/sbin"].contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
        }
        if !missing.isEmpty { throw CLI.BrowserToolsMissing(missing: missing) }
        _ = try Self.build.get()
    }

    private func podman(_ script: String, timeout: Double = 120) throws -> CLIResult {
        try CLI.execute(
            URL(fileURLWithPath: "/bin/sh"), ["-c", script], env: ["CONTAINERS_CONF": Self.conf, "IMAGE": Self.image],
            timeout: timeout, reportPath: nil)
    }

    /// `Pipelines/loopback.yaml` inside the container with no network but its own loopback,
    /// as uid 10001 on a read-only root (as the Deployment runs it): 720p frames decoded.
    /// The image's size, and the part that is not Sluice's binary, are printed and bounded.
    func testTheImageRunsTheLoopbackPipelineAsItsUserOnAReadOnlyRoot() throws {
        let r = try podman(
            """
            podman run --rm --no-healthcheck --network none --read-only --tmpfs /tmp --entrypoint /bin/sh "$IMAGE" -c \\
              'id -u; sluice run /etc/sluice/pipelines/loopback.yaml --duration 4 --quiet --report /tmp/r.json > /dev/null && tr -d "\\n" < /tmp/r.json'
            echo
            echo "SIZE: $(podman image inspect "$IMAGE" --format '{{.Size}}')"
            podman run --rm --no-healthcheck --network none --entrypoint /bin/sh "$IMAGE" -c 'echo "SLUICE-BYTES: $(du -sb /usr/local | cut -f1)"'
            """)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let lines = r.stdout.components(separatedBy: "\n")
        XCTAssertEqual(lines.first, "10001", "not root: \(r.stdout)")
        let report = try XCTUnwrap(lines.first { $0.hasPrefix("{") }, r.stdout + r.stderr)
        let j = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any])
        let video = (j["receive"] as? [String: Any])?["video"] as? [String: Any]
        XCTAssertEqual(video?["width"] as? Int, 1280, report)
        XCTAssertEqual(video?["height"] as? Int, 720, report)
        XCTAssertGreaterThanOrEqual(video?["frames"] as? Int ?? 0, 60, report)
        let size = Int(lines.first { $0.hasPrefix("SIZE: ") }?.dropFirst(6) ?? "") ?? .max
        let sluice = Int(lines.first { $0.hasPrefix("SLUICE-BYTES: ") }?.dropFirst(14) ?? "") ?? .max
        print("image \(size / 1_000_000) MB, of which Sluice's binary and libraries \(sluice / 1_000_000) MB; first frame \(j["time_to_first_frame_ms"] ?? "?") ms")
        // The runtime: Debian, GStreamer's plugins and their libraries, without Sluice. The
        // release image adds its ~80 MB static binary (the README has its figure).
        XCTAssertLessThan(size - sluice, 520_000_000, "the runtime part grew: \(size) bytes in all, \(sluice) of them Sluice's")
    }

    /// `sluice serve` in the container, on the network namespace of the server behind the cloud
    /// NAT (podman `--network ns:`), with the public address and port range: an aiortc viewer
    /// behind the home NAT plays the moving picture. Ctrl-C (podman passes it on) ends it
    /// with exit 0.
    func testServeInTheContainerBehindNATPlaysToAViewerOutside() throws {
        let server = """
            CONTAINERS_CONF=\(Self.conf) podman run --rm --no-healthcheck --network ns:/run/netns/nats$ID --read-only --tmpfs /tmp \\
              -v "$TMP.yaml:/etc/sluice/serve.yaml:ro" \(Self.image) serve --pipeline /etc/sluice/serve.yaml
            """
        let (lines, raw) = try ServeNATEndToEndTests.behindNAT(
            serve: "--ice-public-address 100.64.0.1 --ice-port-range 40000-40099", udp: "40000:40099", timeout: 180,
            server: server,
            """
            view --seconds 3 --timeout 20 > "$TMP.view" 2> "$TMP.err"; echo "VIEW-STATUS: $?"
            echo "VIEW: $(cat "$TMP.view")"; echo "VIEW-ERR: $(tail -c 300 "$TMP.err" | tr '\\n' ' ')"; rm -f "$TMP.view" "$TMP.err"
            """)
        XCTAssertNil(lines["NO-HTTP"], raw)
        XCTAssertEqual(lines["VIEW-STATUS"], "0", raw)
        let j = (lines["VIEW"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]) ?? [:]
        XCTAssertEqual(j["width"] as? Int, 640, raw)
        XCTAssertEqual(j["picture_moves"] as? Bool, true, raw)
        XCTAssertGreaterThanOrEqual(j["fps"] as? Double ?? 0, 24, raw)
        XCTAssertEqual(lines["SERVE-EXIT"], "0", raw)
        print("container behind NAT: ready \(lines["READY-MS"] ?? "?") ms after podman run, first frame \(j["first_frame_ms"] ?? "?") ms")
    }
}
