import Foundation
import GStreamer
import Synchronization

/// `receive.audio.mix` in a room: every publisher's sound mixed into one (48 kHz stereo), which
/// then goes through the branch's filters and sink like any received audio. A publisher who
/// leaves simply stops adding to it.
extension GraphBuilder {
    package static let roomMixCaps = "audio/x-raw,format=S16LE,rate=48000,channels=2,layout=interleaved"

    /// Builds audiomixer → 48 kHz stereo → the audio branch's filters and sink, before the
    /// pipeline plays. Publishers' sound joins it as it arrives.
    package func prepareRoomMix(_ branch: ReceiveBranchSpec, at location: SourceLocation?) throws(RunError) {
        let mixer = try make("audiomixer", at: location)
        // Silence underneath: the mix runs before anyone publishes (and keeps its pace).
        let silence = try make("audiotestsrc", [("is-live", "true"), ("wave", "silence")], at: location)
        let silenceFormat = try make("capsfilter", [("caps", Self.roomMixCaps)], at: location)
        let format = try make("capsfilter", [("caps", Self.roomMixCaps)], at: location)
        try prepareLocalReceive(
            branch, source: [silence, silenceFormat, mixer], format: format,
            convert: try make("audioconvert", at: branch.location), at: location)
        try ignoreInactivePadsOnceFed(mixer, backdrop: silenceFormat, at: location)
        counters.note("receive.audio.codec", "mix")
        mixState.withLock { $0 = mixer }
    }

    /// The room's `audiomixer`, if the file asks for a mix.
    package var roomMixer: Element? { mixState.withLock { $0 } }

    /// Links a decoded publisher's sound into the mix (resampled to the mix's format).
    package func joinMix(_ mixer: Element, from last: Element, at location: SourceLocation?) throws(RunError) {
        guard let pad = mixer.requestPad("sink_%u") else {
            throw RunError("the audio mixer refused another publisher", at: location)
        }
        guard let out = last.staticPad("src") else { throw RunError("\(last) has no output pad", at: location) }
        do { try out.link(pad) } catch { throw RunError("cannot add a publisher's sound to the mix: \(error.message)", at: location) }
    }
}
