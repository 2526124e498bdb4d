import GStreamer
import Synchronization

/// One `rtspsrc` per camera in a run, shared by its video and audio branches: one RTSP
/// session, whose streams appear as pads and go to the branch that asked for their medium.
/// A stream no branch asked for ends in a fakesink (rtspsrc stops when every pad is
/// unlinked, and warns for each one that is).
final class RTSPSource: Sendable {
    /// The `rtspsrc` element (in the pipeline).
    let element: Element
    /// The camera's URL with its password removed, for messages.
    let label: String
    private let pipeline: Pipeline

    /// Where one medium's stream goes, and the codec it must carry (passthrough).
    struct Route: Sendable {
        /// The first element's sink pad of the branch's chain.
        var entrance: Pad
        /// The codec passthrough expects (nil: the branch decodes whatever comes).
        var codec: Codec?
        /// Reports a stream that cannot go this way (the codec differs).
        var refuse: @Sendable (RunError) -> Void
    }
    private let routes = Mutex<[MediaKind: Route]>([:])

    init(settings: RTSPCapture.Settings, name: String, pipeline: Pipeline, at location: SourceLocation?) throws(RunError) {
        self.pipeline = pipeline
        label = RTSPCapture.redacted(settings.url)
        do {
            element = try Element.make("rtspsrc", name: name)
            try element.set("location", settings.url)
            try element.set("latency", fromString: "\(settings.latencyMs)")
            if let protocols = settings.lowerTransport.protocols { try element.set("protocols", fromString: protocols) }
            try pipeline.add(element)
        } catch {
            throw RunError(KnownElements.missingHint(for: "rtspsrc") + " (\(error.message))", at: location)
        }
        element.connect("pad-added") { [weak self] (args: borrowing SignalArguments) in
            guard let self, let pad = args.object(1, as: Pad.self) else { return }
            self.place(pad)
        }
    }

    /// Sends `media`'s stream to `route` when its pad appears.
    func route(_ media: MediaKind, _ route: Route) {
        routes.withLock { $0[media] = route }
    }

    /// A new stream: to its branch if one asked for it and the codec fits, else to a fakesink.
    private func place(_ pad: Pad) {
        let fields = (pad.currentCaps ?? pad.queryCaps())?.structure(at: 0)
        let media = fields?.get("media", as: String.self).flatMap(MediaKind.init(rawValue:))
        let encoding = fields?.get("encoding-name", as: String.self) ?? "?"
        let route = routes.withLock { routes -> Route? in
            guard let media, let route = routes[media], !route.entrance.isLinked else { return nil }
            return route
        }
        if let route, let codec = route.codec, encoding.uppercased() != codec.encodingName.uppercased() {
            route.refuse(
                RunError(
                    "\(label) sends \(media?.rawValue ?? "") as \(encoding), and passthrough was declared for \(codec.rawValue); "
                        + "set encode.codec to what the source sends, or remove passthrough to transcode"))
        } else if let route {
            do { try pad.link(route.entrance) } catch {
                route.refuse(RunError("cannot link \(label)'s \(encoding) stream: \(error.message)"))
            }
            return
        }
        discard(pad)
    }

    /// Ends a stream nobody takes in a fakesink.
    private func discard(_ pad: Pad) {
        guard let sink = try? Element.make("fakesink") else { return }
        try? sink.set("sync", false)
        try? sink.set("async", false)
        guard (try? pipeline.add(sink)) != nil, let entrance = sink.staticPad("sink") else { return }
        _ = sink.syncStateWithParent()
        try? pad.link(entrance)
    }
}
