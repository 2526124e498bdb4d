import Foundation
import SluiceRun

/// How `sluice measure` instruments a pipeline file: a `framestamp` writer right after
/// capture (first send filter) and a `framestamp-read` reader right before the sink (last
/// receive filter), unless the file already places them; and when the file sends and
/// receives audio, `audiostamp` and `audiostamp-read` likewise in the audio branches.
public enum MeasurePlan {
    /// The name of the filter that writes a frame stamp (`framestamp`).
    public static let writer = StageTimer.stampWriter
    /// The name of the filter that reads the frame stamp back (`framestamp-read`).
    public static let reader = StageTimer.stampReader

    /// The audio stamp writer (`audiostamp`) and reader (`audiostamp-read`).
    public static let audioWriter = "audiostamp", audioReader = "audiostamp-read"

    /// The stamp's square size for a frame width: 3 rows of 32 squares must fit, and 16 px
    /// squares survive VP8/H.264 at 720p (smaller frames get smaller squares, at least 4).
    public static func block(forWidth width: Int) -> Int { min(16, max(4, width / 32)) }

    /// The spec with the stamp writer and reader in place. Throws when the file has nothing
    /// to measure (no video sent and received in this process). `roundTrip`: the user says the
    /// far end sends back what it gets (an echo peer), whatever the transport.
    public static func instrument(_ spec: PipelineSpec, roundTrip: Bool = false) throws(RunError) -> PipelineSpec {
        guard var send = spec.send?.video else {
            throw RunError("measure needs a send.video branch: latency is measured on video frames", at: spec.transport.location)
        }
        let echoes = roundTrip || ((spec.transport.settings?.value as? any EchoingSettings)?.echoesWhatIsSent ?? false)
        guard spec.transport.kind == .loopback || echoes, var receive = spec.receive?.video else {
            throw RunError(
                "measure runs loopback files (send and receive in one process; with --processes 2 they run in two), "
                    + "or files whose transport sends back what it gets (janus with plugin: echotest; "
                    + "--round-trip when the far end is an echo peer); "
                    + "this file's transport is '\(spec.transport.kind.rawValue)'", at: spec.transport.location)
        }
        let block = Self.block(forWidth: send.capture.width)
        let settings = [FilterSetting(name: "block", value: .integer(block))]
        if !send.filters.contains(where: { Self.isSwift($0, Self.writer) }) {
            send.filters.insert(FilterSpec(kind: .swift(name: Self.writer, settings: settings, onError: .pass)), at: 0)
        }
        if !receive.filters.contains(where: { Self.isSwift($0, Self.reader) }) {
            receive.filters.append(FilterSpec(kind: .swift(name: Self.reader, settings: settings, onError: .pass)))
        }
        var out = spec
        out.send?.video = send
        out.receive?.video = receive
        if var sendAudio = spec.send?.audio, var receiveAudio = spec.receive?.audio {
            if !sendAudio.filters.contains(where: { Self.isSwift($0, Self.audioWriter) }) {
                sendAudio.filters.insert(FilterSpec(kind: .swift(name: Self.audioWriter, settings: [], onError: .pass)), at: 0)
            }
            if !receiveAudio.filters.contains(where: { Self.isSwift($0, Self.audioReader) }) {
                receiveAudio.filters.append(FilterSpec(kind: .swift(name: Self.audioReader, settings: [], onError: .pass)))
            }
            out.send?.audio = sendAudio
            out.receive?.audio = receiveAudio
        }
        return out
    }

    package static func isSwift(_ f: FilterSpec, _ name: String) -> Bool {
        if case .swift(let n, _, _) = f.kind { return n == name }
        return false
    }
}
