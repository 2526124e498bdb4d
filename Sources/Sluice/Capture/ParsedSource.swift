import GStreamer

/// One network source element per URL in a run (`srtsrc`, `rtmp2src`, `urisourcebin`),
/// shared by the branches that read it. What it sends (MPEG-TS, FLV, an HLS fragment) is
/// split by `parsebin` into parsed elementary streams, which go where `router` sends them:
/// still encoded to a passthrough branch, or to a branch's decoder.
final class ParsedSource: Sendable {
    /// The source element (in the pipeline).
    let element: Element
    /// Where its streams go.
    let router: StreamRouter
    private let pipeline: Pipeline

    /// Adds `element` to `pipeline` and splits each of its outputs with a parsebin.
    init(element: Element, label: String, pipeline: Pipeline, at location: SourceLocation?) throws(RunError) {
        self.element = element
        self.pipeline = pipeline
        router = StreamRouter(label: label, pipeline: pipeline)
        do { try pipeline.add(element) } catch { throw RunError("cannot add \(label)'s source: \(error.message)", at: location) }
        if let output = element.staticPad("src") {
            try parse(output, at: location)
        } else {
            element.connect("pad-added") { [weak self] (args: borrowing SignalArguments) in
                guard let self, let pad = args.object(1, as: Pad.self) else { return }
                try? self.parse(pad, at: nil)
            }
        }
    }

    /// The label for messages: the URL without its password.
    var label: String { router.label }

    /// `output` → a new parsebin, whose streams go to the router as they appear.
    private func parse(_ output: Pad, at location: SourceLocation?) throws(RunError) {
        let parser: Element
        do {
            parser = try Element.make("parsebin")
            try pipeline.add(parser)
        } catch {
            throw RunError(KnownElements.missingHint(for: "parsebin") + " (\(error.message))", at: location)
        }
        parser.connect("pad-added") { [router] (args: borrowing SignalArguments) in
            guard let pad = args.object(1, as: Pad.self) else { return }
            router.place(pad, carrying: Self.stream(on: pad))
        }
        _ = parser.syncStateWithParent()
        guard let input = parser.staticPad("sink") else { throw RunError("parsebin has no sink pad", at: location) }
        do { try output.link(input) } catch { throw RunError("cannot parse \(label): \(error.message)", at: location) }
    }

    /// What a parsed pad carries (`video/x-h264`, `audio/mpeg, mpegversion=4`).
    static func stream(on pad: Pad) -> StreamRouter.Stream {
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
