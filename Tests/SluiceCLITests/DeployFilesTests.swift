import Foundation
import SluiceTestSupport
import XCTest

/// `deploy/`'s files themselves (`ContainerEndToEndTests` builds and runs the image and plays
/// the manifests with podman). The manifests validate against the Kubernetes schemas (kubernetes-validate, offline,
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
                "configmap.yaml", "coturn.yaml", "deployment.yaml", "hpa.yaml", "load-job.yaml", "load-merge.yaml",
                "prometheus-adapter-rules.yaml", "secret.yaml", "service.yaml"
            ])
        // Every resource (load-job.yaml holds three: ConfigMap, PersistentVolumeClaim, Job;
        // coturn.yaml four: ConfigMap, Secret, Deployment, Service).
        var resources = 0
        for file in files {
            let text = try String(contentsOf: Self.k8s.appendingPathComponent(file), encoding: .utf8)
            resources += text.components(separatedBy: "\n").filter { $0.hasPrefix("kind: ") }.count
        }
        XCTAssertEqual(resources, files.count + 5)
        let r = try validate(files.map { Self.k8s.appendingPathComponent($0).path })
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertEqual(r.stdout.components(separatedBy: " passed for resource ").count - 1, resources, r.stdout + r.stderr)
        for resource in [
            "deployment/sluice-coturn", "service/sluice-coturn", "configmap/sluice-load", "persistentvolumeclaim/sluice-load-reports", "job/sluice-load ",
            "job/sluice-load-merge"
        ] {
            XCTAssertTrue(r.stdout.contains("passed for resource \(resource)"), "\(resource): \(r.stdout)")
        }

        // The validator does reject a mistake (a string where a count goes, an unknown key).
        let bad = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-bad-\(UUID().uuidString).yaml")
        defer { try? FileManager.default.removeItem(at: bad) }
        let deployment = try String(contentsOf: Self.k8s.appendingPathComponent("deployment.yaml"), encoding: .utf8)
        try deployment.replacingOccurrences(of: "replicas: 2", with: "replicas: two\n  replica: 2")
            .write(to: bad, atomically: true, encoding: .utf8)
        let refused = try validate([bad.path])
        XCTAssertNotEqual(refused.status, 0, refused.stdout + refused.stderr)
    }

    /// `replicas/`: the StatefulSet's pod template is the Deployment's but for `--instance`
    /// from the pod's name, the nginx ConfigMap holds `deploy/nginx/replicas.conf` (which
    /// `ReplicasBehindNginxTests` runs) unchanged, and both files validate.
    func testTheReplicaManifestsAreTheDeploymentAndTheTestedNginxFile() throws {
        let folder = Self.k8s.appendingPathComponent("replicas")
        let set = try String(contentsOf: folder.appendingPathComponent("statefulset.yaml"), encoding: .utf8)
        let deployment = try String(contentsOf: Self.k8s.appendingPathComponent("deployment.yaml"), encoding: .utf8)
        func template(_ text: String) -> String {
            let t = text.components(separatedBy: "  template:\n").dropFirst().first ?? ""
            return (t.components(separatedBy: "\n---").first ?? "").trimmingCharacters(in: .newlines)
        }
        let expected = template(deployment)
            .replacingOccurrences(
                of: "              value: \"\"\n",
                with:
                    "              value: \"\"\n            - name: POD_NAME\n              valueFrom:\n                fieldRef: { fieldPath: metadata.name }\n"
            )
            .replacingOccurrences(of: "--token \"$SLUICE_TOKEN\" ", with: "--token \"$SLUICE_TOKEN\" --instance \"$POD_NAME\" ")
        XCTAssertFalse(expected.isEmpty)
        XCTAssertEqual(template(set), expected, "the StatefulSet's pod template drifted from the Deployment's")
        XCTAssertTrue(set.contains("serviceName: sluice\n") && set.contains("clusterIP: None"), "pods named sluice-0.sluice, …")

        let nginx = try String(contentsOf: folder.appendingPathComponent("nginx.yaml"), encoding: .utf8)
        let conf = try String(contentsOf: Repository.root.appendingPathComponent("deploy/nginx/replicas.conf"), encoding: .utf8)
        let block = try XCTUnwrap(nginx.components(separatedBy: "  replicas.conf: |\n").last?.components(separatedBy: "---\n").first)
        let copy = block.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasPrefix("    ") ? String($0.dropFirst(4)) : String($0) }
            .joined(separator: "\n")
        XCTAssertEqual(copy, conf, "nginx.yaml's ConfigMap is not deploy/nginx/replicas.conf")

        let r = try validate(["statefulset.yaml", "nginx.yaml"].map { folder.appendingPathComponent($0).path })
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        for resource in ["statefulset/sluice", "service/sluice", "configmap/sluice-nginx", "deployment/sluice-nginx", "service/sluice-web"] {
            XCTAssertTrue(r.stdout.contains("passed for resource \(resource) "), "\(resource): \(r.stdout)")
        }
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
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-k8s-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let files = Self.configMapFiles(configMap)
        XCTAssertEqual(Set(files.keys), ["camera.yaml", "ingest.yaml"])
        for (name, text) in files {
            try text.replacingOccurrences(of: "/recordings", with: dir.path).write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
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

    /// A ConfigMap's `data` files (`  name: |` blocks), without their indentation.
    static func configMapFiles(_ text: String) -> [String: String] {
        var files: [String: String] = [:]
        var current: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  "), !line.hasPrefix("   "), line.hasSuffix(": |") {
                current = String(line.dropFirst(2).dropLast(3))
                files[current!] = ""
            } else if let name = current, line.hasPrefix("    ") || line.isEmpty {
                files[name, default: ""] += line.dropFirst(min(4, line.count)) + "\n"
            } else {
                current = nil
            }
        }
        return files.mapValues { $0.trimmingCharacters(in: .newlines) + "\n" }
    }

    /// The shell script a Job's container runs: the `- |` block after `command: [/bin/sh, -c]`
    /// in `file`, without its indentation.
    private func jobScript(_ file: String) throws -> String {
        let text = try String(contentsOf: Self.k8s.appendingPathComponent(file), encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        let command = try XCTUnwrap(lines.firstIndex { $0.trimmingCharacters(in: .whitespaces) == "command:" }, file)
        let heads = lines[(command + 1)...].prefix(3).map { $0.trimmingCharacters(in: .whitespaces) }
        guard heads == ["- /bin/sh", "- -c", "- |"] else {
            XCTFail("\(file): the command is not `sh -c` with a block: \(heads)")
            return ""
        }
        let first = command + 4
        let indent = lines[first].prefix { $0 == " " }.count
        var body: [String] = []
        for line in lines[first...] {
            guard line.count > indent, line.prefix(indent).allSatisfy({ $0 == " " }) else { break }
            body.append(String(line.dropFirst(indent)))
        }
        XCTAssertFalse(body.isEmpty, "\(file): no script under command:")
        return body.joined(separator: "\n") + "\n"
    }

    /// `text` with each pair's first string replaced by its second; each must be there, so a
    /// manifest that changed shape fails here rather than running something else.
    private func replacing(_ text: String, _ pairs: [(String, String)], _ what: String, line: UInt = #line) -> String {
        var result = text
        for (old, new) in pairs {
            XCTAssertTrue(result.contains(old), "\(what): '\(old)' is not in:\n\(result)", line: line)
            result = result.replacingOccurrences(of: old, with: new)
        }
        return result
    }

    /// The Indexed Job's own command, run for two indexes against a real `sluice serve` (with a
    /// token, as the Deployment runs it), then the merge Job's command over their reports: the
    /// merged report, as `kubectl logs` of the merge shows it, is the whole crowd: every client
    /// once, each left as planned. Only what cannot exist here is replaced in the scripts: the
    /// shard count (4 → 2), the crowd's size and length, paths, the Service's address.
    func testTheLoadJobsShardsAndTheirMergeRunForReal() throws {
        let job = try String(contentsOf: Self.k8s.appendingPathComponent("load-job.yaml"), encoding: .utf8)
        // The shard count: completions, parallelism and `n=` in both commands agree.
        for key in ["completions", "parallelism"] {
            XCTAssertTrue(job.contains("\n  \(key): 4\n"), "\(key): 4 in load-job.yaml")
        }
        XCTAssertTrue(job.contains("completionMode: Indexed"))
        XCTAssertTrue(job.contains("restartPolicy: Never"))
        // The viewers send the Secret's token (the Deployment's server wants it).
        XCTAssertTrue(job.contains("token: ${SLUICE_TOKEN}"), "the ConfigMap's pipeline sends the token")
        XCTAssertTrue(job.contains("- name: SLUICE_TOKEN\n              valueFrom:\n                secretKeyRef: { name: sluice, key: token }"))
        let shardScript = try jobScript("load-job.yaml")
        let mergeScript = try jobScript("load-merge.yaml")
        XCTAssertTrue(shardScript.contains("JOB_COMPLETION_INDEX"), shardScript)

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-load-job-\(UUID().uuidString)")
        let reports = dir.appendingPathComponent("reports")
        try FileManager.default.createDirectory(at: reports, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }

        // The ConfigMap's pipeline, where the pod mounts it, against the local server.
        let body = try XCTUnwrap(job.components(separatedBy: "load-whep.yaml: |\n").dropFirst().first, "the ConfigMap's load-whep.yaml")
        let pipeline = body.components(separatedBy: "\n---").first!.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("    ") ? String($0.dropFirst(4)) : String($0) }.joined(separator: "\n")
        let port = 18961
        let local = replacing(
            pipeline,
            [
                ("http://sluice:8443/whep/camera", "http://127.0.0.1:\(port)/whep/serve-stamped"),
                ("clients: 200", "clients: 6"), ("ramp: 5/s", "ramp: 10/s"), ("duration: 120", "duration: 3")
            ], "the ConfigMap's pipeline")
        try local.write(to: dir.appendingPathComponent("load-whep.yaml"), atomically: true, encoding: .utf8)

        let paths = [("/usr/local/bin/sluice", "\"$SLUICE\""), ("/reports", reports.path)]
        let shard = replacing(shardScript, [("n=4", "n=2"), ("/etc/sluice/load", dir.path)] + paths, "the Job's command")
        let merge = replacing(mergeScript, [("n=4", "n=2")] + paths, "the merge Job's command")
        try shard.write(to: dir.appendingPathComponent("shard.sh"), atomically: true, encoding: .utf8)
        try merge.write(to: dir.appendingPathComponent("merge.sh"), atomically: true, encoding: .utf8)

        let script = """
            set -u
            cd "$DIR"
            ip link set lo up
            # An address like a pod's (libnice gathers no candidates on loopback).
            ip link add pod0 type veth peer name pod1; ip addr add 10.79.0.1/24 dev pod0; ip link set pod0 up; ip link set pod1 up
            sed 's/addresses: \\[127.0.0.1\\]/addresses: [10.79.0.1]/' "$REPO/Pipelines/serve-stamped.yaml" > serve.yaml
            grep -q 10.79.0.1 serve.yaml || exit 91
            "$SLUICE" serve --port \(port) --token t0k --pipeline serve.yaml > serve.out 2>&1 &
            serve=$!
            i=0; until [ "$(curl -s -m 1 -o /dev/null -w '%{http_code}' http://127.0.0.1:\(port)/readyz)" = 200 ]; do
              i=$((i+1)); [ $i -lt 300 ] || { echo NEVER_READY; cat serve.out; exit 90; }; sleep 0.05; done
            # The two pods of the Job, at once; the token from the Secret through the environment.
            JOB_COMPLETION_INDEX=0 SLUICE_TOKEN=t0k sh shard.sh > shard0.out 2>&1 &
            pod0=$!
            JOB_COMPLETION_INDEX=1 SLUICE_TOKEN=t0k sh shard.sh > shard1.out 2>&1 &
            pod1=$!
            wait $pod0; echo "POD 0: $?"
            wait $pod1; echo "POD 1: $?"
            sh merge.sh > merge.out 2>&1; echo "MERGE: $?"
            # What docs/deploy.md does with the merge's log.
            sed '1,/^--- all.json$/d' merge.out > fetched.json
            "$SLUICE" load merge fetched.json --plot plot.html > plot.out 2>&1; echo "PLOT: $?"
            kill -INT $serve; wait $serve
            ls reports
            """
        let r = try CLI.execute(
            inNamespace: script, env: ["SLUICE": CLI.binary.path, "DIR": dir.path, "REPO": Repository.root.path], timeout: 120,
            reportPath: dir.appendingPathComponent("fetched.json").path)
        let outputs = ["shard0.out", "shard1.out", "merge.out", "plot.out", "serve.out"].map {
            "--- \($0)\n" + ((try? String(contentsOf: dir.appendingPathComponent($0), encoding: .utf8)) ?? "").suffix(3000)
        }
        let context = "\(r.stdout.suffix(2000))\n\(r.stderr.suffix(2000))\n" + outputs.joined(separator: "\n")
        XCTAssertEqual(r.status, 0, context)
        for line in ["POD 0: 0", "POD 1: 0", "MERGE: 0", "PLOT: 0", "all.json", "shard-1-of-2.json", "shard-2-of-2.json"] {
            XCTAssertTrue(r.stdout.contains(line), "\(line)\n\(context)")
        }
        XCTAssertEqual(r.int("overall.clients"), 6, context)
        XCTAssertEqual(r.int("overall.succeeded"), 6, context)
        XCTAssertEqual(r.int("clients_planned"), 6, context)
        XCTAssertNil(r.value("shard"), "both shards: the whole crowd")
        let clients = try XCTUnwrap(r.value("clients") as? [[String: Any]], context)
        XCTAssertEqual(clients.compactMap { $0["id"] as? Int }, Array(0..<6), "each client once, from both pods")
        XCTAssertEqual(clients.compactMap { $0["outcome"] as? String }, Array(repeating: "left_as_planned", count: 6), context)
        // The merge Job's log holds the report it wrote on the volume.
        let written = try JSONSerialization.jsonObject(with: Data(contentsOf: reports.appendingPathComponent("all.json"))) as? [String: Any]
        XCTAssertEqual(written.map { NSDictionary(dictionary: $0) }, r.report.map { NSDictionary(dictionary: $0) }, "the log's JSON is all.json")
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.appendingPathComponent("plot.html").path), "the plot drawn from the log's JSON")
    }

    func testTheContainerfileInstallsWithTheScriptCIRuns() throws {
        let file = try String(contentsOf: Repository.root.appendingPathComponent("deploy/Containerfile"), encoding: .utf8)
        XCTAssertTrue(file.contains("SLUICE_PROFILE=build Scripts/install.sh"), file)
        XCTAssertTrue(file.contains("SLUICE_PROFILE=runtime /tmp/install.sh"), file)
        XCTAssertTrue(file.contains("ARG RUNTIME_IMAGE=docker.io/library/debian:12-slim"), file)
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
