import GStreamer
import Synchronization

/// One network source element per URL in a run (`srtsrc`, `rtmp2src`, `urisourcebin`),
/// shared by the branches that read it. What it sends (MPEG-TS, FLV, an HLS fragment) is
/// split by `parsebin` into parsed elementary streams, which go where `router` sends them:
/// still encoded to a passthrough branch, or to a branch's decoder. A reconnect (`restart`)
/// replaces the source element and its parsebins; the routes stay.
package final class ParsedSource: RestartableSource {
    /// Where its streams go.
    package let router: StreamRouter
    /// The source element's name; its parsebins are `<name>-parse-<n>`.
    package let elementName: String
    private let pipeline: Pipeline
    private let make: @Sendable () throws(RunError) -> Element
    private struct Elements {
        var source: Element?
        var parsers: [Element] = []
    }
    private let elements = Mutex(Elements())

    /// Adds the element `make` makes (named `name`) to `pipeline`, and splits each of its
    /// outputs with a parsebin.
    package init(
        name: String, label: String, pipeline: Pipeline, at location: SourceLocation?,
        make: @escaping @Sendable () throws(RunError) -> Element
    ) throws(RunError) {
        elementName = name
        self.pipeline = pipeline
        self.make = make
        router = StreamRouter(label: label, pipeline: pipeline)
        try start(at: location)
    }

    /// The label for messages: the URL without its password.
    package var label: String { router.label }

    package func restart() throws(RunError) {
        let old = elements.withLock { e in
            defer { e = Elements() }; return e
        }
        for element in [old.source].compactMap({ $0 }) + old.parsers {
            _ = element.setState(.null)
            try? pipeline.remove(element)
        }
        try start(at: nil)
    }

    /// Makes the source element, adds it, and brings it to the pipeline's state.
    private func start(at location: SourceLocation?) throws(RunError) {
        let element = try make()
        do { try pipeline.add(element) } catch { throw RunError("cannot add \(label)'s source: \(error.message)", at: location) }
        elements.withLock { $0.source = element }
        if let output = element.staticPad("src") {
            try parse(output, at: location)
        } else {
            element.connect("pad-added") { [weak self] (args: borrowing SignalArguments) in
                guard let self, let pad = args.object(1, as: Pad.self) else { return }
                try? self.parse(pad, at: nil)
            }
        }
        _ = element.syncStateWithParent()
    }

    /// `output` → a new parsebin, whose streams go to the router as they appear.
    private func parse(_ output: Pad, at location: SourceLocation?) throws(RunError) {
        let parser: Element
        do {
            let count = elements.withLock { $0.parsers.count }
            parser = try Element.make("parsebin", name: "\(elementName)-parse-\(count)")
            try pipeline.add(parser)
        } catch {
            throw RunError(KnownElements.missingHint(for: "parsebin") + " (\(error.message))", at: location)
        }
        elements.withLock { $0.parsers.append(parser) }
        parser.connect("pad-added") { [weak router] (args: borrowing SignalArguments) in
            // Weak: the router holds the pipeline, which holds this element and its handler.
            guard let router, let pad = args.object(1, as: Pad.self) else { return }
            router.place(pad, carrying: Self.stream(on: pad))
        }
        _ = parser.syncStateWithParent()
        guard let input = parser.staticPad("sink") else { throw RunError("parsebin has no sink pad", at: location) }
        do { try output.link(input) } catch { throw RunError("cannot parse \(label): \(error.message)", at: location) }
    }

    /// What a parsed pad carries (`video/x-h264`, `audio/mpeg, mpegversion=4`).
    package static func stream(on pad: Pad) -> StreamRouter.Stream {
        let fields = (pad.currentCaps ?? pad.queryCaps())?.structure(at: 0)
        let name = fields?.name ?? "?"
        let media: MediaKind? = name.hasPrefix("video/") ? .video : name.hasPrefix("audio/") ? .audio : nil
        let codec = Codec.allCases.first { "\(media?.rawValue ?? "")/x-\($0.rawValue)" == name }
        return StreamRouter.Stream(media: media, encoding: encoding(of: name, version: fields?.get("mpegversion", as: Int.self)), codec: codec)
    }

    /// The codec's usual name for caps `name` (`H264`, `AAC`), or the caps name itself.
    private static func encoding(of name: String, version: Int?) -> String {
        if name == "audio/mpeg" { return version == 1 ? "MP3" : "AAC" }
        guard let slash = name.firstIndex(of: "/") else { return name }
        let tail = name[name.index(after: slash)...]
        return tail.hasPrefix("x-") ? tail.dropFirst(2).uppercased() : name
    }
}
