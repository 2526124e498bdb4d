import CGStreamer
import CGStreamerShim

/// One buffer of interleaved raw audio mapped by GStreamer; valid only during the call that
/// hands it out. Writable unless the element was registered analysis-only.
public struct AudioSamplesRef: ~Copyable {
    /// The first byte of the mapped samples.
    public let data: UnsafeMutableRawPointer
    /// The number of mapped bytes (frames × channels × bytes per sample).
    public let byteCount: Int
    /// The buffer's presentation timestamp in nanoseconds (`GST_BUFFER_PTS`), nil if unset.
    public let pts: ClockTime?
}

/// The negotiated format of an audio filter (GstAudioFilter's `setup`).
public struct AudioFormatInfo: Sendable, Equatable {
    /// GStreamer's name of the sample format (`S16LE`, `F32LE`, …).
    public var formatName: String
    /// Samples per second per channel.
    public var rate: Int
    /// Interleaved channels.
    public var channels: Int
    /// A format from its parts.
    public init(formatName: String, rate: Int, channels: Int) {
        self.formatName = formatName; self.rate = rate; self.channels = channels
    }
}

/// The Swift state of one audio filter element instance. GStreamer calls `process` on a
/// streaming thread, one buffer at a time; properties may be set from any thread.
public protocol AudioFilterState: AnyObject {
    /// The negotiated format, before the first buffer and again when caps change; return false
    /// to refuse it, which fails negotiation.
    func setup(_ format: AudioFormatInfo) -> Bool
    /// Handles buffer `number` (counted from 0 per element) in place (GstBaseTransform's
    /// `transform_ip`); `samples` is valid only during the call.
    func process(_ samples: borrowing AudioSamplesRef, number: UInt64) -> VideoFilterResult
    /// Sets property `index` (its position in the `properties` passed to `registerAudioFilter`).
    func setProperty(_ index: Int, _ value: borrowing PropertySlot)
    /// Fills `value` with property `index`.
    func getProperty(_ index: Int, _ value: borrowing PropertySlot)
}

extension SwiftElements {
    /// Registers in-place audio filter factory `factory` (a GstAudioFilter subclass). `caps`
    /// lists what it accepts, e.g. `audio/x-raw, format=(string){ S16LE, F32LE },
    /// layout=(string)interleaved`. Returns false if the name is taken.
    @discardableResult
    public static func registerAudioFilter(
        factory: String, longname: String, description: String, caps: String,
        analysisOnly: Bool, properties: [PropertySpec],
        make: @escaping @Sendable (ElementHandle) -> any AudioFilterState
    ) -> Bool {
        Gst.initialize()
        guard !Registry.hasElement(factory) else { return false }
        let data = UnsafeMutablePointer<SluiceAudioFilterClassData>.allocate(capacity: 1) // lives for the process
        let specs = UnsafeMutablePointer<UnsafeMutablePointer<GParamSpec>?>.allocate(capacity: max(1, properties.count))
        for (i, p) in properties.enumerated() { specs[i] = p.make() }
        let context = Unmanaged.passRetained(AudioFilterRegistration(make)).toOpaque()
        data.initialize(
            to: SluiceAudioFilterClassData(
                vtable: SluiceAudioFilterVTable(
                    create: audioCreate, destroy: audioDestroy, setup: audioSetup, process: audioProcess,
                    set_property: audioSetProperty, get_property: audioGetProperty),
                context: context, longname: strdup(longname), description: strdup(description), caps: strdup(caps),
                analysis_only: analysisOnly ? 1 : 0, n_properties: guint(properties.count), properties: specs))
        return sluice_audio_filter_register(typeName(factory), factory, data) != 0
    }
}

// MARK: - Trampolines

private final class AudioFilterRegistration {
    let make: @Sendable (ElementHandle) -> any AudioFilterState
    init(_ make: @escaping @Sendable (ElementHandle) -> any AudioFilterState) { self.make = make }
}

/// Holds a state behind a concrete class so the per-buffer path needs no dynamic cast.
private final class AudioStateBox {
    let state: any AudioFilterState
    init(_ s: any AudioFilterState) { state = s }
}

private func audioBox(_ p: gpointer?) -> AudioStateBox? {
    p.map { Unmanaged<AudioStateBox>.fromOpaque($0).takeUnretainedValue() }
}

private let audioCreate: @convention(c) (gpointer?, gpointer?) -> gpointer? = { context, element in
    guard let context, let element else { return nil }
    let reg = Unmanaged<AudioFilterRegistration>.fromOpaque(context).takeUnretainedValue()
    return Unmanaged.passRetained(AudioStateBox(reg.make(ElementHandle(pointer: element)))).toOpaque()
}

private let audioDestroy: @convention(c) (gpointer?) -> Void = { state in
    guard let state else { return }
    Unmanaged<AudioStateBox>.fromOpaque(state).release()
}

private let audioSetup: @convention(c) (gpointer?, UnsafePointer<GstAudioInfo>?) -> gboolean = { state, info in
    guard let box = audioBox(state), let format = audioFormat(info) else { return 0 }
    return box.state.setup(format) ? 1 : 0
}

private let audioProcess: @convention(c) (gpointer?, UnsafeMutablePointer<guint8>?, gsize, GstClockTime, guint64) -> gint = {
    state, data, size, pts, number in
    guard let box = audioBox(state), let data else { return size == 0 ? 0 : -1 }
    let samples = AudioSamplesRef(data: UnsafeMutableRawPointer(data), byteCount: Int(size), pts: pts == ClockTime.none ? nil : pts)
    switch box.state.process(samples, number: UInt64(number)) {
    case .keep: return 0
    case .drop: return 1
    case .error: return -1
    }
}

private let audioSetProperty: @convention(c) (gpointer?, guint, UnsafePointer<GValue>?) -> Void = { state, index, value in
    guard let box = audioBox(state), let value else { return }
    box.state.setProperty(Int(index), PropertySlot(raw: UnsafeMutablePointer(mutating: value)))
}

private let audioGetProperty: @convention(c) (gpointer?, guint, UnsafeMutablePointer<GValue>?) -> Void = { state, index, value in
    guard let box = audioBox(state), let value else { return }
    box.state.getProperty(Int(index), PropertySlot(raw: value))
}

/// The Swift state of one audio source element instance; `fill` writes each buffer.
public protocol AudioSourceState: AnyObject {
    /// The negotiated format, which the source then fills every buffer in; return false to
    /// refuse it, which fails negotiation.
    func setup(_ format: AudioFormatInfo) -> Bool
    /// Writes `samples` (interleaved, whole frames), the first at `sampleOffset` samples per
    /// channel since the start; returns false to end the stream.
    func fill(_ samples: borrowing AudioSamplesRef, sampleOffset: UInt64) -> Bool
}

extension SwiftElements {
    /// Registers live audio source factory `factory` (properties `rate`, `channels`,
    /// `format`, `samples-per-buffer`; paced by the pipeline clock). Returns false if the
    /// name is taken.
    @discardableResult
    public static func registerAudioSource(
        factory: String, longname: String, description: String, caps: String,
        make: @escaping @Sendable (ElementHandle) -> any AudioSourceState
    ) -> Bool {
        Gst.initialize()
        guard !Registry.hasElement(factory) else { return false }
        let data = UnsafeMutablePointer<SluiceAudioSourceClassData>.allocate(capacity: 1) // lives for the process
        let context = Unmanaged.passRetained(AudioSourceRegistration(make)).toOpaque()
        data.initialize(
            to: SluiceAudioSourceClassData(
                vtable: SluiceAudioSourceVTable(
                    create: audioSourceCreate, destroy: audioSourceDestroy, setup: audioSourceSetup, fill: audioSourceFill),
                context: context, longname: strdup(longname), description: strdup(description), caps: strdup(caps)))
        return sluice_audio_source_register(typeName(factory), factory, data) != 0
    }
}

private final class AudioSourceRegistration {
    let make: @Sendable (ElementHandle) -> any AudioSourceState
    init(_ make: @escaping @Sendable (ElementHandle) -> any AudioSourceState) { self.make = make }
}

private final class AudioSourceBox {
    let state: any AudioSourceState
    init(_ s: any AudioSourceState) { state = s }
}

private func audioSourceBox(_ p: gpointer?) -> AudioSourceBox? {
    p.map { Unmanaged<AudioSourceBox>.fromOpaque($0).takeUnretainedValue() }
}

private func audioFormat(_ info: UnsafePointer<GstAudioInfo>?) -> AudioFormatInfo? {
    guard let info, let finfo = info.pointee.finfo else { return nil }
    return AudioFormatInfo(
        formatName: String(cString: gst_audio_format_to_string(finfo.pointee.format)),
        rate: Int(info.pointee.rate), channels: Int(info.pointee.channels))
}

private let audioSourceCreate: @convention(c) (gpointer?, gpointer?) -> gpointer? = { context, element in
    guard let context, let element else { return nil }
    let reg = Unmanaged<AudioSourceRegistration>.fromOpaque(context).takeUnretainedValue()
    return Unmanaged.passRetained(AudioSourceBox(reg.make(ElementHandle(pointer: element)))).toOpaque()
}

private let audioSourceDestroy: @convention(c) (gpointer?) -> Void = { state in
    guard let state else { return }
    Unmanaged<AudioSourceBox>.fromOpaque(state).release()
}

private let audioSourceSetup: @convention(c) (gpointer?, UnsafePointer<GstAudioInfo>?) -> gboolean = { state, info in
    guard let box = audioSourceBox(state), let format = audioFormat(info) else { return 0 }
    return box.state.setup(format) ? 1 : 0
}

private let audioSourceFill: @convention(c) (gpointer?, UnsafeMutablePointer<guint8>?, gsize, guint64) -> gboolean = {
    state, data, size, offset in
    guard let box = audioSourceBox(state), let data else { return 0 }
    return box.state.fill(AudioSamplesRef(data: UnsafeMutableRawPointer(data), byteCount: Int(size), pts: nil), sampleOffset: UInt64(offset)) ? 1 : 0
}
