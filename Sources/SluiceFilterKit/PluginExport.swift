import CSluicePluginABI
import Foundation
import Synchronization

/// Builds the C table a dynamic plugin library exports, from `FrameFilter` types.
///
/// In the plugin package:
/// ```swift
/// @_cdecl("sluice_plugin_v1")
/// public func sluicePluginV1() -> UnsafeRawPointer {
///     SluicePluginExport.table(name: "example", filters: [Sepia.self, Vignette.self])
/// }
/// ```
public enum SluicePluginExport {
    /// The ABI version this SluiceFilterKit speaks.
    public static let abiVersion = UInt32(SLUICE_PLUGIN_ABI_VERSION)

    /// The tables built so far, by ABI version and plugin name, as addresses: a plugin's
    /// entry point may be called again (each load of the library asks), and each table is
    /// built once and then handed out again, never freed.
    private static let built = Mutex<[String: UInt]>([:])

    /// The table cached under `key`, or the one `make` builds, cached.
    static func once(_ key: String, _ make: () -> UnsafeRawPointer) -> UnsafeRawPointer {
        built.withLock { tables in
            if let address = tables[key], let table = UnsafeRawPointer(bitPattern: address) { return table }
            let table = make()
            tables[key] = UInt(bitPattern: table)
            return table
        }
    }

    /// A filter context whose events go to the C interface's `emit` with `emitContext`, their
    /// fields as a JSON object (what every exported filter kind hands its filter).
    static func exportContext(_ emit: SluiceEmitV1?, _ emitContext: UnsafeMutableRawPointer?) -> FilterContext {
        let contextPointer = emitContext.map { UInt(bitPattern: $0) }
        return FilterContext { event, fields in
            guard let emit, let contextPointer else { return }
            let json = (try? JSONEncoder().encode(fields)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            emit(UnsafeMutableRawPointer(bitPattern: contextPointer), event, json)
        }
    }

    /// The settings the C interface's `create` was given, a JSON object (none: `{}`).
    static func exportSettings(_ json: UnsafePointer<CChar>?) throws -> [String: FilterValue] {
        try JSONDecoder().decode([String: FilterValue].self, from: Data((json.map { String(cString: $0) } ?? "{}").utf8))
    }

    /// The plugin table for `filters` (built once per plugin name, on the first call; the
    /// memory lives for the process).
    public static func table(name: String, filters: [any FrameFilter.Type]) -> UnsafeRawPointer {
        once("v1:" + name) { buildTable(name: name, filters: filters) }
    }

    private static func buildTable(name: String, filters: [any FrameFilter.Type]) -> UnsafeRawPointer {
        let descriptors = UnsafeMutablePointer<SluiceFilterV1>.allocate(capacity: max(1, filters.count))
        for (i, type) in filters.enumerated() {
            let params = (try? JSONEncoder().encode(type.parameters)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
            descriptors[i] = SluiceFilterV1(
                name: strdup(type.name), summary: strdup(type.summary),
                formats: strdup(type.formats.map(\.rawValue).joined(separator: ",")),
                parameters_json: strdup(params), modifies_pixels: type.modifiesPixels ? 1 : 0,
                type_context: UnsafeRawPointer(Unmanaged.passRetained(ExportedType(type)).toOpaque()),
                create: exportCreate, destroy: exportDestroy, process: exportProcess, free_string: exportFree)
        }
        let table = UnsafeMutablePointer<SluicePluginV1>.allocate(capacity: 1)
        table.initialize(
            to: SluicePluginV1(
                abi_version: SLUICE_PLUGIN_ABI_VERSION, filter_count: UInt32(filters.count),
                filters: descriptors, plugin_name: strdup(name)))
        return UnsafeRawPointer(table)
    }
}

/// A filter type and its parameters, behind the C `type_context`.
private final class ExportedType {
    let make: (FilterConfiguration) throws -> any FrameProcessor
    let parameters: [FilterParameter]
    init(_ type: any FrameFilter.Type) {
        parameters = type.parameters
        make = { try type.init(configuration: $0) }
    }
}

private final class ExportedInstance {
    let processor: any FrameProcessor
    init(_ p: any FrameProcessor) { processor = p }
}

private func setError(_ error: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ text: String) {
    error?.pointee = strdup(text)
}

private let exportCreate:
    @convention(c) (UnsafeRawPointer?, UnsafePointer<CChar>?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> UnsafeMutableRawPointer? = {
        context, json, errorOut in
        guard let context else { setError(errorOut, "no type context"); return nil }
        let type = Unmanaged<ExportedType>.fromOpaque(context).takeUnretainedValue()
        do {
            let given = try SluicePluginExport.exportSettings(json)
            let config = try FilterConfiguration(given, parameters: type.parameters)
            return Unmanaged.passRetained(ExportedInstance(try type.make(config))).toOpaque()
        } catch {
            setError(errorOut, "\(error)")
            return nil
        }
    }

private let exportDestroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { instance in
    guard let instance else { return }
    Unmanaged<ExportedInstance>.fromOpaque(instance).release()
}

private let exportProcess:
    @convention(c) (
        UnsafeMutableRawPointer?, UnsafeMutablePointer<SluiceFrameV1>?, SluiceEmitV1?, UnsafeMutableRawPointer?,
        UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    ) -> Int32 = { instance, frame, emit, emitContext, errorOut in
        guard let instance, let frame else { return -1 }
        let processor = Unmanaged<ExportedInstance>.fromOpaque(instance).takeUnretainedValue().processor
        guard let view = FrameABI.frame(from: frame) else { setError(errorOut, "unsupported frame format"); return -1 }
        let context = SluicePluginExport.exportContext(emit, emitContext)
        do {
            switch try processor.process(view, context: context) {
            case .keep: return 0
            case .drop: return 1
            }
        } catch {
            setError(errorOut, "\(error)")
            return -1
        }
    }

private let exportFree: @convention(c) (UnsafeMutablePointer<CChar>?) -> Void = { text in free(text) }

/// Conversions between `Frame` and the C frame of the plugin ABI.
public enum FrameABI {
    /// The C ABI's code (`SLUICE_FORMAT_*`) for format `f`.
    public static func formatCode(_ f: PixelFormat) -> UInt32 {
        switch f {
        case .i420: UInt32(SLUICE_FORMAT_I420)
        case .nv12: UInt32(SLUICE_FORMAT_NV12)
        case .rgba: UInt32(SLUICE_FORMAT_RGBA)
        case .bgrx: UInt32(SLUICE_FORMAT_BGRX)
        }
    }

    /// The format of a C ABI code, or nil for a code this version does not know.
    public static func format(code: UInt32) -> PixelFormat? {
        switch Int(code) {
        case Int(SLUICE_FORMAT_I420): .i420
        case Int(SLUICE_FORMAT_NV12): .nv12
        case Int(SLUICE_FORMAT_RGBA): .rgba
        case Int(SLUICE_FORMAT_BGRX): .bgrx
        default: nil
        }
    }

    /// A `Frame` view of a C frame, or nil if it is malformed.
    public static func frame(from c: UnsafeMutablePointer<SluiceFrameV1>) -> Frame? {
        let f = c.pointee
        guard let format = format(code: f.format), f.width > 0, f.height > 0,
            Int(f.n_planes) == format.planeCount
        else { return nil }
        let width = Int(f.width), height = Int(f.height)
        let data = [f.data.0, f.data.1, f.data.2], strides = [f.stride.0, f.stride.1, f.stride.2]
        var planes: [Plane?] = [nil, nil, nil]
        for i in 0..<format.planeCount {
            guard let base = data[i], strides[i] > 0 else { return nil }
            let (w, h) = format.planeSize(i, width: width, height: height)
            planes[i] = Plane(base: base, stride: Int(strides[i]), width: w, height: h)
        }
        guard let p0 = planes[0] else { return nil }
        return Frame(
            format: format, width: width, height: height, planes: (p0, planes[1], planes[2]),
            pts: f.pts == UInt64.max ? nil : f.pts, duration: f.duration == UInt64.max ? nil : f.duration,
            frameNumber: f.frame_number)
    }

    /// The C frame describing `frame` (pointers into the same memory).
    public static func cFrame(_ frame: borrowing Frame) -> SluiceFrameV1 {
        let n = frame.planeCount
        func base(_ i: Int) -> UnsafeMutablePointer<UInt8>? { i < n ? frame.plane(i).base : nil }
        func stride(_ i: Int) -> Int32 { i < n ? Int32(clamping: frame.plane(i).stride) : 0 }
        return SluiceFrameV1(
            format: formatCode(frame.format), width: Int32(clamping: frame.width),
            height: Int32(clamping: frame.height), n_planes: UInt32(n),
            data: (base(0), base(1), base(2)), stride: (stride(0), stride(1), stride(2)),
            pts: frame.pts ?? UInt64.max, duration: frame.duration ?? UInt64.max,
            frame_number: frame.frameNumber)
    }
}
