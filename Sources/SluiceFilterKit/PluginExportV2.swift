import CSluicePluginABI
import Foundation

extension SluicePluginExport {
    /// The version-2 ABI this SluiceFilterKit speaks besides version 1.
    public static let abiVersion2 = UInt32(SLUICE_PLUGIN_ABI_VERSION_2)

    /// The version-2 plugin table for video `filters`, `audioFilters` and `encodedFilters`
    /// (built once per plugin name, on the first call; the memory lives for the process). Export it as `sluice_plugin_v2`; a
    /// plugin that also exports `sluice_plugin_v1` (video filters only) loads in Sluices older
    /// than version 2.
    /// ```swift
    /// @_cdecl("sluice_plugin_v2")
    /// public func sluicePluginV2() -> UnsafeRawPointer {
    ///     SluicePluginExport.tableV2(name: "example", filters: [Sepia.self], audioFilters: [Tremolo.self], encodedFilters: [Scramble.self])
    /// }
    /// ```
    public static func tableV2(
        name: String, filters: [any FrameFilter.Type], audioFilters: [any AudioFilter.Type], encodedFilters: [any EncodedFrameFilter.Type] = []
    ) -> UnsafeRawPointer {
        // The version-1 table first, outside the version-2 one's building (one lock at a time).
        let v1 = table(name: name, filters: filters)
        return once("v2:" + name) { buildTableV2(v1: v1, audioFilters: audioFilters, encodedFilters: encodedFilters) }
    }

    private static func buildTableV2(
        v1 v1Table: UnsafeRawPointer, audioFilters: [any AudioFilter.Type], encodedFilters: [any EncodedFrameFilter.Type]
    ) -> UnsafeRawPointer {
        let v1 = v1Table.assumingMemoryBound(to: SluicePluginV1.self)
        let audio = UnsafeMutablePointer<SluiceAudioFilterV2>.allocate(capacity: max(1, audioFilters.count))
        for (i, type) in audioFilters.enumerated() {
            let params = (try? JSONEncoder().encode(type.parameters)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
            audio[i] = SluiceAudioFilterV2(
                struct_size: UInt32(MemoryLayout<SluiceAudioFilterV2>.size), name: strdup(type.name), summary: strdup(type.summary),
                formats: strdup(type.formats.map(\.rawValue).joined(separator: ",")), parameters_json: strdup(params),
                modifies_samples: type.modifiesSamples ? 1 : 0,
                type_context: UnsafeRawPointer(Unmanaged.passRetained(ExportedAudioType(type)).toOpaque()),
                create: exportAudioCreate, destroy: exportAudioDestroy, process: exportAudioProcess, free_string: { free($0) })
        }
        let table = UnsafeMutablePointer<SluicePluginV2>.allocate(capacity: 1)
        table.initialize(
            to: SluicePluginV2(
                abi_version: SLUICE_PLUGIN_ABI_VERSION_2, struct_size: UInt32(MemoryLayout<SluicePluginV2>.size),
                plugin_name: v1.pointee.plugin_name, video_filter_count: v1.pointee.filter_count, video_filters: v1.pointee.filters,
                audio_filter_count: UInt32(audioFilters.count), audio_filters: audio,
                encoded_filter_count: UInt32(encodedFilters.count), encoded_filters: encodedDescriptors(encodedFilters)))
        return UnsafeRawPointer(table)
    }
}

/// An audio filter type and its parameters, behind the C `type_context`.
private final class ExportedAudioType {
    let make: (FilterConfiguration) throws -> any AudioProcessor
    let parameters: [FilterParameter]
    init(_ type: any AudioFilter.Type) {
        parameters = type.parameters
        make = { try type.init(configuration: $0) }
    }
}

private final class ExportedAudioInstance {
    let processor: any AudioProcessor
    init(_ p: any AudioProcessor) { processor = p }
}

private let exportAudioCreate:
    @convention(c) (UnsafeRawPointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> UnsafeMutableRawPointer? = {
        context, json, errorOut in
        guard let context else { errorOut?.pointee = strdup("no type context"); return nil }
        let type = Unmanaged<ExportedAudioType>.fromOpaque(context).takeUnretainedValue()
        do {
            let given = try SluicePluginExport.exportSettings(json)
            return Unmanaged.passRetained(ExportedAudioInstance(try type.make(FilterConfiguration(given, parameters: type.parameters)))).toOpaque()
        } catch {
            errorOut?.pointee = strdup("\(error)")
            return nil
        }
    }

private let exportAudioDestroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { instance in
    guard let instance else { return }
    Unmanaged<ExportedAudioInstance>.fromOpaque(instance).release()
}

private let exportAudioProcess:
    @convention(c) (
        UnsafeMutableRawPointer?, UnsafeMutablePointer<SluiceAudioBufferV2>?, SluiceEmitV1?, UnsafeMutableRawPointer?,
        UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    ) -> Int32 = { instance, buffer, emit, emitContext, errorOut in
        guard let instance, let buffer, let data = buffer.pointee.data, buffer.pointee.rate > 0, buffer.pointee.channels > 0,
            let format = buffer.pointee.format == UInt32(SLUICE_AUDIO_S16LE)
                ? SampleFormat.s16le
                : buffer.pointee.format == UInt32(SLUICE_AUDIO_F32LE) ? .f32le : nil
        else {
            errorOut?.pointee = strdup("malformed audio buffer")
            return -1
        }
        let b = buffer.pointee
        let processor = Unmanaged<ExportedAudioInstance>.fromOpaque(instance).takeUnretainedValue().processor
        let block = AudioBlock(
            format: format, rate: Int(b.rate), channels: Int(b.channels), base: data,
            byteCount: Int(b.frames) * Int(b.channels) * format.bytesPerSample, pts: b.pts == UInt64.max ? nil : b.pts,
            blockNumber: 0, sampleOffset: b.sample_offset)
        let context = SluicePluginExport.exportContext(emit, emitContext)
        do {
            switch try processor.process(block, context: context) {
            case .keep: return 0
            case .drop: return 1
            }
        } catch {
            errorOut?.pointee = strdup("\(error)")
            return -1
        }
    }
