import GStreamer
import SluiceFilterKit
import SluiceMeasure
import SluiceRun

/// The members of a room that mixes their audio (a Janus AudioBridge) speak in turns, so that
/// every stamp a member hears is one speaker's: stamps mixed with another speaker's at the
/// same level do not read. The crowd shares one encoded stream whose `audiostamp` writes
/// stamp k at `AudioStampSchedule`'s time k; member m of n sends the packets around the
/// stamps k with k mod n = m, and Opus silence in place of every other packet, so it is
/// silent but for its own turns, and its packets keep their pace (the mixer's jitter buffer
/// neither drains nor refills). The encoder is still shared: a turn costs a packet copy.
package struct SpeakingTurns: Sendable, Equatable {
    /// This member's place in the crowd, and the crowd's size.
    package let member: Int, members: Int
    /// When the shared stream's stamps are.
    package let schedule: AudioStampSchedule
    /// How far around a stamp a turn reaches (the encoder's look-ahead, and a packet's length).
    package static let marginNanoseconds: UInt64 = 40_000_000

    /// An Opus packet of 20 ms of silence: a CELT-only fullband mono frame (TOC 0xF8) whose
    /// payload says silence.
    package static let opusSilence: [UInt8] = [0xF8, 0xFF, 0xFE]

    /// Member `member`'s turns in a crowd of `members` sharing a stream whose stamps follow `schedule`.
    package init(member: Int, members: Int, schedule: AudioStampSchedule) {
        self.members = max(1, members)
        self.member = member % self.members
        self.schedule = schedule
    }

    /// The turns of member `member` of a crowd of `load.clients` sending `spec`'s send section:
    /// its audio's `audiostamp` (the interval it sets, 1000 ms by default). Nil without one:
    /// with no stamps there are no turns to take.
    package init?(member: Int, of load: LoadSpec, sending spec: PipelineSpec) {
        let settings = spec.send?.audio?.filters.lazy.compactMap { filter -> [FilterSetting]? in
            guard case .swift(MeasurePlan.audioWriter, let settings, _) = filter.kind else { return nil }
            return settings
        }.first
        guard let settings else { return nil }
        var interval = 1000
        if case .integer(let ms)? = settings.first(where: { $0.name == "interval_ms" })?.value { interval = ms }
        self.init(member: member, members: load.clients, schedule: AudioStampSchedule(intervalMilliseconds: interval))
    }

    /// Whether this member speaks in the packet [`pts`, `pts + duration`): it overlaps one of
    /// its own stamps.
    package func speaks(pts: UInt64, duration: UInt64) -> Bool {
        schedule.stamps(overlapping: pts, pts + max(1, duration), margin: Self.marginNanoseconds)
            .contains { Int($0 % UInt64(members)) == member }
    }

    /// Puts Opus silence in place of each packet entering `pad` outside this member's turns.
    package func install(on pad: Pad) {
        pad.addProbe(.buffer) { info in
            guard let buffer = info.buffer, let pts = buffer.pts else { return .ok }
            if !speaks(pts: UInt64(pts), duration: UInt64(buffer.duration ?? 20_000_000)) {
                Self.opusSilence.withUnsafeBytes { info.replaceBuffer(withBytes: $0) }
            }
            return .ok
        }
    }
}
