import Foundation
import GStreamer
import SluiceBuiltInPlugins
import SluiceFilterKit
import Synchronization
import XCTest

@testable import SluiceLoad
@testable import SluiceRun

/// Members of a room that mixes their audio speak in turns: member m of n sends the packets
/// around the stamps k with k mod n = m, and Opus silence in place of the others.
final class SpeakingTurnsTests: XCTestCase {
    private let ms: UInt64 = 1_000_000

    func testAMemberSpeaksAroundItsOwnStampsOnly() {
        // Stamps every 400 ms from 100 ms, 280 ms long: stamp k spans [100 + 400k, 380 + 400k).
        let turns = SpeakingTurns(member: 1, members: 3, schedule: AudioStampSchedule(intervalMilliseconds: 400))
        XCTAssertFalse(turns.speaks(pts: 100 * ms, duration: 20 * ms), "stamp 0 is member 0's")
        XCTAssertTrue(turns.speaks(pts: 500 * ms, duration: 20 * ms), "stamp 1 is member 1's")
        XCTAssertTrue(turns.speaks(pts: 770 * ms, duration: 20 * ms), "to its end")
        XCTAssertTrue(turns.speaks(pts: 460 * ms, duration: 20 * ms), "and 40 ms around it (the encoder's look-ahead)")
        XCTAssertFalse(turns.speaks(pts: 860 * ms, duration: 20 * ms), "not after its margin")
        XCTAssertTrue(turns.speaks(pts: 1700 * ms, duration: 20 * ms), "stamp 4 is member 1's again (4 mod 3)")
        XCTAssertFalse(turns.speaks(pts: 0, duration: 20 * ms), "nobody speaks before the first stamp")
        XCTAssertEqual(SpeakingTurns(member: 4, members: 3, schedule: turns.schedule).member, 1, "a replacement member takes its place's turns")
    }

    func testTheScheduleFindsTheStampsAroundAStretch() {
        let schedule = AudioStampSchedule(intervalMilliseconds: 400)
        XCTAssertEqual(schedule.stamps(overlapping: 0, 50 * ms, margin: 40 * ms), [])
        XCTAssertEqual(schedule.stamps(overlapping: 60 * ms, 80 * ms, margin: 40 * ms), [0])
        XCTAssertEqual(schedule.stamps(overlapping: 430 * ms, 450 * ms, margin: 40 * ms), [], "between stamps 0 and 1")
        XCTAssertEqual(schedule.stamps(overlapping: 410 * ms, 470 * ms, margin: 40 * ms), [0, 1], "a long stretch touches both")
        XCTAssertEqual(schedule.next(atOrAfter: 0), 0)
        XCTAssertEqual(schedule.next(atOrAfter: 101 * ms), 1)
        XCTAssertEqual(schedule.start(of: 3), 1300 * ms)
    }

    /// What member `member` of 2 sends, decoded and read: 12 s of silence stamped every 400 ms
    /// (30 stamps), encoded with Opus, with Opus silence outside the member's turns.
    private func heard(member: Int) throws -> (sequences: [Int], unreadable: Int) {
        for f in BuiltInPlugins.audioFilters { try? FilterRegistry.shared.register(AudioFilterFactory(f)) }
        let bin = try Bin.parse(
            "audiotestsrc num-buffers=600 samplesperbuffer=960 wave=silence ! audio/x-raw,rate=48000,channels=1 "
                + "! sluice-audiostamp interval-ms=400 ! opusenc bitrate=32000 ! identity name=turn ! opusdec "
                + "! sluice-audiostamp-read ! fakesink sync=false", ghostUnlinkedPads: false)
        let pipeline = Pipeline()
        try pipeline.add([bin])
        let turn = try XCTUnwrap(bin.descendants.first { $0.name == "turn" }?.staticPad("sink"))
        SpeakingTurns(member: member, members: 2, schedule: AudioStampSchedule(intervalMilliseconds: 400)).install(on: turn)
        pipeline.setState(.playing)
        var sequences: [Int] = [], unreadable = 0, done = false
        while let m = pipeline.bus.pop(timeout: 60_000_000_000) {
            if m.kind == .eos { done = true; break }
            if m.kind == .error { XCTFail(m.parsedError?.message ?? "error"); break }
            guard let event = FilterEventMessage(m.structure) else { continue }
            if event.event == "audiostamp", let s = event.fields["sequence"] { sequences.append(Int(s)) }
            if event.event == "audiostamp-unreadable" { unreadable += 1 }
        }
        pipeline.setState(.null)
        XCTAssertTrue(done, "reached the end")
        return (sequences, unreadable)
    }

    func testEachMemberIsHeardInItsOwnTurnsAndSilentOtherwise() throws {
        for member in 0..<2 {
            let (sequences, unreadable) = try heard(member: member)
            XCTAssertGreaterThanOrEqual(sequences.count, 14, "member \(member) spoke its 15 stamps of 30: \(sequences)")
            XCTAssertTrue(sequences.allSatisfy { $0 % 2 == member }, "only its own stamps were heard: \(sequences)")
            XCTAssertEqual(unreadable, 0, "the silence between its turns reads as nothing")
        }
    }
}
