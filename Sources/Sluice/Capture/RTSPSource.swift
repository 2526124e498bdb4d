import GStreamer

/// One `rtspsrc` per camera in a run, shared by its video and audio branches: one RTSP
/// session, whose RTP streams appear as pads and go where `router` sends them.
final class RTSPSource: Sendable {
    /// The `rtspsrc` element (in the pipeline).
    let element: Element
    /// Where its streams go.
    let router: StreamRouter

    init(settings: RTSPCapture.Settings, name: String, pipeline: Pipeline, at location: SourceLocation?) throws(RunError) {
        router = StreamRouter(label: SourceURL.redacted(settings.url), pipeline: pipeline)
        do {
            element = try Element.make("rtspsrc", name: name)
            try element.set("location", settings.url)
            try element.set("latency", fromString: "\(settings.latencyMs)")
            if let protocols = settings.lowerTransport.protocols { try element.set("protocols", fromString: protocols) }
            try pipeline.add(element)
        } catch {
            throw RunError(KnownElements.missingHint(for: "rtspsrc") + " (\(error.message))", at: location)
        }
        element.connect("pad-added") { [router] (args: borrowing SignalArguments) in
            guard let pad = args.object(1, as: Pad.self) else { return }
            router.place(pad, carrying: Self.stream(on: pad))
        }
    }

    /// The label for messages: the URL without its password.
    var label: String { router.label }

    /// What an RTP pad of rtspsrc carries (`application/x-rtp, media=video, encoding-name=H264`).
    static func stream(on pad: Pad) -> StreamRouter.Stream {
        let fields = (pad.currentCaps ?? pad.queryCaps())?.structure(at: 0)
        let encoding = fields?.get("encoding-name", as: String.self) ?? "?"
        return StreamRouter.Stream(
            media: fields?.get("media", as: String.self).flatMap(MediaKind.init(rawValue:)), encoding: encoding,
            codec: Codec.allCases.first { $0.encodingName == encoding.uppercased() })
    }
}
