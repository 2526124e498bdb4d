import SluiceFilterKit
import Synchronization

/// Throws on every `every`-th audio block; otherwise leaves it alone.
final class ThrowingAudioFilter: AudioFilter {
    static let name = "test-audio-throwing"
    static let summary = "Throws every N-th audio block (tests)"
    static let parameters = [FilterParameter("every", .integer(min: 1, max: 1000), default: .integer(2))]
    struct Boom: Error, CustomStringConvertible { let block: UInt64; var description: String { "boom at block \(block)" } }
    private let every: UInt64
    init(configuration: FilterConfiguration) throws { every = UInt64(configuration.integer("every")) }
    func process(_ block: borrowing AudioBlock, context: FilterContext) throws -> FilterVerdict {
        if block.blockNumber % every == every - 1 { throw Boom(block: block.blockNumber) }
        return .keep
    }
}

/// Where the audio blocks a test filter saw live in memory, in the order seen.
enum AudioBlockAddresses {
    static let peeked = Mutex<[UInt]>([])
    static let touched = Mutex<[UInt]>([])
}

/// Analysis only: records each block's address and writes nothing.
final class AudioPeek: AudioFilter {
    static let name = "test-audio-peek"
    static let summary = "Records where each audio block lives, analysis only (tests)"
    static let modifiesSamples = false
    init(configuration: FilterConfiguration) throws {}
    func process(_ block: borrowing AudioBlock, context: FilterContext) throws -> FilterVerdict {
        let address = UInt(bitPattern: block.bytes.baseAddress)
        AudioBlockAddresses.peeked.withLock { $0.append(address) }
        return .keep
    }
}

/// Writes to its blocks (the first sample, unchanged) and records each block's address.
final class AudioTouch: AudioFilter {
    static let name = "test-audio-touch"
    static let summary = "Writes to each audio block and records where it lives (tests)"
    init(configuration: FilterConfiguration) throws {}
    func process(_ block: borrowing AudioBlock, context: FilterContext) throws -> FilterVerdict {
        AudioBlockAddresses.touched.withLock { $0.append(UInt(bitPattern: block.bytes.baseAddress)) }
        if let f = block.float32, !f.isEmpty { f[0] = f[0] }
        return .keep
    }
}
