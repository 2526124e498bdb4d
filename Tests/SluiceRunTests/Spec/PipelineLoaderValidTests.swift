import Foundation
import SluiceRun
import SluiceRunTestSupport
import XCTest
import SluiceTransports

final class PipelineLoaderValidTests: XCTestCase {
    override func setUp() { SluiceTransports.registerBuiltIns() }

    func testMinimalFileGetsDefaultsAndALoopbackReceiver() throws {
        let yaml = """
            send:
              video:
                capture:
                  kind: test
            """
        let spec = try XCTUnwrap(specLoadValid(yaml, file: "pipelines/minimal.yaml"))
        let file = "pipelines/minimal.yaml"
        XCTAssertEqual(spec.name, "minimal")
        XCTAssertEqual(spec.file, file)
        XCTAssertNil(spec.description)
        XCTAssertEqual(spec.transport, TransportSpec())
        let branchLocation = specLoc(2, 3, file)
        let expectedSend = SendBranchSpec(
            media: .video, capture: CaptureSpec(location: specLoc(3, 5, file)), filters: [],
            encode: EncodeSpec(codec: .vp8, bitrateKbps: 2000, location: branchLocation),
            location: branchLocation)
        XCTAssertEqual(spec.send, SendSpec(video: expectedSend, audio: nil))
        // Loopback adds a stats receiver for the sent medium, located at the send branch.
        XCTAssertEqual(
            spec.receive,
            ReceiveSpec(
                video: ReceiveBranchSpec(
                    media: .video, sink: SinkSpec(kind: .stats, location: branchLocation), location: branchLocation)))
    }

    func testFullFileDecodesEveryKey() throws {
        let yaml = """
            version: 1
            name: full
            description: "every key"
            transport:
              kind: loopback
              ice:
                addresses: [127.0.0.1, "::1"]
                stun: stun://127.0.0.1:3478
                turn: turn://user:pass@127.0.0.1:3478
                policy: relay
                connect_timeout: 500ms
              latency: 200
              bundle: max-compat
            send:
              video:
                capture:
                  kind: test
                  pattern: ball
                  width: 640
                  height: 480
                  fps: 15
                  live: no
                filters:
                  - element: videoflip
                    properties: {method: horizontal-flip}
                  - gst: "videobalance saturation=0"
                encode:
                  codec: h264
                  bitrate: 2M
                  keyframe_interval: 30
                  preset: default
                  element: x264enc
                  properties:
                    tune: zerolatency
                send: webrtc
              audio:
                capture:
                  kind: test
                  wave: square
                  frequency: 880.5
                  rate: 16000
                  channels: 1
                encode:
                  bitrate: 32k
            receive:
              video:
                codecs: [h264]
                decode:
                  element: avdec_h264
                  properties: {max-threads: 2}
                sink:
                  kind: file
                  path: out/video.MKV
                  encode: {codec: vp9, bitrate: 1000}
              audio:
                filters: []
                sink: display
            """
        let spec = try XCTUnwrap(specLoadValid(yaml))
        XCTAssertEqual(spec.name, "full")
        XCTAssertEqual(spec.description, "every key")
        XCTAssertEqual(
            spec.transport,
            TransportSpec(
                kind: .loopback,
                ice: ICESpec(
                    addresses: ["127.0.0.1", "::1"], stun: "stun://127.0.0.1:3478",
                    turn: ["turn://user:pass@127.0.0.1:3478"], policy: .relay, connectTimeout: 0.5,
                    location: specLoc(6, 3)),
                latencyMs: 200, bundlePolicy: .maxCompat, location: specLoc(4, 1)))

        let video = try XCTUnwrap(spec.send?.video)
        XCTAssertEqual(video.location, specLoc(15, 3))
        XCTAssertEqual(
            video.capture,
            CaptureSpec(
                kind: .test, pattern: "ball", width: 640, height: 480, fps: 15,
                live: false, location: specLoc(16, 5)))
        XCTAssertEqual(
            video.filters,
            [
                FilterSpec(
                    kind: .element(
                        factory: "videoflip",
                        properties: [
                            Property(name: "method", value: "horizontal-flip", location: specLoc(25, 22))
                        ]), location: specLoc(24, 9)),
                FilterSpec(kind: .gst("videobalance saturation=0"), location: specLoc(26, 9))
            ])
        XCTAssertEqual(
            video.encode,
            EncodeSpec(
                codec: .h264, bitrateKbps: 2000, keyframeInterval: 30, preset: .default, element: "x264enc",
                properties: [Property(name: "tune", value: "zerolatency", location: specLoc(34, 9))],
                location: specLoc(27, 5)))

        let audio = try XCTUnwrap(spec.send?.audio)
        XCTAssertEqual(
            audio.capture,
            CaptureSpec(
                kind: .test, wave: "square", frequency: 880.5, rate: 16000,
                channels: 1, location: specLoc(37, 5)))
        XCTAssertEqual(audio.encode, EncodeSpec(codec: .opus, bitrateKbps: 32, location: specLoc(43, 5)))

        let receiveVideo = try XCTUnwrap(spec.receive?.video)
        XCTAssertEqual(receiveVideo.codecs, [.h264])
        XCTAssertEqual(
            receiveVideo.decode,
            DecodeSpec(
                element: "avdec_h264", properties: [Property(name: "max-threads", value: "2", location: specLoc(50, 20))],
                location: specLoc(48, 5)))
        XCTAssertEqual(
            receiveVideo.sink,
            SinkSpec(
                kind: .file(
                    path: "out/video.MKV", container: .mkv,
                    encode: EncodeSpec(codec: .vp9, bitrateKbps: 1000, location: specLoc(54, 7))),
                location: specLoc(51, 5)))
        let receiveAudio = try XCTUnwrap(spec.receive?.audio)
        XCTAssertEqual(
            receiveAudio,
            ReceiveBranchSpec(
                media: .audio, sink: SinkSpec(kind: .display, location: specLoc(57, 5)),
                location: specLoc(55, 3)))
    }

    /// `bitrate: {min, start, max}` adapts; `start` defaults to 1000 within the limits; a
    /// plain number stays fixed.
    func testAdaptiveBitrate() throws {
        func adaptive(_ bitrate: String) throws -> (Int, AdaptiveBitrate?) {
            let spec = try XCTUnwrap(
                specLoadValid(
                    "send:\n  video:\n    capture: {kind: test}\n    encode: {bitrate: \(bitrate)}\n",
                    file: "a.yaml"))
            let encode = try XCTUnwrap(spec.send?.video?.encode)
            return (encode.bitrateKbps, encode.adaptive)
        }
        let full = try adaptive("{min: 300, start: 1.5M, max: 2500k}")
        XCTAssertEqual(full.0, 1500)
        XCTAssertEqual(full.1?.minKbps, 300); XCTAssertEqual(full.1?.startKbps, 1500); XCTAssertEqual(full.1?.maxKbps, 2500)
        XCTAssertEqual(full.1?.limits, BitrateLimits(min: 300_000, start: 1_500_000, max: 2_500_000))
        XCTAssertEqual(try adaptive("{min: 300, max: 2500}").1?.startKbps, 1000)
        XCTAssertEqual(try adaptive("{min: 2000, max: 4000}").1?.startKbps, 2000)
        XCTAssertEqual(try adaptive("{min: 100, max: 500}").1?.startKbps, 500)
        let fixed = try adaptive("800")
        XCTAssertEqual(fixed.0, 800)
        XCTAssertNil(fixed.1)
        let mitigated = try adaptive("{min: 300, max: 2500, scale_below: 1M, fps_below: 500}").1
        XCTAssertEqual(mitigated?.scaleBelowKbps, 1000)
        XCTAssertEqual(mitigated?.fpsBelowKbps, 500)
        XCTAssertNil(full.1?.scaleBelowKbps)
    }

    func testUnitsAndScalarForms() throws {
        let yaml = """
            transport:
              ice:
                addresses: 10.0.0.1
                connect_timeout: 2.5
                turn: [turns://a:b@turn.example.org:5349, "turn://u:p@[::1]:3478?transport=tcp"]
              latency: 0.5s
            send:
              video:
                capture: {kind: test, live: off}
                encode: {bitrate: "2500k"}
              audio:
                capture: {kind: test, live: YES}
                encode: {bitrate: 0.128M}
            """
        let spec = try XCTUnwrap(specLoadValid(yaml))
        XCTAssertEqual(spec.transport.ice.addresses, ["10.0.0.1"])
        XCTAssertEqual(spec.transport.ice.connectTimeout, 2.5)
        XCTAssertEqual(spec.transport.ice.turn.count, 2)
        XCTAssertEqual(spec.transport.latencyMs, 500)
        XCTAssertEqual(spec.send?.video?.capture.live, false)
        XCTAssertEqual(spec.send?.video?.encode.bitrateKbps, 2500)
        XCTAssertEqual(spec.send?.audio?.capture.live, true)
        XCTAssertEqual(spec.send?.audio?.encode.bitrateKbps, 128)
        XCTAssertEqual(spec.receive?.audio?.media, .audio)
    }

    func testSinkShorthandsAndFileSinks() throws {
        let yaml = """
            send:
              video: {capture: {kind: test}}
              audio: {capture: {kind: test}}
            receive:
              video:
                sink: {kind: file, path: rec.webm}
              audio:
                sink: {kind: file, path: rec.webm, encode: {bitrate: 96k}}
            """
        let spec = try XCTUnwrap(specLoadValid(yaml))
        XCTAssertEqual(spec.receive?.video?.sink.kind, .file(path: "rec.webm", container: .webm, encode: nil))
        XCTAssertEqual(
            spec.receive?.audio?.sink.kind,
            .file(
                path: "rec.webm", container: .webm,
                encode: EncodeSpec(codec: .opus, bitrateKbps: 96, location: specLoc(8, 40))))

        for (written, kind) in [("stats", SinkSpec.Kind.stats), ("null", .null), ("display", .display)] {
            let spec = try XCTUnwrap(
                specLoadValid(
                    """
                    send: {video: {capture: {kind: test}}}
                    receive: {video: {sink: \(written)}}
                    """))
            XCTAssertEqual(spec.receive?.video?.sink, SinkSpec(kind: kind, location: specLoc(2, 19)), written)
        }
        let gst = try XCTUnwrap(
            specLoadValid(
                """
                send: {video: {capture: {gst: "videotestsrc is-live=true", width: 320, height: 240}}}
                receive: {video: {sink: {gst: "fakesink sync=true"}, decode: auto}}
                """))
        XCTAssertEqual(gst.send?.video?.capture.kind, .gst("videotestsrc is-live=true"))
        XCTAssertEqual(gst.send?.video?.capture.width, 320)
        XCTAssertEqual(gst.receive?.video?.sink.kind, .gst("fakesink sync=true"))
        XCTAssertEqual(gst.receive?.video?.decode, DecodeSpec(location: specLoc(2, 54)))
    }

    func testCaptureKinds() throws {
        let spec = try XCTUnwrap(
            specLoadValid(
                """
                send:
                  video:
                    capture: {kind: camera, device: /dev/video2, fps: 60}
                  audio:
                    capture: {kind: file, path: media/tone.ogg, loop: true}
                """, file: "/srv/pipes/p.yaml"))
        XCTAssertEqual(spec.send?.video?.capture.kind, .camera(device: "/dev/video2"))
        XCTAssertEqual(spec.send?.video?.capture.fps, 60)
        XCTAssertEqual(spec.send?.audio?.capture.kind, .file(uri: "file:///srv/pipes/media/tone.ogg", loop: true))

        let camera = try XCTUnwrap(specLoadValid("send: {video: {capture: {kind: camera}}}"))
        XCTAssertEqual(camera.send?.video?.capture.kind, .camera(device: "/dev/video0"))
        let uri = try XCTUnwrap(specLoadValid("send: {video: {capture: {kind: file, uri: 'https://example.org/a.webm'}}}"))
        XCTAssertEqual(uri.send?.video?.capture.kind, .file(uri: "https://example.org/a.webm", loop: false))
    }

    func testReceiveOnlyTheSentMediaAndDefaultsForTheOther() throws {
        let spec = try XCTUnwrap(
            specLoadValid(
                """
                send:
                  video: {capture: {kind: test}}
                  audio: {capture: {kind: test}}
                receive:
                  audio: {sink: "null"}
                """))
        XCTAssertEqual(spec.receive?.audio?.sink.kind, .null)
        XCTAssertEqual(
            spec.receive?.video,
            ReceiveBranchSpec(
                media: .video, sink: SinkSpec(kind: .stats, location: specLoc(2, 3)), location: specLoc(2, 3)))
    }

    /// `receive.playout` is `arrival` unless the file asks for `lip-sync`.
    func testReceivePlayout() throws {
        let synced = try XCTUnwrap(
            specLoadValid(
                """
                send:
                  video: {capture: {kind: test}}
                  audio: {capture: {kind: test}}
                receive:
                  playout: lip-sync
                  audio: {sink: "null"}
                """))
        XCTAssertEqual(synced.receive?.playout, .lipSync)
        XCTAssertEqual(synced.receive?.audio?.sink.kind, .null)
        let plain = try XCTUnwrap(specLoadValid("send:\n  video: {capture: {kind: test}}\n"))
        XCTAssertEqual(plain.receive?.playout, .arrival)
    }

    func testEnvironmentSubstitution() throws {
        let yaml = """
            name: ${NAME}-${SUFFIX:-dev}
            description: "costs $$5 ${EMPTY:-}${UNSET:-}"
            send:
              video:
                capture:
                  kind: test
                  width: "${W}"
                  height: ${H:-480}
                encode: {bitrate: "${RATE}k"}
            """
        let spec = try XCTUnwrap(specLoadValid(yaml, environment: ["NAME": "demo", "W": "640", "RATE": "750", "EMPTY": ""]))
        XCTAssertEqual(spec.name, "demo-dev")
        XCTAssertEqual(spec.description, "costs $5 ")
        XCTAssertEqual(spec.send?.video?.capture.width, 640)
        XCTAssertEqual(spec.send?.video?.capture.height, 480)
        XCTAssertEqual(spec.send?.video?.encode.bitrateKbps, 750)
    }

    func testOverrides() throws {
        let yaml = """
            send:
              video:
                capture: {kind: test}
                encode:
                  codec: vp8
            """
        let spec = try XCTUnwrap(
            specLoadValid(
                yaml,
                overrides: [
                    "send.video.encode.codec=vp9",
                    "transport.ice.addresses=[127.0.0.1, '::1']",
                    "send.audio.capture.kind=test",
                    "send.video.capture.width=320",
                    "receive.video.sink={kind: file, path: x.mkv}",
                    "description=a: b"
                ]))
        XCTAssertEqual(spec.send?.video?.encode.codec, .vp9)
        XCTAssertEqual(spec.send?.video?.encode.location, specLoc(4, 5))
        XCTAssertEqual(spec.send?.video?.capture.width, 320)
        XCTAssertEqual(spec.transport.ice.addresses, ["127.0.0.1", "::1"])
        // Created by the override: located there, at the key's column.
        XCTAssertEqual(
            spec.send?.audio?.capture.location,
            SourceLocation(file: "--set send.audio.capture.kind=test", line: 1, column: 12))
        XCTAssertEqual(spec.receive?.video?.sink.kind, .file(path: "x.mkv", container: .mkv, encode: nil))
        XCTAssertEqual(spec.description, "a: b")

        let scalarAddress = try XCTUnwrap(specLoadValid(yaml, overrides: ["transport.ice.addresses=127.0.0.1"]))
        XCTAssertEqual(scalarAddress.transport.ice.addresses, ["127.0.0.1"])
    }

    func testAnchorsAndMergeKeys() throws {
        let spec = try XCTUnwrap(
            specLoadValid(
                """
                send:
                  video:
                    capture:
                      <<: {kind: test, width: 320, height: 240}
                      height: 180
                """))
        XCTAssertEqual(spec.send?.video?.capture.width, 320)
        XCTAssertEqual(spec.send?.video?.capture.height, 180)

        let aliased = try XCTUnwrap(
            specLoadValid(
                """
                send:
                  video:
                    capture: &c {kind: test, width: 320, height: 240}
                    filters: [{element: videoflip, properties: &p {method: clockwise}}]
                receive:
                  video:
                    filters: [{element: videoflip, properties: *p}]
                """))
        XCTAssertEqual(aliased.receive?.video?.filters.count, 1)
    }

    func testDuplicateKeysAreAllReportedAtTheirSecondOccurrence() throws {
        let error = try XCTUnwrap(
            specLoadErrors(
                """
                send:
                  video:
                    capture: {kind: test, width: 320, width: 640, width: 800}
                    encode:
                      codec: vp8
                      bitrate: 100
                      codec: vp9
                """))
        XCTAssertEqual(error.diagnostics.map(\.location), [specLoc(3, 39), specLoc(3, 51), specLoc(7, 7)])
        XCTAssertTrue(error.diagnostics.allSatisfy { $0.message.hasPrefix("duplicate key '") }, "\(error)")
    }

    func testAllProblemsAreReportedSortedWithOverridesLast() throws {
        let error = try XCTUnwrap(
            specLoadErrors(
                """
                send:
                  video:
                    encode: {codec: vp7, bitrat: 5}
                    capture: {kind: test, width: 641}
                """, overrides: ["send.video.capture.fps=0", "oops"]))
        XCTAssertEqual(
            error.diagnostics.map(\.description),
            [
                "test.yaml:3:21: unknown codec 'vp7'; expected one of vp8, vp9, h264, opus; did you mean 'vp8'?",
                "test.yaml:3:26: unknown key 'bitrat' in encode; did you mean 'bitrate'?",
                "test.yaml:4:34: width must be even for 4:2:0 video, got 641; use 640 or 642",
                "--set send.video.capture.fps=0:1:24: 'fps' must be between 1 and 240, got 0",
                "--set oops:1:1: missing '=' in --set 'oops'; write --set path.to.key=value, e.g. --set send.video.encode.codec=vp9"
            ])
        XCTAssertFalse(error.onlyMissingElements)
    }

    func testLoadFromPath() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-spec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("camera.yml").path
        try "send: {video: {capture: {kind: test}}}\n".write(toFile: path, atomically: true, encoding: .utf8)
        let spec = try PipelineLoader(environment: [:]).load(path: path)
        XCTAssertEqual(spec.name, "camera")
        XCTAssertEqual(spec.file, path)

        let missing = dir.appendingPathComponent("nope.yaml").path
        XCTAssertThrowsError(try PipelineLoader().load(path: missing)) { error in
            XCTAssertEqual("\(error)", "\(missing): cannot read file: no such file")
        }
        XCTAssertThrowsError(try PipelineLoader().load(path: dir.path)) { error in
            XCTAssertEqual("\(error)", "\(dir.path): cannot read file: it is a directory")
        }
    }

    func testCatalogAcceptsAValidFileAndReportsMissingDefaults() throws {
        let yaml = """
            send:
              video:
                capture: {kind: test}
                filters: [{element: videoflip, properties: {method: clockwise}}, {gst: "videobalance ! videoflip"}]
                encode: {codec: h264, properties: {tune: zerolatency}}
            """
        XCTAssertNotNil(specLoadValid(yaml, catalog: SpecFakeCatalog()))

        let error = try XCTUnwrap(specLoadErrors(yaml, catalog: SpecFakeCatalog(missing: ["x264enc", "webrtcbin"])))
        XCTAssertTrue(error.onlyMissingElements)
        XCTAssertEqual(
            error.diagnostics.map(\.description),
            [
                "test.yaml: element 'webrtcbin' is not installed: it is in GStreamer plugin 'webrtc'; install it with: apt-get install gstreamer1.0-plugins-bad",
                "test.yaml:5:5: element 'x264enc' is not installed: it is in GStreamer plugin 'x264'; install it with: apt-get install gstreamer1.0-plugins-ugly"
            ])
    }

    func testAddressAndServerForms() throws {
        let good = try XCTUnwrap(
            specLoadValid(
                """
                transport:
                  ice:
                    addresses: ["::", "fe80::1%eth0", "::ffff:192.168.0.1", "2001:db8:0:0:0:0:2:1", 0.0.0.0]
                    stun: "stun:[::1]:3478"
                    turn: turns://user:pw@turn.example.org
                send: {video: {capture: {kind: test}}}
                """))
        XCTAssertEqual(good.transport.ice.addresses.count, 5)
        XCTAssertEqual(good.transport.ice.stun, "stun:[::1]:3478")

        let error = try XCTUnwrap(
            specLoadErrors(
                """
                transport:
                  ice:
                    addresses: ["1:2:3:4:5:6:7:8:9", "1::2::3", "256.0.0.1", "localhost", "::g"]
                    turn: ["turn://host:3478", "turn://:pw@host", "turn://u:p@host:0"]
                send: {video: {capture: {kind: test}}}
                """))
        XCTAssertEqual(
            error.diagnostics.map(\.location),
            [
                specLoc(3, 17), specLoc(3, 38), specLoc(3, 49), specLoc(3, 62), specLoc(3, 75),
                specLoc(4, 12), specLoc(4, 32), specLoc(4, 51)
            ])
    }

    func testSubstitutionHappensBeforeOverridesAndNotInKeys() throws {
        let spec = try XCTUnwrap(
            specLoadValid(
                """
                send:
                  video:
                    capture: {kind: test, pattern: "${P}"}
                """, overrides: ["description=${NOT_SUBSTITUTED}"], environment: ["P": "snow"]))
        XCTAssertEqual(spec.send?.video?.capture.pattern, "snow")
        XCTAssertEqual(spec.description, "${NOT_SUBSTITUTED}")

        let error = try XCTUnwrap(
            specLoadErrors(
                "${KEY}: 1\nsend: {video: {capture: {kind: test}}}",
                environment: ["KEY": "name"]))
        XCTAssertEqual(
            error.diagnostics.map(\.description),
            [
                "test.yaml:1:1: unknown key '${KEY}' at the top level; valid keys are version, name, description, plugins, transport, send, receive, load"
            ])
    }
}
