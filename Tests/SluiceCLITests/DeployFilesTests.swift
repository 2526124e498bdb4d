import Foundation
import SluiceTestSupport
import XCTest

/// `deploy/`: no container engine or cluster runs here, so this proves what can be proven.
/// The manifests validate against the Kubernetes schemas (kubernetes-validate, offline,
/// strict), and a manifest with a mistake does not; the Deployment's command line and
/// ConfigMap start a real `sluice serve` that becomes ready and drains to exit 0 on SIGTERM;
/// the Containerfile installs its packages with the script CI runs.
final class DeployFilesTests: XCTestCase {
    static let k8s = Repository.root.appendingPathComponent("deploy/k8s")

    private func validate(_ files: [String]) throws -> CLIResult {
        try CLI.execute(
            Repository.root.appendingPathComponent(".venv/bin/kubernetes-validate"), ["--strict"] + files,
            env: [:], timeout: 120, reportPath: nil)
    }

    func testManifestsValidateAgainstTheKubernetesSchemas() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.k8s.path).filter { $0.hasSuffix(".yaml") }.sorted()
        XCTAssertEqual(
            Set(files),
            [
                "configmap.yaml", "deployment.yaml", "hpa.yaml", "prometheus-adapter-rules.yaml",
                "secret.yaml", "service.yaml"
            ])
        let r = try validate(files.map { Self.k8s.appendingPathComponent($0).path })
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertEqual(r.stdout.components(separatedBy: " passed for resource ").count - 1, files.count, r.stdout + r.stderr)

        // The validator does reject a mistake (a string where a count goes, an unknown key).
        let bad = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-bad-\(UUID().uuidString).yaml")
        defer { try? FileManager.default.removeItem(at: bad) }
        let deployment = try String(contentsOf: Self.k8s.appendingPathComponent("deployment.yaml"), encoding: .utf8)
        try deployment.replacingOccurrences(of: "replicas: 2", with: "replicas: two\n  replica: 2")
            .write(to: bad, atomically: true, encoding: .utf8)
        let refused = try validate([bad.path])
        XCTAssertNotEqual(refused.status, 0, refused.stdout + refused.stderr)
    }

    /// The Deployment's arguments with its ConfigMap's pipeline, run for real: ready (the
    /// readiness probe's /readyz is 200), then SIGTERM (what Kubernetes sends) drains and
    /// exits 0.
    func testTheDeploymentsCommandLineStartsReadyAndDrains() throws {
        let deployment = try String(contentsOf: Self.k8s.appendingPathComponent("deployment.yaml"), encoding: .utf8)
        let lines = deployment.split(separator: "\n").map(String.init)
        let start = try XCTUnwrap(lines.firstIndex { $0.trimmingCharacters(in: .whitespaces) == "args:" })
        var args: [String] = []
        for line in lines[(start + 1)...] {
            let t = line.trimmingCharacters(in: .whitespaces)
            guard t.hasPrefix("- ") else { break }
            args.append(String(t.dropFirst(2)))
        }
        XCTAssertEqual(args.first, "serve")
        XCTAssertTrue(args.contains("--log-format=json"), "\(args)")

        // The ConfigMap's files, where the pod mounts them.
        let configMap = try String(contentsOf: Self.k8s.appendingPathComponent("configmap.yaml"), encoding: .utf8)
        let body = try XCTUnwrap(configMap.components(separatedBy: "camera.yaml: |\n").last)
        let camera = body.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasPrefix("    ") ? String($0.dropFirst(4)) : String($0) }
            .joined(separator: "\n")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-k8s-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try camera.write(to: dir.appendingPathComponent("camera.yaml"), atomically: true, encoding: .utf8)
        let mapped = args.dropFirst().map { $0.replacingOccurrences(of: "/etc/sluice/pipelines", with: dir.path) }
            .filter { $0 != "--host=0.0.0.0" } // loopback only here
        let quoted = mapped.map { "'\($0)'" }.joined(separator: " ")
        let script = """
            ip link set lo up
            "$SLUICE" serve \(quoted) --port 18951 --token t0k 2>serve.err &
            s=$!
            i=0; until [ "$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:18951/readyz)" = 200 ]; do
              i=$((i+1)); [ $i -lt 300 ] || { echo NEVER_READY; cat serve.err; exit 90; }; sleep 0.05; done
            echo READY
            kill -TERM $s; wait $s; echo EXIT: $?
            head -c 2000 serve.err
            """
        let r = try CLI.execute(
            inNamespace: "cd \(dir.path) && " + script,
            env: ["SLUICE": CLI.binary.path], timeout: 90, reportPath: nil)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("READY"), r.stdout)
        XCTAssertTrue(r.stdout.contains("EXIT: 0"), r.stdout)
    }

    func testTheContainerfileInstallsWithTheScriptCIRuns() throws {
        let file = try String(contentsOf: Repository.root.appendingPathComponent("deploy/Containerfile"), encoding: .utf8)
        XCTAssertTrue(file.contains("SLUICE_PROFILE=build Scripts/install.sh"), file)
        XCTAssertTrue(file.contains("SLUICE_PROFILE=runtime /tmp/install.sh"), file)
        XCTAssertTrue(file.contains("FROM debian:12"), file)
        XCTAssertTrue(file.contains("USER 10001"), "a non-root user")
        XCTAssertTrue(file.contains("swift build -c release"), "a release build")
        let ci = try String(contentsOf: Repository.root.appendingPathComponent(".ci/run"), encoding: .utf8)
        XCTAssertTrue(ci.contains("Scripts/install.sh"), ci)
        // Each profile the Containerfile uses is one install.sh knows.
        for profile in ["build", "runtime"] {
            let r = try CLI.execute(
                URL(fileURLWithPath: "/bin/bash"), [Repository.path("Scripts/install.sh")],
                env: ["SLUICE_PROFILE": profile], timeout: 300, reportPath: nil)
            XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        }
    }
}
