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
        print(
            "image \(size / 1_000_000) MB, of which Sluice's binary and libraries \(sluice / 1_000_000) MB; first frame \(j["time_to_first_frame_ms"] ?? "?") ms"
        )
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
        let j = ServeNATEndToEndTests.assertAiortcPlayed(lines, raw)
        XCTAssertEqual(lines["SERVE-EXIT"], "0", raw)
        print("container behind NAT: ready \(lines["READY-MS"] ?? "?") ms after podman run, first frame \(j["first_frame_ms"] ?? "?") ms")
    }

    /// `deploy/k8s/`'s ConfigMap and Deployment under `podman kube play`, with the image built
    /// here, on the network of the server behind the cloud NAT (the Deployment's hostNetwork
    /// is the namespace podman runs in). Only the image, the public address and the replica
    /// count are replaced (podman plays every replica on the one network, where the second
    /// cannot bind). `/readyz` turns ready; an aiortc viewer behind the home NAT plays the
    /// ConfigMap's stream with the Secret's token while an aiortc publisher sends to its WHIP
    /// receiver; stopping the pod with the grace period (SIGTERM, as the kubelet does) drains
    /// it: the viewer plays and the publisher sends to their ends, the recording is finalized
    /// and decodes to its end, exit 0.
    ///
    /// Two podman 4.3 limits, worked around here and named in docs/deploy.md: a Secret
    /// played from YAML is stored in a form its own `secretKeyRef` cannot read, so the
    /// podman secret is made from the Secret's value; and `podman kube down` kills at once
    /// (exit 137 after ~1 s), ignoring the grace period, so the pod is stopped first.
    func testKubePlayTheManifestsServesThroughNATAndDrainsOnStop() throws {
        let id = String(UUID().uuidString.prefix(6)).lowercased()
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("kube-\(id)").path
        let script = """
            ip link set lo up
            ID=\(id)
            bash Tests/Interop/nat/topology.sh up $ID 8443 40000:40099 || exit 94
            { cat deploy/k8s/configmap.yaml; echo ---; sed -e 's|image: sluice:latest|image: \(Self.image)|' \\
                -e 's|value: ""|value: "100.64.0.1"|' -e 's|replicas: 2|replicas: 1|' deploy/k8s/deployment.yaml; } > "$TMP.yaml"
            token=$(sed -n 's/^ *token: *//p' deploy/k8s/secret.yaml)
            # What an earlier play stopped half-way (a killed test, a machine image taken while
            # one ran) may have left: the pod, a storage-only container holding its name, the
            # volumes podman 4.3 makes of the emptyDirs and the ConfigMap and keeps after
            # `kube down`. Any of them makes this play fail or hang.
            podman pod rm -f sluice-pod-0 > /dev/null 2>&1; podman rm -f --storage sluice-pod-0-sluice > /dev/null 2>&1
            podman volume rm -f sluice-pipelines tmp recordings > /dev/null 2>&1
            podman secret rm sluice > /dev/null 2>&1
            printf '{"token":"%s"}' "$(printf %s "$token" | base64)" | podman secret create sluice - > /dev/null
            started=$(date +%s%N)
            timeout 60 nsenter --net=/run/netns/nats$ID podman kube play "$TMP.yaml" > "$TMP.play" 2>&1 \\
              || { echo "PLAY-FAILED: $? $(tail -c 400 "$TMP.play" | tr '\\n' ' ')"; podman ps -a --external; podman volume ls; exit 0; }
            i=0; until [ "$(ip netns exec nats$ID curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:8443/readyz)" = 200 ]; do
              i=$((i+1)); [ $i -lt 600 ] || { echo "NEVER-READY: 1"; break; }; sleep 0.05; done
            echo "READY-MS: $(( ($(date +%s%N) - started) / 1000000 ))"
            echo "USER: $(podman exec sluice-pod-0-sluice id -u)"
            ip netns exec natv$ID env AIORTC_HOST_ADDRESSES=192.168.1.2 "$PYTHON" Tests/Interop/aiortc/aiortc_peer.py whep-play \\
              http://100.64.0.1:8443/whep/camera --token "$token" --seconds 6 --timeout 20 > "$TMP.view" 2> "$TMP.err" &
            view=$!
            ip netns exec natv$ID env AIORTC_HOST_ADDRESSES=192.168.1.2 "$PYTHON" Tests/Interop/aiortc/aiortc_peer.py whip-publish \\
              http://100.64.0.1:8443/whip/ingest --token "$token" --seconds 6 > "$TMP.pub" 2> "$TMP.puberr" &
            pub=$!
            i=0; until ip netns exec nats$ID curl -s -H "Authorization: Bearer $token" http://127.0.0.1:8443/metrics | grep -q '^sluice_stream_viewers{.*} 1'; do
              i=$((i+1)); [ $i -lt 300 ] || break; sleep 0.1; done
            i=0; until ip netns exec nats$ID curl -s -H "Authorization: Bearer $token" http://127.0.0.1:8443/whip.json | grep -Eq '"video_frames":[0-9]{2,}'; do
              i=$((i+1)); [ $i -lt 300 ] || { echo "NEVER-PUBLISHED: 1"; break; }; sleep 0.1; done
            stop=$(date +%s%N)
            podman pod stop -t 40 sluice-pod-0 > /dev/null
            echo "STOP-MS: $(( ($(date +%s%N) - stop) / 1000000 ))"
            echo "EXIT: $(podman inspect sluice-pod-0-sluice --format '{{.State.ExitCode}}')"
            echo "LOG: $(podman logs sluice-pod-0-sluice 2>&1 | tail -5 | tr '\\n' ' ')"
            wait $view; echo "VIEW-STATUS: $?"
            wait $pub; echo "PUB-STATUS: $?"
            # The recording the drain finalized, copied out of the stopped container: it decodes
            # to its end (video and audio), and gst-discoverer reads its length.
            podman cp sluice-pod-0-sluice:/recordings/ingest.webm "$TMP.webm"; echo "COPY: $?"
            gst-launch-1.0 -q filesrc location="$TMP.webm" ! decodebin name=d d. ! queue ! videoconvert ! fakesink d. ! queue ! audioconvert ! fakesink \\
              > /dev/null 2>&1; echo "DECODE: $?"
            echo "RECORDING: $(gst-discoverer-1.0 "$TMP.webm" 2>&1 | grep -E 'Duration|video|audio' | tr '\\n' ' ')"
            echo "VIEW: $(cat "$TMP.view")"; echo "VIEW-ERR: $(tail -c 300 "$TMP.err" | tr '\\n' ' ')"
            podman kube down "$TMP.yaml" > /dev/null; echo "DOWN: $?"
            podman volume rm -f sluice-pipelines tmp recordings > /dev/null 2>&1
            podman secret rm sluice > /dev/null
            bash Tests/Interop/nat/topology.sh down $ID
            rm -f "$TMP.yaml" "$TMP.play" "$TMP.view" "$TMP.err" "$TMP.pub" "$TMP.puberr" "$TMP.webm"
            """
        defer {
            _ = try? podman(
                "podman pod rm -f sluice-pod-0; podman rm -f --storage sluice-pod-0-sluice; podman volume rm -f sluice-pipelines tmp recordings; podman secret rm sluice",
                timeout: 60)
            _ = try? ProcessRunner.run(URL(fileURLWithPath: "/bin/bash"), [Repository.path("Tests/Interop/nat/topology.sh"), "down", id], timeout: 20)
        }
        let r = try CLI.execute(
            inNamespace: script, env: ["PYTHON": Repository.python, "TMP": tmp, "CONTAINERS_CONF": Self.conf], timeout: 180, reportPath: nil)
        var lines: [String: String] = [:]
        for line in r.stdout.components(separatedBy: "\n") {
            guard let colon = line.range(of: ": ") else { continue }
            lines[String(line[..<colon.lowerBound])] = String(line[colon.upperBound...])
        }
        let raw = r.stdout + r.stderr
        XCTAssertNil(lines["PLAY-FAILED"], raw)
        XCTAssertNil(lines["NEVER-READY"], raw)
        XCTAssertEqual(lines["USER"], "10001", raw)
        XCTAssertEqual(lines["VIEW-STATUS"], "0", "the viewer played to its end through the drain: \(raw)")
        let j = (lines["VIEW"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]) ?? [:]
        XCTAssertEqual(j["width"] as? Int, 1280, raw)
        XCTAssertEqual(j["height"] as? Int, 720, raw)
        // 6 s of 720p30 is 180 frames; aiortc decoding it on a busy 2-core CI machine managed
        // 17.7 fps once (109 frames). 60 still says the picture flowed through NAT and drain.
        XCTAssertGreaterThanOrEqual(j["video_frames"] as? Int ?? 0, 60, raw)
        XCTAssertGreaterThan(j["audio_frames"] as? Int ?? 0, 100, raw)
        XCTAssertEqual(lines["EXIT"], "0", "SIGTERM drained to exit 0: \(raw)")
        XCTAssertNil(lines["NEVER-PUBLISHED"], raw)
        XCTAssertEqual(lines["PUB-STATUS"], "0", "the publisher sent to its end through the drain: \(raw)")
        XCTAssertEqual(lines["COPY"], "0", raw)
        XCTAssertEqual(lines["DECODE"], "0", "the finalized recording decodes to its end: \(raw)")
        let recording = lines["RECORDING"] ?? ""
        XCTAssertTrue(recording.contains("Duration: 0:00:0") && !recording.contains("Duration: 0:00:00."), "a recording of seconds: \(recording)")
        XCTAssertTrue(recording.lowercased().contains("video") && recording.lowercased().contains("audio"), recording)
        let stopped = Int(lines["STOP-MS"] ?? "") ?? .max
        XCTAssertLessThan(stopped, 30_000, "it ended when its viewer left, not at the grace period's end: \(raw)")
        XCTAssertEqual(lines["DOWN"], "0", raw)
        print(
            "kube play: ready \(lines["READY-MS"] ?? "?") ms after play, first frame \(j["first_frame_ms"] ?? "?") ms through NAT, drained in \(stopped) ms; recording: \(recording)"
        )
    }
}
