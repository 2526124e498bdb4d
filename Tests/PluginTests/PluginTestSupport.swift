import Foundation
import SluiceFilterKit
import XCTest

/// The byte padding is pre-filled with; filters must leave it there.
let sentinel: UInt8 = 0xA5

/// Sizes every per-format test runs on: odd, tiny and ordinary.
let testSizes: [(width: Int, height: Int)] = [(33, 17), (1, 1), (7, 3), (2, 2), (16, 8), (64, 48)]
let testPaddings = [0, 13]

/// A deterministic generator for test data (SluiceFilterKit's SplitMix64).
struct TestRandom {
    private var generator: SplitMix64
    init(_ seed: UInt64) { generator = SplitMix64(seed: seed) }
    mutating func next() -> UInt64 { generator.next() }
    mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next() >> 24) }
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }
}

/// A frame with padding bytes set to `sentinel` and every used byte random.
func randomFrame(_ format: PixelFormat, _ width: Int, _ height: Int, padding: Int = 13, seed: UInt64 = 1) -> OwnedFrame {
    let frame = OwnedFrame(format: format, width: width, height: height, rowPadding: padding, fill: sentinel)
    var rng = TestRandom(seed &+ UInt64(width * 1000 + height))
    frame.withFrame { f in
        for p in 0..<format.planeCount {
            let plane = f.plane(p), used = frame.rowBytes(p)
            for y in 0..<frame.rows(p) {
                let row = plane.row(y)
                var x = 0
                while x < used {
                    var r = rng.next()
                    for _ in 0..<min(8, used - x) { row[x] = UInt8(truncatingIfNeeded: r); r >>= 8; x += 1 }
                }
            }
        }
    }
    return frame
}

/// The used bytes of every plane, row by row (no padding).
func planes(_ frame: OwnedFrame) -> [[[UInt8]]] {
    frame.withFrame { f in
        (0..<frame.format.planeCount).map { p in
            let plane = f.plane(p), used = frame.rowBytes(p)
            return (0..<frame.rows(p)).map { y in Array(UnsafeBufferPointer(start: plane.row(y), count: used)) }
        }
    }
}

/// Every byte including padding.
func allBytes(_ frame: OwnedFrame) -> [UInt8] {
    frame.withFrame { f in
        var out: [UInt8] = []
        for p in 0..<frame.format.planeCount {
            let plane = f.plane(p)
            for y in 0..<frame.rows(p) { out += UnsafeBufferPointer(start: plane.row(y), count: frame.strides[p]) }
        }
        return out
    }
}

/// Sets every used byte of `plane` from a function of (byte x, y).
func fill(_ frame: OwnedFrame, plane: Int, _ value: (Int, Int) -> UInt8) {
    for y in 0..<frame.rows(plane) {
        for x in 0..<frame.rowBytes(plane) { frame[plane, x, y] = value(x, y) }
    }
}

/// Copies the used bytes of `source` into `frame` (same format and size).
func copyPixels(_ source: OwnedFrame, into frame: OwnedFrame) {
    for p in 0..<source.format.planeCount {
        fill(frame, plane: p) { x, y in source[p, x, y] }
    }
}

/// An event a filter emitted.
struct Event: Equatable {
    var name: String
    var fields: [String: Double]
}

/// Collects the events of a `FilterContext` (emit may be called from any thread).
final class EventLog: @unchecked Sendable { // all state behind `lock`
    private let lock = NSLock()
    private var stored: [Event] = []
    var events: [Event] { lock.withLock { stored } }
    func named(_ name: String) -> [Event] { events.filter { $0.name == name } }
    func clear() { lock.withLock { stored.removeAll() } }
    var context: FilterContext {
        FilterContext { [self] name, fields in lock.withLock { stored.append(Event(name: name, fields: fields)) } }
    }
}

extension FrameFilter {
    /// Runs the filter once on `frame`.
    @discardableResult
    func run(_ frame: OwnedFrame, number: UInt64 = 0, context: FilterContext = .discarding) throws -> FilterVerdict {
        try frame.withFrame(number: number) { try process($0, context: context) }
    }
}

extension PixelFormat {
    var name: String { rawValue }
}

/// Compares two byte arrays, reporting the first difference instead of both arrays.
func assertSame(_ a: [UInt8], _ b: [UInt8], _ message: String, file: StaticString = #filePath, line: UInt = #line) {
    if a.count != b.count { return XCTFail("\(message): \(a.count) bytes, expected \(b.count)", file: file, line: line) }
    if let i = a.indices.first(where: { a[$0] != b[$0] }) {
        XCTFail("\(message): byte \(i) is \(a[i]), expected \(b[i])", file: file, line: line)
    }
}

/// Compares two frames' planes, reporting the first difference.
func assertSame(_ a: [[[UInt8]]], _ b: [[[UInt8]]], _ message: String, file: StaticString = #filePath, line: UInt = #line) {
    if a.count != b.count { return XCTFail("\(message): \(a.count) planes, expected \(b.count)", file: file, line: line) }
    for p in a.indices {
        if a[p].count != b[p].count { return XCTFail("\(message): plane \(p) rows differ", file: file, line: line) }
        for y in a[p].indices where a[p][y] != b[p][y] {
            let x = a[p][y].indices.first { a[p][y][$0] != b[p][y][$0] } ?? -1
            return XCTFail(
                "\(message): plane \(p) row \(y) byte \(x) is \(x >= 0 ? a[p][y][x] : 0), expected \(x >= 0 && x < b[p][y].count ? b[p][y][x] : 0)",
                file: file, line: line)
        }
    }
}
