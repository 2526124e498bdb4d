import Foundation
import Synchronization

extension PipelineSpec {
    /// The pipeline that plays this one's recordings (`send.*.record`) back from `at` (a local
    /// date and time, or seconds since 1970): each recorded branch read by `kind: recording`
    /// and passed through as it was recorded. Segments in `leaving` (still being written) are
    /// not played.
    public func recordingPlayback(from at: String, leaving: Set<String> = []) throws(RunError) -> PipelineSpec {
        guard let moment = RecordingCapture.moment(at) else {
            throw RunError("'\(at)' is not a time; write ?at=2026-11-27T09:30:00 (local time) or seconds since 1970")
        }
        var send = SendSpec()
        for branch in sendBranches {
            guard let record = branch.record?.kind.settings(as: RecordSink.Settings.self) else { continue }
            let settings = RecordingCapture.Settings(template: record.template, recordedName: name, from: moment, leaving: leaving, settled: 1)
            var encode = EncodeSpec(codec: branch.encode.codec, bitrateKbps: 0, location: branch.location)
            encode.passthrough = true
            let played = SendBranchSpec(
                media: branch.media, capture: CaptureSpec(kind: .recording(settings), location: branch.location),
                encode: encode, location: branch.location)
            if branch.media == .video { send.video = played } else { send.audio = played }
        }
        guard send.video != nil || send.audio != nil else {
            throw RunError("stream '\(name)' is not recorded: give a send branch `record: {path: …}`")
        }
        return PipelineSpec(file: file, name: "\(name)@\(Int(moment.timeIntervalSince1970))", transport: transport, send: send, receive: nil)
    }
}

/// WHEP viewers of a recording (`POST /whep/<stream>?at=<time>`): each has a pipeline of its
/// own (a `StreamHub` of the recording's playback from that time), which ends with its
/// viewer — by DELETE, or when the viewer goes away (checked every second).
public final class RecordingPlaybacks: Sendable {
    private let sessions = Mutex<[String: StreamHub]>([:])

    /// No playbacks yet.
    public init() {}

    /// A new viewer of `stream`'s recording from `at`, with its own pipeline made by `makeHub`
    /// (the directory's recipe). Returns the viewer's id and the complete SDP answer.
    public func addViewer(
        of stream: StreamHub, at: String, offer: String,
        makeHub: (PipelineSpec) throws(RunError) -> StreamHub
    ) async throws(RunError) -> (id: String, answer: String) {
        let hub = try makeHub(try stream.spec.recordingPlayback(from: at, leaving: stream.segmentsBeingWritten))
        let added: (id: String, answer: String)
        do { added = try await hub.addViewer(offer: offer) } catch {
            await hub.stop()
            throw error
        }
        sessions.withLock { $0[added.id] = hub }
        watch(added.id, hub)
        return added
    }

    /// The playback pipeline of viewer `id`, if it is one.
    public func hub(of id: String) -> StreamHub? { sessions.withLock { $0[id] } }

    /// Ends viewer `id`'s playback; false if there is no such viewer.
    public func remove(_ id: String) async -> Bool {
        guard let hub = sessions.withLock({ $0.removeValue(forKey: id) }) else { return false }
        hub.removeViewer(id)
        await hub.stop()
        return true
    }

    /// Ends every playback (the server is stopping).
    public func removeAll() async {
        for id in sessions.withLock({ Array($0.keys) }) { _ = await remove(id) }
    }

    /// Playbacks playing now.
    public var count: Int { sessions.withLock { $0.count } }

    private func watch(_ id: String, _ hub: StreamHub) {
        Task { [weak self, weak hub] in
            while let hub, hub.viewerCount > 0 {
                try? await Task.sleep(for: .seconds(1))
            }
            _ = await self?.remove(id)
        }
    }
}
