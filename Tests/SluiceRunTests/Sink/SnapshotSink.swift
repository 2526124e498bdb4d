import GStreamer
import SluiceRun

// A sink kind that is not built in, written the way a new kind is: this one file (its name,
// keys, settings, decoding, elements and build) plus its registry line
// (`SinkRegistry.register(SnapshotSink())` in the test). It writes a PNG of each frame.

struct SnapshotSink: Sink {
    let name = "snapshot"
    let keys = ["path"]
    let needsKeys: String? = "a snapshot sink needs a path: `sink: {kind: snapshot, path: shot-%03d.png}`"

    struct Settings: KindSettings, Equatable {
        var path: String
    }

    func decode(_ map: [SpecEntry], media: MediaKind, at location: SourceLocation, with decoder: inout SpecDecoder) -> SinkSpec.Kind? {
        guard media == .video else {
            decoder.fail("a snapshot sink takes pictures: use it on receive.video", at: location)
            return nil
        }
        guard let entry = map.entry("path") else {
            decoder.fail(needsKeys ?? "", at: location)
            return nil
        }
        return decoder.nonEmptyText(entry).map { SinkSpec.Kind(name: name, settings: Settings(path: $0)) }
    }

    func requiredElements(_ sink: SinkSpec, media: MediaKind) -> [String] { ["pngenc", "multifilesink"] }

    func build(_ sink: SinkSpec, media: MediaKind, with b: GraphBuilder) throws(RunError) -> GraphBuilder.SinkStage {
        let path = sink.kind.settings(as: Settings.self)?.path ?? "snapshot-%03d.png"
        let out = try b.make("multifilesink", [("location", path), ("sync", "false"), ("async", "false")], at: sink.location)
        return GraphBuilder.SinkStage(
            owned: [try b.make("videoconvert", at: sink.location), try b.make("pngenc", at: sink.location), out],
            final: out)
    }
}
