import GStreamer
import Synchronization
import SluiceRun
import SluiceMeasure

/// One synthetic client of a load run: its webrtcbin (its own ICE agent and DTLS session),
/// where that lives and what flows through it (`LoadClientMedia`: a viewer's own pipeline, a
/// publisher's branch of the shared encoder), and what it saw (`ClientObservation`),
/// recorded from GStreamer's threads.
package final class LoadClient: Sendable {
    package let id: Int
    package let peer: WebRTCPeer
    package let decodes: Bool
    package let media: any LoadClientMedia
    /// Set to make the client leave before its planned end (churn: it is replaced).
    package let leaveEarly = StopFlag()
    private let record: Record

    /// What the client saw, behind a lock (its media's recorder writes into it).
    private final class Record: Sendable {
        let observed: Mutex<ClientObservation>
        init(_ o: ClientObservation) { observed = Mutex(o) }
    }

    /// A client whose media `makeMedia` builds, given the recorder its frames go to.
    package init(
        id: Int, group: String, decodes: Bool, clock: LoadClock,
        makeMedia: (_ record: LoadFrameRecorder) throws(RunError) -> any LoadClientMedia
    ) throws(RunError) {
        self.id = id
        self.decodes = decodes
        let record = Record(ClientObservation(id: id, group: group, decodes: decodes, startedAt: clock.now))
        media = try makeMedia(
            LoadFrameRecorder(
                frame: { keyframe, bytes in
                    let at = clock.now
                    record.observed.withLock { $0.frames.record(at: at, keyframe: keyframe, bytes: bytes) }
                },
                audioPacket: { sequence, timestamp in
                    let at = clock.now
                    record.observed.withLock { o in
                        if o.audio == nil { o.audio = ClientAudio() }
                        o.audio?.record(at: at, sequence: sequence, timestamp: timestamp)
                    }
                },
                decodedAudio: { nanoseconds in
                    record.observed.withLock { o in
                        if o.audio == nil { o.audio = ClientAudio() }
                        o.audio?.decodedMs += Double(nanoseconds) / 1_000_000
                    }
                },
                pictureSize: { width, height in
                    record.observed.withLock { $0.videoSize = "\(width)x\(height)" }
                }))
        self.record = record
        peer = WebRTCPeer(media.webrtcbin, label: "client \(id)")
    }

    /// What the client saw so far.
    package var observation: ClientObservation { record.observed.withLock { $0 } }

    /// Why a stream the client received or sent could not flow, if one could not.
    package var receiveError: String? { media.problem }

    /// Changes the observation (from any thread).
    package func note(_ change: (inout ClientObservation) -> Void) { record.observed.withLock { change(&$0) } }

    /// Removes the client's elements (after it left).
    package func remove() { media.remove() }
}
