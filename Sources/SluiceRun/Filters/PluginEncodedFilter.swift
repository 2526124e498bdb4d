import CSluicePluginABI
import Foundation
import SluiceFilterKit

/// An encoded-frame filter descriptor inside a loaded library (which is never unloaded).
package struct PluginEncodedDescriptor: @unchecked Sendable { // points into the library's immutable, never-freed table
    package let raw: UnsafePointer<SluiceEncodedFilterV2>
    package init(_ raw: UnsafePointer<SluiceEncodedFilterV2>) { self.raw = raw }
}

/// One instance of a plugin's encoded-frame filter, driven through the version-2 C ABI: the
/// frame goes in read-only; a replacement is written into bytes Sluice reserves for it.
package final class PluginEncodedFilterInstance: EncodedFrameProcessor {
    private let descriptor: PluginEncodedDescriptor
    private let instance: UnsafeMutableRawPointer
    /// The event box handed to the plugin; made once (the element's context never changes).
    private var emitBox: EmitBox?

    package init(_ descriptor: PluginEncodedDescriptor, configuration: FilterConfiguration) throws {
        self.descriptor = descriptor
        let json = String(decoding: try JSONEncoder().encode(configuration.values), as: UTF8.self)
        var error: UnsafeMutablePointer<CChar>?
        guard let made = descriptor.raw.pointee.create?(descriptor.raw.pointee.type_context, json, &error) else {
            throw PluginFilterInstance.PluginError(description: Self.takeString(error, descriptor) ?? "the plugin could not create the encoded filter")
        }
        instance = made
    }

    deinit { descriptor.raw.pointee.destroy?(instance) }

    /// A message the plugin allocated, freed with its own allocator.
    private static func takeString(_ p: UnsafeMutablePointer<CChar>?, _ descriptor: PluginEncodedDescriptor) -> String? {
        guard let p else { return nil }
        defer { descriptor.raw.pointee.free_string?(p) }
        return String(cString: p)
    }

    /// The C codec number of `codec`.
    static func cCodec(_ codec: EncodedCodec) -> UInt32 {
        switch codec {
        case .vp8: UInt32(SLUICE_CODEC_VP8)
        case .vp9: UInt32(SLUICE_CODEC_VP9)
        case .h264: UInt32(SLUICE_CODEC_H264)
        case .opus: UInt32(SLUICE_CODEC_OPUS)
        }
    }

    package func process(_ frame: borrowing EncodedFrame, context: FilterContext) throws -> EncodedVerdict {
        let box = emitBox ?? EmitBox(context)
        emitBox = box
        let output = ReplacementBox(context: context)
        var c = SluiceEncodedFrameV2(
            codec: Self.cCodec(frame.codec), flags: (frame.isKeyframe ? 1 : 0) | (frame.direction == .send ? 2 : 0),
            pts: frame.pts ?? UInt64.max, dts: frame.dts ?? UInt64.max,
            data: frame.bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), size: frame.bytes.count, stream: 0)
        var error: UnsafeMutablePointer<CChar>?
        let result = withExtendedLifetime((box, output)) {
            var out = SluiceEncodedOutputV2(context: Unmanaged.passUnretained(output).toOpaque(), reserve: pluginReserve, attach: pluginAttach)
            return descriptor.raw.pointee.process?(instance, &c, &out, pluginEmit, Unmanaged.passUnretained(box).toOpaque(), &error) ?? -1
        }
        switch result {
        case 0: return .keep
        case 1: return .drop
        case 2:
            guard let bytes = output.bytes else {
                throw PluginFilterInstance.PluginError(description: "the plugin replaced a frame without reserving its bytes")
            }
            return .replace(bytes)
        default:
            throw PluginFilterInstance.PluginError(description: Self.takeString(error, descriptor) ?? "the plugin encoded filter failed")
        }
    }
}

/// The replacement a plugin writes during one `process` call (memory Sluice owns, freed
/// with the box), and where its attached metadata goes (the filter's events).
final class ReplacementBox {
    private var base: UnsafeMutablePointer<UInt8>?
    private var count = 0
    let context: FilterContext
    init(context: FilterContext) { self.context = context }
    deinit { base?.deallocate() }

    /// Fresh zeroed bytes for the replacement (a second call replaces the first).
    func reserve(_ size: Int) -> UnsafeMutablePointer<UInt8>? {
        base?.deallocate()
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, size))
        p.initialize(repeating: 0, count: max(1, size))
        base = p
        count = size
        return p
    }

    /// What the plugin wrote, if it reserved anything.
    var bytes: [UInt8]? { base.map { Array(UnsafeBufferPointer(start: $0, count: count)) } }
}

/// `reserve`: bytes for the replacement, valid until `process` returns (at most 64 MiB).
let pluginReserve: @convention(c) (UnsafeMutableRawPointer?, Int) -> UnsafeMutablePointer<UInt8>? = { context, size in
    guard let context, size >= 0, size <= 64 << 20 else { return nil }
    return Unmanaged<ReplacementBox>.fromOpaque(context).takeUnretainedValue().reserve(size)
}

/// `attach`: per-frame metadata, reported as an event named `key` with the JSON's numbers.
let pluginAttach: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Void = { context, key, json in
    guard let context, let key else { return }
    let box = Unmanaged<ReplacementBox>.fromOpaque(context).takeUnretainedValue()
    let fields = (try? JSONDecoder().decode([String: Double].self, from: Data((json.map { String(cString: $0) } ?? "{}").utf8))) ?? [:]
    box.context.emit(String(cString: key), fields)
}
