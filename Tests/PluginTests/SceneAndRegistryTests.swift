import SluiceBuiltInPlugins
import SluiceFilterKit
import SluiceScene
import XCTest

final class SceneTests: XCTestCase {
    func draw(_ scene: MovingScene, _ format: PixelFormat, _ w: Int, _ h: Int, frame n: UInt64, padding: Int = 13) -> OwnedFrame {
        let frame = OwnedFrame(format: format, width: w, height: h, rowPadding: padding, fill: sentinel)
        XCTAssertTrue(frame.withFrame(number: n) { scene.draw(into: $0) })
        return frame
    }

    func testDeterministicAndPaddingIntact() {
        for format in MovingScene.formats {
            for (w, h) in testSizes + [(320, 180)] {
                for padding in testPaddings {
                    let a = draw(MovingScene(), format, w, h, frame: 17, padding: padding)
                    let shared = MovingScene()
                    _ = draw(shared, format, w, h, frame: 3, padding: padding)
                    let b = draw(shared, format, w, h, frame: 17, padding: padding)
                    let what = "\(format.name) \(w)x\(h) padding \(padding)"
                    assertSame(allBytes(a), allBytes(b), what)
                    XCTAssertTrue(a.paddingIsIntact(sentinel), what)
                }
            }
        }
    }

    func testWritesEveryPixel() {
        // Drawing over two different fills gives the same picture: nothing is left undrawn.
        for format in MovingScene.formats {
            for (w, h) in testSizes {
                let scene = MovingScene(speed: 7, seed: 3)
                let zero = OwnedFrame(format: format, width: w, height: h, rowPadding: 5, fill: 0)
                let ones = OwnedFrame(format: format, width: w, height: h, rowPadding: 5, fill: 255)
                _ = zero.withFrame(number: 9) { scene.draw(into: $0) }
                _ = ones.withFrame(number: 9) { scene.draw(into: $0) }
                assertSame(planes(zero), planes(ones), "\(format.name) \(w)x\(h)")
            }
        }
    }

    func testFramesMoveAndSeedsDiffer() {
        for format in MovingScene.formats {
            let scene = MovingScene()
            let f0 = planes(draw(scene, format, 64, 48, frame: 0))
            let f1 = planes(draw(scene, format, 64, 48, frame: 1))
            let f10 = planes(draw(scene, format, 64, 48, frame: 10))
            XCTAssertTrue(f0 != f1, format.name)
            XCTAssertTrue(f0 != f10, format.name)
            XCTAssertTrue(f0 != planes(draw(MovingScene(seed: 2), format, 64, 48, frame: 0)), format.name)
            // Speed 0: a still picture.
            let still = MovingScene(speed: 0)
            assertSame(planes(draw(still, format, 64, 48, frame: 0)), planes(draw(still, format, 64, 48, frame: 500)), format.name)
        }
    }

    func testExtremeFrameNumbersAndSpeeds() {
        for format in MovingScene.formats {
            for n: UInt64 in [.max, .max / 3, 1 << 53 + 1] {
                _ = draw(MovingScene(speed: 100, seed: Int(Int32.max)), format, 33, 17, frame: n)
            }
        }
    }

    func testYUVLevelsStayInLimitedRange() {
        let frame = draw(MovingScene(), .i420, 320, 180, frame: 5)
        let luma = planes(frame)[0].flatMap { $0 }
        XCTAssertGreaterThanOrEqual(luma.min() ?? 0, 16)
        XCTAssertLessThanOrEqual(luma.max() ?? 255, 235)
    }

    func testConfiguration() throws {
        let scene = try MovingScene(
            configuration: FilterConfiguration(
                ["speed": .integer(10), "seed": .integer(9)],
                parameters: MovingScene.parameters))
        XCTAssertEqual(scene.speed, 10)
        XCTAssertEqual(scene.seed, 9)
        XCTAssertThrowsError(try FilterConfiguration(["speed": .number(101)], parameters: MovingScene.parameters))
    }
}

final class RegistryTests: XCTestCase {
    func testNamesFormatsAndDefaults() throws {
        let filterNames = BuiltInPlugins.filters.map { $0.name }
        let sourceNames = BuiltInPlugins.sources.map { $0.name }
        XCTAssertEqual(Set(filterNames + sourceNames).count, filterNames.count + sourceNames.count)
        XCTAssertEqual(Set(filterNames), ["grayscale", "invert", "pixelate", "motion", "framestamp", "framestamp-read", "text"])
        XCTAssertEqual(sourceNames, ["scene"])
        for type in BuiltInPlugins.filters {
            XCTAssertFalse(type.formats.isEmpty, type.name)
            XCTAssertFalse(type.summary.isEmpty, type.name)
            XCTAssertEqual(Set(type.parameters.map(\.name)).count, type.parameters.count, type.name)
            let config = try FilterConfiguration([:], parameters: type.parameters)
            _ = try type.init(configuration: config)
        }
        for type in BuiltInPlugins.sources {
            XCTAssertFalse(type.formats.isEmpty, type.name)
            let config = try FilterConfiguration([:], parameters: type.parameters)
            _ = try type.init(configuration: config)
        }
    }

    /// Every filter with default and extreme settings, on every format and awkward size: no trap,
    /// padding intact, analysis filters unchanged.
    func testNoTrapOnAwkwardFrames() throws {
        var rng = TestRandom(5)
        let sizes = [(1, 1), (2, 1), (1, 2), (3, 3), (33, 17), (64, 3), (65, 7), (130, 9)]
        for type in BuiltInPlugins.filters {
            var configs: [[String: FilterValue]] = [[:]]
            for _ in 0..<6 {
                var given: [String: FilterValue] = [:]
                for p in type.parameters {
                    switch p.kind {
                    case .integer(let lo, let hi): given[p.name] = .integer(rng.next() & 1 == 0 ? lo : min(hi, lo + rng.int(0...40)))
                    case .number(let lo, let hi): given[p.name] = .number(rng.next() & 1 == 0 ? lo : hi)
                    case .integers(let count, let lo, let hi):
                        given[p.name] = .integers((0..<count).map { _ in rng.next() & 1 == 0 ? rng.int(lo...min(hi, lo + 70)) : hi })
                    default: break
                    }
                }
                configs.append(given)
            }
            for given in configs {
                let filter = try type.init(configuration: FilterConfiguration(given, parameters: type.parameters))
                for format in type.formats {
                    for (i, (w, h)) in sizes.enumerated() {
                        let frame = randomFrame(format, w, h, padding: i % 2 == 0 ? 0 : 13)
                        let before = allBytes(frame)
                        _ = try frame.withFrame(number: UInt64(i)) { try filter.process($0, context: .discarding) }
                        XCTAssertTrue(frame.paddingIsIntact(sentinel), "\(type.name) \(given) \(format.name) \(w)x\(h)")
                        if !type.modifiesPixels { assertSame(allBytes(frame), before, type.name) }
                    }
                }
            }
        }
    }
}
