import Foundation
import GStreamer

extension SinkSpec.Kind {
    /// Encode and mux to `path`; the container follows the extension (.webm, .mkv, .mp4).
    public static func file(path: String, container: Container, encode: EncodeSpec?) -> SinkSpec.Kind {
        SinkSpec.Kind(name: "file", settings: FileSink.Settings(path: path, container: container, encode: encode))
    }
}

/// `sink: {kind: file, path: out.webm}`: encoded and recorded. Video and audio recorded to the
/// same path share one muxer, made before media flows; in a room, `{publisher}` in the path
/// gives each publisher's stream a file of its own.
package struct FileSink: Sink {
    package let name = "file"
    package let keys = ["path", "encode"]
    package let needsKeys: String? = "a file sink needs a path; write `sink: {kind: file, path: out.webm}`"

    package struct Settings: KindSettings, Equatable {
        package var path: String
        package var container: Container
        /// The recording's encoder (nil: the container's default codec).
        package var encode: EncodeSpec?
        package var positionFree: any KindSettings { Settings(path: path, container: container, encode: encode?.positionFree) }

        /// The encoder settings used for `media`.
        package func encoder(for media: MediaKind, at location: SourceLocation?) -> EncodeSpec {
            encode ?? EncodeSpec(codec: container.defaultCodec(for: media), bitrateKbps: media == .video ? 2000 : 64, location: location)
        }
    }

    package func decode(_ map: [SpecEntry], media: MediaKind, at location: SourceLocation, with decoder: inout SpecDecoder) -> SinkSpec.Kind? {
        guard let pathEntry = map.entry("path") else {
            decoder.fail("a file sink needs 'path', e.g. `path: out.webm`", at: location)
            return nil
        }
        guard let path = decoder.nonEmptyText(pathEntry) else { return nil }
        let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
        guard let container = Container(rawValue: ext) else {
            decoder.fail("file sink '\(path)' has an unsupported container; use a .webm, .mkv or .mp4 extension", at: pathEntry.value.location)
            return nil
        }
        var encode: EncodeSpec?
        if let encodeEntry = map.entry("encode") {
            let (spec, codecLocation) = decoder.decodeEncode(
                encodeEntry, media: media, branch: "receive.\(media)",
                defaultCodec: container.defaultCodec(for: media))
            if !container.codecs.contains(spec.codec) {
                let fitting = Codec.allCases.filter { container.codecs.contains($0) && $0.media == media }
                decoder.fail(
                    "\(container.rawValue) cannot hold \(spec.codec.rawValue); use \(SpecDecoder.orList(fitting.map(\.rawValue))), or another container",
                    at: codecLocation ?? encodeEntry.keyLocation)
            }
            encode = spec
        }
        return .file(path: path, container: container, encode: encode)
    }

    package func requiredElements(_ sink: SinkSpec, media: MediaKind) -> [String] {
        guard let s = sink.kind.settings(as: Settings.self) else { return [] }
        let enc = s.encoder(for: media, at: nil)
        var out: [String] = []
        if enc.gst == nil { out.append(enc.element ?? DefaultElements.encoder(for: enc.codec)) }
        if let p = DefaultElements.parser(for: enc.codec) { out.append(p) }
        return out + [DefaultElements.muxer(for: s.container), "filesink"]
    }

    package func build(_ sink: SinkSpec, media: MediaKind, with b: GraphBuilder) throws(RunError) -> GraphBuilder.SinkStage {
        guard let s = sink.kind.settings(as: Settings.self) else { throw RunError("a file sink needs 'path'", at: sink.location) }
        let chain = try encoding(s, media: media, fps: b.spec.send?.video?.capture.fps ?? 30, at: sink.location, with: b)
        // One muxer per output path (`prepare`): video and audio recorded to the same file
        // share it, each through its reserved pad.
        guard let recording = b.state.withLock({ $0.recordings[s.path] }), let pad = recording.reserved[media] else {
            throw RunError("no muxer was prepared for \(s.path)", at: sink.location)
        }
        return GraphBuilder.SinkStage(owned: chain, muxPad: pad, final: recording.fileSink)
    }

    /// Creates the muxer and file sink of every recording, with one muxer pad reserved per
    /// medium that writes to it. This runs before any data flows: a muxer that gets audio
    /// before its video pad exists writes its headers without the video stream.
    package func prepare(_ branches: [ReceiveBranchSpec], with b: GraphBuilder) throws(RunError) {
        var byPath: [String: (container: Container, media: [MediaKind], location: SourceLocation?)] = [:]
        for branch in branches {
            guard let s = branch.sink.kind.settings(as: Settings.self) else { continue }
            // A room's recordings are one file per publisher stream, made as each arrives.
            if s.path.contains(GraphBuilder.publisherPlaceholder) { continue }
            // Prepared once, whichever transport asks first.
            if b.state.withLock({ $0.recordings[s.path] != nil }) { continue }
            byPath[s.path, default: (s.container, [], branch.sink.location)].media.append(branch.media)
        }
        for (path, recording) in byPath.sorted(by: { $0.key < $1.key }) {
            let (mux, fileSink) = try muxer(recording.container, path: path, at: recording.location, with: b)
            try b.add([mux, fileSink])
            try mux.link(fileSinkOrThrow: fileSink)
            var reserved: [MediaKind: Pad] = [:]
            for m in recording.media {
                guard let pad = mux.requestPad(m == .video ? "video_%u" : "audio_%u") else {
                    throw RunError(
                        "\(DefaultElements.muxer(for: recording.container)) refused a \(m.rawValue) stream for \(path)",
                        at: recording.location)
                }
                reserved[m] = pad
            }
            b.state.withLock { $0.recordings[path] = Recording(fileSink: fileSink, reserved: reserved) }
        }
    }

    /// A room publisher's stream: a file of its own, `{publisher}` in the path replaced.
    package func roomStage(_ sink: SinkSpec, media: MediaKind, publisher: String, with b: GraphBuilder) throws(RunError) -> [Element]? {
        guard let s = sink.kind.settings(as: Settings.self) else { return nil }
        let path = s.path.replacingOccurrences(of: GraphBuilder.publisherPlaceholder, with: GraphBuilder.fileSafe(publisher))
        let (mux, fileSink) = try muxer(s.container, path: path, at: sink.location, with: b)
        return try encoding(s, media: media, fps: 30, at: sink.location, with: b) + [mux, fileSink]
    }

    /// queue (→ audioresample) → encoder → parser.
    private func encoding(
        _ s: Settings, media: MediaKind, fps: Int, at location: SourceLocation?,
        with b: GraphBuilder
    ) throws(RunError) -> [Element] {
        var chain: [Element] = [try b.make("queue", at: location)]
        if media == .audio { chain.append(try b.make("audioresample", at: location)) }
        return chain + (try b.encoderChain(s.encoder(for: media, at: location), fps: fps))
    }

    /// The container's muxer and the file sink writing `path`.
    private func muxer(
        _ container: Container, path: String, at location: SourceLocation?,
        with b: GraphBuilder
    ) throws(RunError) -> (Element, Element) {
        var props: [(String, String)] = []
        if container == .mkv || container == .webm { props.append(("streamable", "false")) }
        return (
            try b.make(DefaultElements.muxer(for: container), props, at: location),
            try b.make("filesink", [("location", path), ("async", "false")], at: location)
        )
    }
}
