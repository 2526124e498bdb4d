import CSluicePluginABI
import Foundation
import SluiceFilterKit

/// An audio filter descriptor inside a loaded library (which is never unloaded).
package struct PluginAudioDescriptor: @unchecked Sendable { // points into the library's immutable, never-freed table
    package let raw: UnsafePointer<SluiceAudioFilterV2>
    package init(_ raw: UnsafePointer<SluiceAudioFilterV2>) { self.raw = raw }
}

/// One instance of a plugin's audio filter, driven through the version-2 C ABI.
package final class PluginAudioFilterInstance: AudioProcessor {
    package typealias Process =
        @convention(c) (
            UnsafeMutableRawPointer?, UnsafeMutablePointer<SluiceAudioBufferV2>?, SluiceEmitV1?, UnsafeMutableRawPointer?,
            UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        ) -> Int32
    package typealias Create =
        @convention(c) (
            UnsafeRawPointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        ) -> UnsafeMutableRawPointer?

    private let descriptor: PluginAudioDescriptor
    private let instance: UnsafeMutableRawPointer
    private let destroyFn: @convention(c) (UnsafeMutableRawPointer?) -> Void
    private let processFn: Process
    /// The event box handed to the plugin; made once (the element's context never changes).
    private var emitBox: EmitBox?

    package init(
        _ descriptor: PluginAudioDescriptor, create: Create, destroy: @escaping @convention(c) (UnsafeMutableRawPointer?) -> Void,
        process: @escaping Process, configuration: FilterConfiguration
    ) throws {
        self.descriptor = descriptor
        destroyFn = destroy
        processFn = process
        let json = String(decoding: try JSONEncoder().encode(configuration.values), as: UTF8.self)
        var error: UnsafeMutablePointer<CChar>?
        guard let made = create(descriptor.raw.pointee.type_context, json, &error) else {
            throw PluginFilterInstance.PluginError(description: Self.takeString(error, descriptor) ?? "the plugin could not create the audio filter")
        }
        instance = made
    }

    deinit { destroyFn(instance) }

    /// A message the plugin allocated, freed with its own allocator.
    private static func takeString(_ p: UnsafeMutablePointer<CChar>?, _ descriptor: PluginAudioDescriptor) -> String? {
        guard let p else { return nil }
        defer { descriptor.raw.pointee.free_string?(p) }
        return String(cString: p)
    }

    package func process(_ block: borrowing AudioBlock, context: FilterContext) throws -> FilterVerdict {
        var buffer = SluiceAudioBufferV2(
            format: UInt32(block.format == .s16le ? SLUICE_AUDIO_S16LE : SLUICE_AUDIO_F32LE),
            rate: Int32(clamping: block.rate), channels: Int32(clamping: block.channels), frames: UInt32(clamping: block.frameCount),
            data: block.bytes.baseAddress, pts: block.pts ?? UInt64.max, duration: block.pts == nil ? UInt64.max : block.duration,
            sample_offset: block.sampleOffset)
        var error: UnsafeMutablePointer<CChar>?
        let box = emitBox ?? EmitBox(context)
        emitBox = box
        let result = withExtendedLifetime(box) {
            processFn(instance, &buffer, pluginEmit, Unmanaged.passUnretained(box).toOpaque(), &error)
        }
        switch result {
        case 0: return .keep
        case 1: return .drop
        default: throw PluginFilterInstance.PluginError(description: Self.takeString(error, descriptor) ?? "the plugin audio filter failed")
        }
    }
}
