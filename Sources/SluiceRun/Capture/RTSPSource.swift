import GStreamer
import Synchronization

/// One `rtspsrc` per camera in a run, shared by its video and audio branches: one RTSP
/// session, whose RTP streams appear as pads and go where `router` sends them. A reconnect
/// (`restart`) replaces the rtspsrc; the routes stay.
package final class RTSPSource: RestartableSource {
    /// Where its streams go.
    package let router: StreamRouter
    /// The rtspsrc's name in the pipeline.
    package let elementName: String
    private let settings: RTSPCapture.Settings
    private let pipeline: Pipeline
    private let element = Mutex<Element?>(nil)

    package init(settings: RTSPCapture.Settings, name: String, pipeline: Pipeline, at location: SourceLocation?) throws(RunError) {
        router = StreamRouter(label: Self.label(for: settings.url), pipeline: pipeline)
        elementName = name
        self.settings = settings
        self.pipeline = pipeline
        try start(at: location)
    }

    /// The label for messages: `rtsp capture` and the URL without its password.
    package var label: String { router.label }

    /// `rtsp capture` and `url` without its password.
    package static func label(for url: String) -> String { "rtsp capture \(SourceURL.redacted(url))" }

    package func restart() throws(RunError) {
        if let old = element.withLock({ e in
            defer { e = nil }; return e
        }) {
            _ = old.setState(.null)
            try? pipeline.remove(old)
        }
        try start(at: nil)
    }

    /// Makes the rtspsrc, adds it, and brings it to the pipeline's state.
    private func start(at location: SourceLocation?) throws(RunError) {
        let made: Element
        do {
            made = try Element.make("rtspsrc", name: elementName)
            try made.set("location", settings.url)
            try made.set("latency", fromString: "\(settings.latencyMs)")
            if let protocols = settings.lowerTransport.protocols { try made.set("protocols", fromString: protocols) }
            try pipeline.add(made)
        } catch {
            throw RunError(KnownElements.missingHint(for: "rtspsrc") + " (\(error.message))", at: location)
        }
        made.connect("pad-added") { [weak router] (args: borrowing SignalArguments) in
            // Weak: the router holds the pipeline, which holds this element and its handler.
            guard let router, let pad = args.object(1, as: Pad.self) else { return }
            router.place(pad, carrying: Self.stream(on: pad))
        }
        element.withLock { $0 = made }
        _ = made.syncStateWithParent()
    }

    /// What an RTP pad of rtspsrc carries (`application/x-rtp, media=video, encoding-name=H264`).
    package static func stream(on pad: Pad) -> StreamRouter.Stream {
        let fields = (pad.currentCaps ?? pad.queryCaps())?.structure(at: 0)
        let encoding = fields?.get("encoding-name", as: String.self) ?? "?"
        return StreamRouter.Stream(
            media: fields?.get("media", as: String.self).flatMap(MediaKind.init(rawValue:)), encoding: encoding,
            codec: Codec.allCases.first { $0.encodingName == encoding.uppercased() })
    }
}
