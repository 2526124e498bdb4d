import Foundation
import SluiceRun
import SluiceFilterKit
import SluiceRunTestSupport
import XCTest

/// A deterministic generator, so failures reproduce.
private typealias SeededGenerator = SplitMix64

/// Loading hostile input must never crash: it either succeeds or throws diagnostics that
/// point inside the file.
final class PipelineLoaderRobustnessTests: XCTestCase {
    private let base = """
        version: 1
        name: fuzz
        transport:
          kind: loopback
          ice:
            addresses: [127.0.0.1, "::1"]
            stun: stun://127.0.0.1:3478
            turn: turn://user:pass@127.0.0.1:3478
            policy: all
            connect_timeout: 10s
          latency: 50ms
          bundle: max-bundle
        send:
          video: &v
            capture: {kind: test, pattern: ball, width: 640, height: 480, fps: 30, live: true}
            filters:
              - element: videoflip
                properties: {method: clockwise}
              - gst: "videobalance saturation=0"
            encode: {codec: vp8, bitrate: 2M, keyframe_interval: 60, preset: realtime}
          audio:
            capture:
              kind: file
              path: "${MEDIA:-media}/tone.ogg"
              loop: yes
            encode: {codec: opus, bitrate: 64k}
        receive:
          video:
            codecs: [vp8, h264]
            decode: {element: vp8dec, properties: {threads: 2}}
            sink: {kind: file, path: out.webm, encode: {codec: vp9}}
          audio:
            sink: stats
        """

    /// Lines as libyaml counts them (a final line break does not start a line).
    private func lineCount(_ text: String) -> Int {
        var lines = 1
        var previousCR = false
        var endsWithBreak = false
        for scalar in text.unicodeScalars {
            let isBreak = ["\n", "\r", "\u{85}", "\u{2028}", "\u{2029}"].contains(scalar)
            if isBreak, !(scalar == "\n" && previousCR) { lines += 1 }
            previousCR = scalar == "\r"
            endsWithBreak = isBreak
        }
        return endsWithBreak ? lines - 1 : lines
    }

    private func check(
        _ text: String, overrides: [String] = [], catalog: (any ElementCatalog)? = nil,
        _ context: @autoclosure () -> String
    ) {
        switch specLoad(text, overrides: overrides, environment: ["MEDIA": "/tmp"], catalog: catalog) {
        case .success:
            break
        case .failure(let error):
            XCTAssertFalse(error.diagnostics.isEmpty, context())
            let lines = max(1, lineCount(text))
            for diagnostic in error.diagnostics {
                XCTAssertFalse(diagnostic.message.isEmpty, context())
                guard let location = diagnostic.location, location.file == "test.yaml" else { continue }
                XCTAssertTrue(
                    location.line == 0 || (1...lines).contains(location.line),
                    "\(context()): \(diagnostic) outside \(lines) lines")
                XCTAssertGreaterThanOrEqual(location.column, location.line == 0 ? 0 : 1, context())
            }
        }
    }

    func testBaseFileIsValid() {
        XCTAssertNotNil(specLoadValid(base, environment: ["MEDIA": "/tmp"]))
    }

    func testEveryTruncation() {
        let characters = Array(base)
        for end in 0...characters.count {
            check(String(characters[0..<end]), "truncated at \(end)")
        }
    }

    func testRandomCharacterReplacements() {
        var rng = SeededGenerator(seed: 0x5EED)
        let palette: [Character] =
            Array(":{}[],-#&*!|>'\"%@`?<=$\\ \t\n\r~.0123456789abcxyz")
            + ["\u{0}", "\u{1}", "\u{7F}", "\u{85}", "\u{A0}", "\u{FEFF}", "\u{2028}", "\u{FFFD}", "é", "😀", "\r\n"]
        let characters = Array(base)
        for iteration in 0..<600 {
            var mutated = characters
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let index = Int.random(in: 0..<mutated.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: mutated[index] = palette.randomElement(using: &rng) ?? " "
                case 1: mutated.insert(palette.randomElement(using: &rng) ?? " ", at: index)
                default: mutated.remove(at: index)
                }
            }
            check(String(mutated), "iteration \(iteration)")
        }
    }

    func testRandomByteReplacements() {
        var rng = SeededGenerator(seed: 42)
        let bytes = Array(base.utf8)
        for iteration in 0..<300 {
            var mutated = bytes
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                mutated[Int.random(in: 0..<mutated.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            check(String(decoding: mutated, as: UTF8.self), "byte iteration \(iteration)")
        }
    }

    func testRandomOverridesAndCatalog() {
        var rng = SeededGenerator(seed: 7)
        let paths = [
            "send.video.encode.codec", "send.video", "transport.ice.addresses", "receive.audio.sink",
            "send.video.capture.width", "x", "send.video.filters.0", "send..a", "", "transport.ice.policy.x"
        ]
        let values = [
            "vp9", "[1, 2", "{kind: stats}", "", "=", "99999999999999999999", "[a, [b, {c: d}]]",
            "*x", "&a b", "a: b", "'unterminated", "null", "[127.0.0.1, '::1']", "relay"
        ]
        let catalog = SpecFakeCatalog(missing: ["vp9enc", "videoflip"])
        for iteration in 0..<200 {
            var overrides: [String] = []
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let path = paths.randomElement(using: &rng) ?? ""
                let value = values.randomElement(using: &rng) ?? ""
                overrides.append(Bool.random(using: &rng) ? "\(path)=\(value)" : path + value)
            }
            check(
                base, overrides: overrides, catalog: iteration.isMultiple(of: 2) ? catalog : nil,
                "overrides \(overrides)")
        }
    }

    func testHostileShapes() {
        let laughs = """
            a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
            b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
            c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
            d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
            e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
            f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
            g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
            """
        let error = specLoadErrors(laughs)
        XCTAssertEqual(error?.diagnostics.count, 1)
        XCTAssertTrue(error?.diagnostics.first?.message.contains("more than 100000 YAML nodes") ?? false, "\(String(describing: error))")

        // Keys made of nested aliases would take exponential time to hash for duplicate checks.
        let laughKeys = laughs + "\nh: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n? *h\n: 1\n? *h\n: 2\n"
        let keyError = specLoadErrors(laughKeys)
        XCTAssertEqual(
            keyError?.diagnostics.map(\.description),
            ["test.yaml:9:1: a list, mapping or alias used as a key; keys in a pipeline file are plain names such as `send:`"])
        check("a: &a [x]\n*a : 1\n", "alias key")
        check("a: &a [x]\n{*a : 1}\n", "flow alias key")
        check("a: &a [x]\n[*a, *a]: 1\n", "flow sequence key")
        check("a: &a [x]\nb: {? *a : 1}\n", "flow explicit key")

        let deep = String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)
        check("send: " + deep, "deep flow nesting")
        let deepMap = String(repeating: "{a: ", count: 990) + "1" + String(repeating: "}", count: 990)
        check("send: " + deepMap, "deep mapping")
        check(String(repeating: "- ", count: 2000) + "x", "deep block sequence")
        check("send:\n  video:\n    capture: {kind: test, width: \(String(repeating: "9", count: 5000))}", "huge number")
        check(String(repeating: "k: v\n", count: 3) + String(repeating: "k: v\n", count: 100), "many duplicate keys")
        check("send: {video: {capture: {kind: test}}}\nsend: x\nsend: y\n<<: {a: 1}\n<<: {b: 2}\n", "duplicate merges")
        check("\u{FEFF}send: {video: {capture: {kind: test}}}\r\n", "BOM and CRLF")
        check("? [a, b]\n: c\n", "complex key")
        check("send: !!binary aGVsbG8=\n", "tagged value")
        check("send: {video: {capture: {kind: test, pattern: \"\\ud800\"}}}", "surrogate escape")
        check("send: {video: {capture: {kind: test, pattern: \"\\x00\\U0010FFFF\"}}}", "escapes")
    }

    /// Deep nesting is refused before Yams' recursive composer can exhaust a small stack
    /// (512 KiB, the size of secondary threads on some platforms).
    func testDeepNestingOnASmallStack() {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let inputs = [
                "send: " + String(repeating: "{a: ", count: 990) + "1" + String(repeating: "}", count: 990),
                "send: " + String(repeating: "[", count: 999) + String(repeating: "]", count: 999),
                (0..<990).map { String(repeating: " ", count: $0) + "a:" }.joined(separator: "\n") + " 1",
                String(repeating: "- ", count: 990) + "x",
                "send: " + String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
            ]
            for input in inputs {
                let error = specLoadErrors(input)
                XCTAssertTrue(
                    error?.diagnostics.first?.message.contains("levels deep") ?? false,
                    "\(String(describing: error))")
            }
            done.signal()
        }
        thread.stackSize = 512 * 1024
        thread.start()
        done.wait()
    }

    /// Positions after multi-byte characters and CRLF line ends are counted in characters
    /// per line, as editors show them.
    func testPositionsWithUnicodeAndCRLF() throws {
        let yaml = "description: \"héllo 😀\"\r\nsend:\r\n  video:\r\n    capture: {kind: test, wave: sine}\r\n"
        let error = try XCTUnwrap(specLoadErrors(yaml))
        XCTAssertEqual(error.diagnostics.map(\.location), [specLoc(4, 27)])

        let error2 = try XCTUnwrap(specLoadErrors("name: \"😀\"\nsend: {video: {capture: {kind: tset}}}\n"))
        XCTAssertEqual(error2.diagnostics.map(\.location), [specLoc(2, 32)])
        let error3 = try XCTUnwrap(specLoadErrors("name: x # 😀😀\nsend: {é: 1, video: {capture: {kind: test}}}\n"))
        XCTAssertEqual(error3.diagnostics.map(\.location), [specLoc(2, 8)])
    }

    func testSyntaxErrorAtEndOfFileIsClampedToTheLastLine() throws {
        let error = try XCTUnwrap(specLoadErrors("send:\n  video: {capture: {kind: test}\n\n\n"))
        XCTAssertEqual(error.diagnostics.map(\.location), [specLoc(2, 32)])
    }
}
