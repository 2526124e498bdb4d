import CSluicePluginABI
import Foundation

extension SluicePluginExport {
    /// Version-2 descriptors of encoded-frame filter `types`, for `tableV2` (the memory lives
    /// for the process). Each goes through the C interface as a C plugin's would: its settings
    /// as JSON, each frame as a `SluiceEncodedFrameV2`, a replacement written through the
    /// output's `reserve`, events through `emit`.
    static func encodedDescriptors(_ types: [any EncodedFrameFilter.Type]) -> UnsafeMutablePointer<SluiceEncodedFilterV2>? {
        guard !types.isEmpty else { return nil }
        let table = UnsafeMutablePointer<SluiceEncodedFilterV2>.allocate(capacity: types.count)
        for (i, type) in types.enumerated() {
            let params = (try? JSONEncoder().encode(type.parameters)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
            table[i] = SluiceEncodedFilterV2(
                struct_size: UInt32(MemoryLayout<SluiceEncodedFilterV2>.size), name: strdup(type.name), summary: strdup(type.summary),
                codecs: strdup(type.codecs.map { $0.rawValue.uppercased() }.joined(separator: ",")), parameters_json: strdup(params),
                type_context: UnsafeRawPointer(Unmanaged.passRetained(ExportedEncodedType(type)).toOpaque()),
                create: exportEncodedCreate, destroy: exportEncodedDestroy, process: exportEncodedProcess, free_string: { free($0) })
        }
        return table
    }
}

/// An encoded-frame filter type and its parameters, behind the C `type_context`.
private final class ExportedEncodedType {
    let make: (FilterConfiguration) throws -> any EncodedFrameProcessor
    let parameters: [FilterParameter]
    init(_ type: any EncodedFrameFilter.Type) {
        parameters = type.parameters
        make = { configuration in
            if let problem = type.problems(configuration).first { throw ExportedSettingsProblem(problem: problem) }
            return try type.init(configuration: configuration)
        }
    }
}

/// A configuration the type's `problems` refuses, said as the C interface's error text.
private struct ExportedSettingsProblem: Error, CustomStringConvertible {
    let problem: FilterSettingProblem
    var description: String { "\(problem.setting): \(problem.message)" }
}

private final class ExportedEncodedInstance {
    let processor: any EncodedFrameProcessor
    var frames: UInt64 = 0
    init(_ p: any EncodedFrameProcessor) { processor = p }
}

private let exportEncodedCreate:
    @convention(c) (UnsafeRawPointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> UnsafeMutableRawPointer? = {
        context, json, errorOut in
        guard let context else { errorOut?.pointee = strdup("no type context"); return nil }
        let type = Unmanaged<ExportedEncodedType>.fromOpaque(context).takeUnretainedValue()
        do {
            let given = try SluicePluginExport.exportSettings(json)
            let processor = try type.make(FilterConfiguration(given, parameters: type.parameters))
            return Unmanaged.passRetained(ExportedEncodedInstance(processor)).toOpaque()
        } catch {
            errorOut?.pointee = strdup("\(error)")
            return nil
        }
    }

private let exportEncodedDestroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { instance in
    guard let instance else { return }
    Unmanaged<ExportedEncodedInstance>.fromOpaque(instance).release()
}

/// The codec a `SLUICE_CODEC_*` value names.
private func encodedCodec(_ value: UInt32) -> EncodedCodec? {
    switch value {
    case UInt32(SLUICE_CODEC_VP8): .vp8
    case UInt32(SLUICE_CODEC_VP9): .vp9
    case UInt32(SLUICE_CODEC_H264): .h264
    case UInt32(SLUICE_CODEC_OPUS): .opus
    default: nil
    }
}

private let exportEncodedProcess:
    @convention(c) (
        UnsafeMutableRawPointer?, UnsafePointer<SluiceEncodedFrameV2>?, UnsafePointer<SluiceEncodedOutputV2>?, SluiceEmitV1?,
        UnsafeMutableRawPointer?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    ) -> Int32 = { instance, frame, output, emit, emitContext, errorOut in
        guard let instance, let f = frame?.pointee, let codec = encodedCodec(f.codec), f.data != nil || f.size == 0 else {
            errorOut?.pointee = strdup("malformed encoded frame")
            return -1
        }
        let state = Unmanaged<ExportedEncodedInstance>.fromOpaque(instance).takeUnretainedValue()
        defer { state.frames += 1 }
        let encoded = EncodedFrame(
            codec: codec, direction: f.flags & 2 != 0 ? .send : .receive, isKeyframe: f.flags & 1 != 0,
            pts: f.pts == UInt64.max ? nil : f.pts, dts: f.dts == UInt64.max ? nil : f.dts,
            bytes: UnsafeRawBufferPointer(start: f.data, count: f.size), number: state.frames)
        let context = SluicePluginExport.exportContext(emit, emitContext)
        do {
            switch try state.processor.process(encoded, context: context) {
            case .keep: return 0
            case .drop: return 1
            case .replace(let bytes):
                guard let output, let reserve = output.pointee.reserve,
                    let out = reserve(output.pointee.context, bytes.count) ?? (bytes.isEmpty ? UnsafeMutablePointer<UInt8>(bitPattern: 1) : nil)
                else {
                    errorOut?.pointee = strdup("Sluice gave no room for a replacement of \(bytes.count) bytes")
                    return -1
                }
                bytes.withUnsafeBufferPointer { if let base = $0.baseAddress { out.update(from: base, count: bytes.count) } }
                return 2
            }
        } catch {
            errorOut?.pointee = strdup("\(error)")
            return -1
        }
    }
