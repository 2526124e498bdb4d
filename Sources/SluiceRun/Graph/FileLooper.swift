import Foundation
import GStreamer
import Synchronization

/// Feeds a decoded file into a branch, optionally in an endless loop, inside a live pipeline.
///
/// The decoder (uridecodebin) links itself to `entrance` (the sink pad of the `clocksync`
/// that paces the file) when its pad appears. With `loop`, the decoder's end-of-stream is
/// kept from the live part of the pipeline. The decoder is then replaced by a fresh one,
/// and the entrance pad's running-time offset moves forward by the length just played.
/// The stream goes on as if the file were endless. There is no seek: a flushing seek ends
/// in flush-stop(reset-time), which would reset the whole pipeline's running time under
/// webrtcbin.
package final class FileLooper: Sendable {
    private let uri: String
    private let media: MediaKind
    private let entrance: Pad
    private let bin: Bin
    private let loop: Bool
    private struct State {
        var decoder: Element?
        /// End (pts + duration) of the furthest buffer of the current pass.
        var passEnd: UInt = 0
        var offset: Int64 = 0
        var loops = 0
    }
    private let state = Mutex(State())

    /// How many times the file has restarted.
    package var loops: Int { state.withLock { $0.loops } }

    package init(uri: String, media: MediaKind, entrance: Pad, bin: Bin, loop: Bool) {
        self.uri = uri; self.media = media; self.entrance = entrance; self.bin = bin; self.loop = loop
        guard loop else { return }
        entrance.addProbe(.buffer) { [weak self] (info: borrowing Pad.ProbeInfo) in
            if let self, let b = info.buffer, let pts = b.pts {
                let end = pts + (b.duration ?? 0)
                self.state.withLock { $0.passEnd = max($0.passEnd, end) }
            }
            return .ok
        }
        entrance.addProbe(.eventDownstream) { [weak self] (info: borrowing Pad.ProbeInfo) in
            guard info.event == .eos, let self else { return .ok }
            // Not on this streaming thread: replacing the decoder stops the thread we are on.
            Thread.detachNewThread { self.restart() }
            return .drop
        }
    }

    /// Creates the decoder and adds it to the bin (call once; the pipeline state follows).
    package func start() throws(GstError) -> Element {
        let decoder = try makeDecoder()
        try bin.add(decoder)
        state.withLock { $0.decoder = decoder }
        return decoder
    }

    private func makeDecoder() throws(GstError) -> Element {
        let decoder = try Element.make("uridecodebin")
        try decoder.set("uri", uri)
        let entrance = entrance, prefix = media == .video ? "video/" : "audio/"
        decoder.connect("pad-added") { (args: borrowing SignalArguments) in
            guard let pad = args.object(1, as: Pad.self),
                let caps = pad.currentCaps ?? pad.queryCaps(),
                let name = caps.structure(at: 0)?.name, name.hasPrefix(prefix),
                !entrance.isLinked
            else { return }
            try? pad.link(entrance)
        }
        return decoder
    }

    private func restart() {
        let (old, offset) = state.withLock { s -> (Element?, Int64) in
            s.offset += Int64(clamping: s.passEnd)
            s.passEnd = 0
            s.loops += 1
            defer { s.decoder = nil }
            return (s.decoder, s.offset)
        }
        if let old {
            old.setState(.null)
            try? bin.remove(old)
        }
        entrance.offset = offset
        guard let fresh = try? makeDecoder(), (try? bin.add(fresh)) != nil else { return }
        state.withLock { $0.decoder = fresh }
        fresh.syncStateWithParent()
    }
}
