import CSluicePluginABI
import Foundation
import SluiceFilterKit

/// Why a plugin library could not be loaded; each says what to do.
public enum PluginLoadError: Error, CustomStringConvertible, Sendable {
    /// No file at the path.
    case fileNotFound(String)
    /// `dlopen` refused the library, for `reason`.
    case cannotOpen(String, reason: String)
    /// The library exports no Sluice plugin entry point.
    case noEntryPoint(String)
    /// The plugin was built for another plugin ABI version than this Sluice's.
    case versionMismatch(String, found: UInt32, expected: UInt32)
    /// The plugin describes its filters wrongly, for `reason`.
    case malformed(String, reason: String)

    /// What went wrong and how to fix it.
    public var description: String {
        switch self {
        case .fileNotFound(let p):
            "file not found: \(p); build the plugin first (e.g. `swift build -c release` in its package) and check the path"
        case .cannotOpen(let p, let reason):
            "cannot load \(p): \(reason)"
        case .noEntryPoint(let p):
            "\(p) has no entry point '\(SLUICE_PLUGIN_ENTRY_V2)' or '\(SLUICE_PLUGIN_ENTRY)': it is not a Sluice plugin (export it with SluicePluginExport; see Plugins/ExamplePlugin)"
        case .versionMismatch(let p, let found, let expected):
            "\(p) was built for plugin ABI version \(found), but this Sluice speaks version \(expected) through that entry point (and versions 1 and 2 in all); rebuild the plugin against this Sluice"
        case .malformed(let p, let reason):
            "\(p) describes its filters wrongly: \(reason)"
        }
    }
}

/// A dynamic plugin library, opened and checked, with a factory per filter it exports.
///
/// The library stays loaded for the life of the process (its code backs registered
/// element types), so it is never dlclose()d.
package final class LoadedPlugin: Sendable {
    package let path: String
    package let name: String
    package let filters: [FilterFactory]
    package let audioFilters: [AudioFilterFactory]
    package let encodedFilters: [EncodedFilterFactory]

    package init(path: String) throws(PluginLoadError) {
        self.path = path
        guard FileManager.default.fileExists(atPath: path) else { throw .fileNotFound(path) }
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            throw .cannotOpen(path, reason: dlerror().map { String(cString: $0) } ?? "unknown error")
        }
        if let symbol = dlsym(handle, SLUICE_PLUGIN_ENTRY_V2) {
            let table = try Self.tableV2(symbol, path: path)
            name = table.pointee.plugin_name.map { String(cString: $0) } ?? path
            filters = try Self.list(table.pointee.video_filters, count: table.pointee.video_filter_count, path: path, what: "video") {
                d throws(PluginLoadError) in try Self.factory(d, path: path)
            }
            audioFilters = try Self.list(table.pointee.audio_filters, count: table.pointee.audio_filter_count, path: path, what: "audio") {
                d throws(PluginLoadError) in try Self.audioFactory(d, path: path)
            }
            encodedFilters = try Self.list(
                table.pointee.encoded_filters, count: table.pointee.encoded_filter_count, path: path, what: "encoded-frame"
            ) { d throws(PluginLoadError) in try Self.encodedFactory(d, path: path) }
            return
        }
        guard let symbol = dlsym(handle, SLUICE_PLUGIN_ENTRY) else { throw .noEntryPoint(path) }
        let entry = unsafeBitCast(symbol, to: SluicePluginEntryV1.self)
        guard let table = entry() else { throw .malformed(path, reason: "the entry point returned nothing") }
        guard table.pointee.abi_version == SLUICE_PLUGIN_ABI_VERSION else {
            throw .versionMismatch(path, found: table.pointee.abi_version, expected: SLUICE_PLUGIN_ABI_VERSION)
        }
        name = table.pointee.plugin_name.map { String(cString: $0) } ?? path
        filters = try Self.list(table.pointee.filters, count: table.pointee.filter_count, path: path, what: "video") {
            d throws(PluginLoadError) in try Self.factory(d, path: path)
        }
        audioFilters = []
        encodedFilters = []
    }

    /// The version-2 table behind `symbol`, checked: its version and its size.
    private static func tableV2(_ symbol: UnsafeMutableRawPointer, path: String) throws(PluginLoadError) -> UnsafePointer<SluicePluginV2> {
        let entry = unsafeBitCast(symbol, to: SluicePluginEntryV2.self)
        guard let table = entry() else { throw .malformed(path, reason: "the entry point returned nothing") }
        guard table.pointee.abi_version == SLUICE_PLUGIN_ABI_VERSION_2 else {
            throw .versionMismatch(path, found: table.pointee.abi_version, expected: SLUICE_PLUGIN_ABI_VERSION_2)
        }
        guard Int(table.pointee.struct_size) >= MemoryLayout<SluicePluginV2>.size else {
            throw .malformed(
                path, reason: "its table is \(table.pointee.struct_size) bytes, smaller than version 2's \(MemoryLayout<SluicePluginV2>.size)")
        }
        return table
    }

    /// Each of `count` descriptors at `first`, made into a factory; a count without a table is malformed.
    private static func list<Descriptor, Factory>(
        _ first: UnsafePointer<Descriptor>?, count: UInt32, path: String, what: String,
        _ make: (UnsafePointer<Descriptor>) throws(PluginLoadError) -> Factory
    ) throws(PluginLoadError) -> [Factory] {
        guard count > 0 else { return [] }
        guard let first else { throw .malformed(path, reason: "it counts \(count) \(what) filter(s) but gives no table of them") }
        var out: [Factory] = []
        for i in 0..<Int(count) { out.append(try make(first + i)) }
        return out
    }

    private static func parameters(_ json: UnsafePointer<CChar>?, filter name: String, path: String) throws(PluginLoadError) -> [FilterParameter] {
        do {
            return try JSONDecoder().decode([FilterParameter].self, from: Data((json.map { String(cString: $0) } ?? "[]").utf8))
        } catch {
            throw .malformed(path, reason: "filter '\(name)' has unreadable parameters: \(error)")
        }
    }

    private static func audioFactory(_ d: UnsafePointer<SluiceAudioFilterV2>, path: String) throws(PluginLoadError) -> AudioFilterFactory {
        let c = d.pointee
        guard Int(c.struct_size) >= MemoryLayout<SluiceAudioFilterV2>.size else {
            throw .malformed(
                path, reason: "an audio filter's descriptor is \(c.struct_size) bytes, smaller than version 2's \(MemoryLayout<SluiceAudioFilterV2>.size)")
        }
        guard let namePtr = c.name, let create = c.create, let destroy = c.destroy, let process = c.process else {
            throw .malformed(path, reason: "an audio filter lacks its name or functions")
        }
        let name = String(cString: namePtr)
        let formats = (c.formats.map { String(cString: $0) } ?? "").split(separator: ",")
            .compactMap { SampleFormat(rawValue: String($0).trimmingCharacters(in: .whitespaces)) }
        guard !formats.isEmpty else { throw .malformed(path, reason: "audio filter '\(name)' declares no known sample format (S16LE, F32LE)") }
        let descriptor = PluginAudioDescriptor(d)
        return AudioFilterFactory(
            name: name, summary: c.summary.map { String(cString: $0) } ?? "", formats: formats,
            parameters: try parameters(c.parameters_json, filter: name, path: path), modifiesSamples: c.modifies_samples != 0,
            origin: path
        ) { config, _ in
            try PluginAudioFilterInstance(descriptor, create: create, destroy: destroy, process: process, configuration: config)
        }
    }

    private static func encodedFactory(_ d: UnsafePointer<SluiceEncodedFilterV2>, path: String) throws(PluginLoadError) -> EncodedFilterFactory {
        let c = d.pointee
        guard Int(c.struct_size) >= MemoryLayout<SluiceEncodedFilterV2>.size else {
            throw .malformed(
                path,
                reason: "an encoded-frame filter's descriptor is \(c.struct_size) bytes, smaller than version 2's \(MemoryLayout<SluiceEncodedFilterV2>.size)"
            )
        }
        guard let namePtr = c.name, c.create != nil, c.destroy != nil, c.process != nil else {
            throw .malformed(path, reason: "an encoded-frame filter lacks its name or functions")
        }
        let name = String(cString: namePtr)
        let codecs = (c.codecs.map { String(cString: $0) } ?? "").split(separator: ",")
            .compactMap { EncodedCodec(rawValue: String($0).trimmingCharacters(in: .whitespaces).lowercased()) }
        guard !codecs.isEmpty else { throw .malformed(path, reason: "encoded-frame filter '\(name)' declares no known codec (VP8, VP9, H264, OPUS)") }
        let descriptor = PluginEncodedDescriptor(d)
        return EncodedFilterFactory(
            name: name, summary: c.summary.map { String(cString: $0) } ?? "", codecs: codecs,
            parameters: try parameters(c.parameters_json, filter: name, path: path), origin: path
        ) { config in try PluginEncodedFilterInstance(descriptor, configuration: config) }
    }

    private static func factory(_ d: UnsafePointer<SluiceFilterV1>, path: String) throws(PluginLoadError) -> FilterFactory {
        let c = d.pointee
        guard let namePtr = c.name, let create = c.create, let destroy = c.destroy, let process = c.process else {
            throw .malformed(path, reason: "a filter lacks its name or functions")
        }
        let name = String(cString: namePtr)
        let formats = (c.formats.map { String(cString: $0) } ?? "").split(separator: ",")
            .compactMap { PixelFormat(rawValue: String($0).trimmingCharacters(in: .whitespaces)) }
        guard !formats.isEmpty else { throw .malformed(path, reason: "filter '\(name)' declares no known pixel format") }
        let parameters = try parameters(c.parameters_json, filter: name, path: path)
        let descriptor = PluginDescriptor(d)
        return FilterFactory(
            name: name, summary: c.summary.map { String(cString: $0) } ?? "", formats: formats,
            parameters: parameters, modifiesPixels: c.modifies_pixels != 0, origin: path
        ) { config in
            try PluginFilterInstance(descriptor, create: create, destroy: destroy, process: process, configuration: config)
        }
    }
}

/// A filter descriptor inside a loaded library (which is never unloaded).
package struct PluginDescriptor: @unchecked Sendable { // points into the library's immutable, never-freed table
    package let raw: UnsafePointer<SluiceFilterV1>
    package init(_ raw: UnsafePointer<SluiceFilterV1>) { self.raw = raw }
}

/// One instance of a plugin filter, driven through the C ABI.
package final class PluginFilterInstance: FrameProcessor {
    private let descriptor: PluginDescriptor
    private let instance: UnsafeMutableRawPointer
    private let destroyFn: @convention(c) (UnsafeMutableRawPointer?) -> Void
    private let processFn:
        @convention(c) (
            UnsafeMutableRawPointer?, UnsafeMutablePointer<SluiceFrameV1>?, SluiceEmitV1?, UnsafeMutableRawPointer?,
            UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        ) -> Int32

    package struct PluginError: Error, CustomStringConvertible {
        package let description: String
    }

    package init(
        _ descriptor: PluginDescriptor,
        create: @convention(c) (UnsafeRawPointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> UnsafeMutableRawPointer?,
        destroy: @escaping @convention(c) (UnsafeMutableRawPointer?) -> Void,
        process:
            @escaping @convention(c) (
                UnsafeMutableRawPointer?, UnsafeMutablePointer<SluiceFrameV1>?, SluiceEmitV1?, UnsafeMutableRawPointer?,
                UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
            ) -> Int32,
        configuration: FilterConfiguration
    ) throws {
        self.descriptor = descriptor
        destroyFn = destroy
        processFn = process
        let json = String(decoding: try JSONEncoder().encode(configuration.values), as: UTF8.self)
        var error: UnsafeMutablePointer<CChar>?
        guard let made = create(descriptor.raw.pointee.type_context, json, &error) else {
            throw PluginError(description: Self.takeString(error, descriptor) ?? "the plugin could not create the filter")
        }
        instance = made
    }

    deinit { destroyFn(instance) }

    /// A message the plugin allocated, freed with its own allocator.
    private static func takeString(_ p: UnsafeMutablePointer<CChar>?, _ descriptor: PluginDescriptor) -> String? {
        guard let p else { return nil }
        defer { descriptor.raw.pointee.free_string?(p) }
        return String(cString: p)
    }

    /// The event box handed to the plugin; made once (the element's context never changes).
    private var emitBox: EmitBox?

    package func process(_ frame: borrowing Frame, context: FilterContext) throws -> FilterVerdict {
        var c = FrameABI.cFrame(frame)
        var error: UnsafeMutablePointer<CChar>?
        let box = emitBox ?? EmitBox(context)
        emitBox = box
        let result = withExtendedLifetime(box) {
            processFn(instance, &c, pluginEmit, Unmanaged.passUnretained(box).toOpaque(), &error)
        }
        switch result {
        case 0: return .keep
        case 1: return .drop
        default: throw PluginError(description: Self.takeString(error, descriptor) ?? "the plugin filter failed")
        }
    }
}

final class EmitBox {
    let context: FilterContext
    init(_ c: FilterContext) { context = c }
}

let pluginEmit: SluiceEmitV1 = { context, event, json in
    guard let context, let event else { return }
    let box = Unmanaged<EmitBox>.fromOpaque(context).takeUnretainedValue()
    let fields = (try? JSONDecoder().decode([String: Double].self, from: Data((json.map { String(cString: $0) } ?? "{}").utf8))) ?? [:]
    box.context.emit(String(cString: event), fields)
}
