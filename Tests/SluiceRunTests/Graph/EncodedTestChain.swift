import GStreamer

/// The encoded test stream the gate and cache tests watch.
enum EncodedTestChain {
    /// `frames` frames of a test picture (live: at 30 fps) → x264 (a keyframe every
    /// `keyframeEvery`) → h264parse → queue →
    /// fakesink, linked in a new pipeline; the queue and the sink are where the tests watch.
    static func make(
        _ name: String, frames: Int32, live: Bool = false, keyframeEvery: Int = 30
    ) throws -> (Pipeline, queue: Element, sink: Element) {
        Gst.initialize()
        let pipeline = Pipeline(name: name)
        let src = try Element.make("videotestsrc")
        try src.set("num-buffers", frames)
        try src.set("is-live", live)
        let caps = try Element.make("capsfilter")
        try caps.set("caps", fromString: "video/x-raw,width=160,height=120,framerate=30/1")
        let encoder = try Element.make("x264enc")
        try encoder.set("key-int-max", fromString: String(keyframeEvery))
        try encoder.set("tune", fromString: "zerolatency")
        try encoder.set("speed-preset", fromString: "ultrafast")
        let parse = try Element.make("h264parse"), queue = try Element.make("queue"), sink = try Element.make("fakesink")
        try sink.set("sync", false)
        let chain = [src, caps, encoder, parse, queue, sink]
        try pipeline.add(chain)
        try Element.link(chain)
        return (pipeline, queue, sink)
    }
}
