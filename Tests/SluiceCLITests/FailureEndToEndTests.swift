import Foundation
import SluiceTestSupport
import XCTest

/// Runtime failures (exit 3) and file/argument errors (exit 2), each with a reason that
/// names the fix.
final class FailureEndToEndTests: XCTestCase {
    func testMissingElementExitsThreeWithPackageHint() throws {
        // A plugin directory with every installed plugin except x264, and a fresh registry.
        let fm = FileManager.default
        let dir = fm.temporaryDirectory.appendingPathComponent("sluice-plugins-\(UUID().uuidString)")
        try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: dir) }
        let system = "/usr/lib/x86_64-linux-gnu/gstreamer-1.0"
        for name in try fm.contentsOfDirectory(atPath: system) where name.hasSuffix(".so") && name != "libgstx264.so" {
            try fm.createSymbolicLink(atPath: dir.appendingPathComponent(name).path, withDestinationPath: "\(system)/\(name)")
        }
        let r = try CLI.run(
            ["run", "Pipelines/loopback-h264.yaml", "--duration", "2"],
            env: [
                "GST_PLUGIN_SYSTEM_PATH_1_0": dir.path,
                "GST_REGISTRY_1_0": dir.appendingPathComponent("registry.bin").path
            ])
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("x264enc"), r.stderr)
        XCTAssertTrue(r.stderr.contains("apt-get install gstreamer1.0-plugins-ugly"), r.stderr)
        XCTAssertTrue(r.stderr.contains("Pipelines/loopback-h264.yaml:"), "points into the file: \(r.stderr)")
    }

    func testICEWithoutUsableAddressFailsWithinTimeout() throws {
        let r = try CLI.run(
            [
                "run", "Pipelines/loopback.yaml", "--duration", "5",
                "--set", "transport.ice.addresses=[]", "--set", "transport.ice.connect_timeout=2"
            ],
            timeout: 30)
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("ICE did not connect within 2 s"), r.stderr)
        XCTAssertTrue(r.stderr.contains("transport.ice.addresses"), r.stderr)
        XCTAssertLessThan(r.seconds, 15, "must fail at the timeout, not hang")
    }

    func testCodecTheReceiverDoesNotAcceptIsAFileError() throws {
        // In loopback both sides are in the file, so the mismatch is caught before running
        // (the runtime check for remote peers is in NegotiationTests).
        let r = try CLI.run(
            [
                "run", "Pipelines/loopback.yaml", "--duration", "3",
                "--set", "receive.video.codecs=[h264]"
            ], timeout: 30)
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("--set receive.video.codecs=[h264]:1:"), r.stderr)
        XCTAssertTrue(r.stderr.contains("h264") && r.stderr.contains("vp8"), r.stderr)
    }

    func testInvalidFileExitsTwoWithLocation() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("broken-\(UUID().uuidString).yaml").path
        try "send:\n  video:\n    encode:\n      codec: vp7\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        for command in ["run", "validate"] {
            let r = try CLI.run([command, path], timeout: 30)
            XCTAssertEqual(r.status, 2, r.stderr)
            XCTAssertTrue(r.stderr.contains("\(path):4:14:"), r.stderr)
            XCTAssertTrue(r.stderr.contains("vp7"), r.stderr)
        }
    }

    func testAPixelateRegionOutsideThePictureIsAWarningForValidateAndRun() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("region-\(UUID().uuidString).yaml").path
        try """
        transport: {kind: none}
        send:
          video:
            capture: {kind: test, width: 320, height: 240}
            filters:
              - filter: pixelate
                region: [300, 0, 40, 40]
            encode: {codec: vp8}
        """.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let warning = "\(path):6:9: warning: filter 'pixelate': region [300, 0, 40, 40] reaches outside the 320×240 picture: only [300, 0, 20, 40] is pixelated"
        let validate = try CLI.run(["validate", path], timeout: 30)
        XCTAssertEqual(validate.status, 0, validate.stderr)
        XCTAssertTrue(validate.stderr.contains(warning), validate.stderr)
        let run = try CLI.run(["run", path, "--duration", "0.5"], timeout: 30)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stderr.contains(warning), run.stderr)
    }

    func testEveryExampleFileValidates() throws {
        let dir = Repository.root.appendingPathComponent("Pipelines")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".yaml") }.sorted()
        // The XMPP files take their password from the environment, as a user's would.
        let r = try CLI.run(["validate"] + files.map { "Pipelines/\($0)" }, env: ["XMPP_PASSWORD": "secret"], timeout: 30)
        XCTAssertEqual(r.status, 0, r.stderr)
        for f in files { XCTAssertTrue(r.stdout.contains("Pipelines/\(f): ok"), r.stdout) }
    }

    func testBadArgumentsExitTwo() throws {
        XCTAssertEqual(try CLI.run(["run"], timeout: 30).status, 2)
        XCTAssertEqual(try CLI.run(["run", "Pipelines/loopback.yaml", "--duration", "-1"], timeout: 30).status, 2)
        XCTAssertEqual(try CLI.run(["frobnicate"], timeout: 30).status, 2)
        XCTAssertEqual(try CLI.run(["run", "/nonexistent/file.yaml"], timeout: 30).status, 2)
    }

    func testASecondServerOnABusyPortSaysSoAndNeverClaimsToListen() throws {
        let ready = FileManager.default.temporaryDirectory.appendingPathComponent("busy-\(UUID().uuidString)").path
        let script = """
            ip link set lo up
            python3 -c "import socket,sys,time; s=socket.socket(); s.bind(('127.0.0.1',18555)); s.listen(); open(sys.argv[1],'w').close(); time.sleep(60)" '\(ready)' &
            holder=$!
            i=0; until [ -e '\(ready)' ]; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
            "$SLUICE" serve --port 18555
            status=$?
            kill $holder; rm -f '\(ready)'
            exit $status
            """
        let r = try CLI.execute(inNamespace: script, env: ["SLUICE": CLI.binary.path], timeout: 60, reportPath: nil)
        XCTAssertEqual(r.status, 3, "a runtime failure, as documented: \(r.stderr)")
        XCTAssertTrue(r.stderr.contains("cannot listen on 127.0.0.1:18555: the port is in use"), r.stderr)
        XCTAssertTrue(r.stderr.contains("--port"), "names the way out: \(r.stderr)")
        XCTAssertFalse(r.stdout.contains("listening on"), "never claims to listen: \(r.stdout)")
    }

    func testVersionNamesTheReleaseTheCommitAndWhatItRunsWith() throws {
        let r = try CLI.run(["--version"], timeout: 30, isolated: false)
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 4, r.stdout)
        let changelog = try String(contentsOfFile: Repository.path("CHANGELOG.md"), encoding: .utf8)
        let newest = changelog.split(separator: "\n").first { $0.hasPrefix("## ") && !$0.contains("Unreleased") }
        XCTAssertEqual(lines.first, newest.map { "sluice " + $0.dropFirst(3) }, "the release CHANGELOG.md names last")
        XCTAssertTrue(lines.contains { $0.hasPrefix("GStreamer 1.") }, r.stdout)
        XCTAssertTrue(lines.contains { $0.hasPrefix("Swift 6.") }, r.stdout)
        // Built from this checkout: the commit line names a commit of it (or says unknown
        // when the tree has no git, as in a container build).
        let commit = try XCTUnwrap(lines.first { $0.hasPrefix("commit ") }).dropFirst("commit ".count)
        let hash = commit.hasSuffix("+") ? String(commit.dropLast()) : String(commit)
        if FileManager.default.fileExists(atPath: Repository.path(".git")) {
            let known = try ProcessRunner.run(
                URL(fileURLWithPath: "/usr/bin/git"), ["-C", Repository.root.path, "cat-file", "-t", hash], environment: [:], timeout: 10)
            XCTAssertEqual(known.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "commit", "\(hash) is a commit of this repository")
        } else {
            XCTAssertEqual(hash, "unknown")
        }
    }

    func testAMistypedCommandIsNamedWithTheNearestOne() throws {
        let typo = try CLI.run(["runn", "Pipelines/loopback.yaml"], timeout: 30)
        XCTAssertEqual(typo.status, 2)
        XCTAssertTrue(typo.stderr.contains("'runn' is not a sluice command; did you mean 'sluice run'?"), typo.stderr)
        XCTAssertTrue(typo.stderr.contains("measure") && !typo.stderr.contains("netem-relay"), "lists the commands a user types: \(typo.stderr)")
        let far = try CLI.run(["frobnicate"], timeout: 30)
        XCTAssertTrue(far.stderr.contains("'frobnicate' is not a sluice command") && !far.stderr.contains("did you mean"), far.stderr)
    }

    func testInspectReportsCodecs() throws {
        let r = try CLI.run(["inspect"], timeout: 30)
        XCTAssertEqual(r.status, 0, r.stderr)
        for codec in ["vp8", "vp9", "h264", "opus"] { XCTAssertTrue(r.stdout.contains("  \(codec)"), r.stdout) }
        XCTAssertTrue(r.stdout.contains("x264enc yes"), r.stdout)
        XCTAssertTrue(r.stdout.contains("webrtcbin yes") && !r.stdout.contains("MISSING"), r.stdout)
        XCTAssertTrue(r.stdout.contains("pixelate") && r.stdout.contains("scene"), "Swift filters and sources are listed")
        let json = try CLI.run(["inspect", "--json"], timeout: 30)
        let obj = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        XCTAssertNotNil(obj?["encoders"])
    }
}

extension FailureEndToEndTests {
    func testMissingCameraDeviceNamesTheFix() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cam-\(UUID().uuidString).yaml").path
        try "send:\n  video:\n    capture: { kind: camera, device: /dev/video-sluice-none }\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = try CLI.run(["run", path, "--duration", "2"], timeout: 30)
        XCTAssertEqual(r.status, 3, r.stderr)
        XCTAssertTrue(r.stderr.contains("\(path):3:5: camera device /dev/video-sluice-none does not exist"), r.stderr)
        XCTAssertTrue(r.stderr.contains("capture.kind: test"), r.stderr)
    }
}
