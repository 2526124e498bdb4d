import Foundation
import Synchronization

/// The streams of a room received over one connection (a Janus multistream subscription):
/// which publisher each MID carries now, and what each publisher's stream delivered.
///
/// The session says who sits at which MID (`assign`) before it applies each offer; receive
/// branches, built on streaming threads as pads appear, count into the slot of their MID.
/// A MID the SFU recycles for another publisher keeps its branch and starts a new record.
package final class RoomStreams: Sendable {
    /// What one publisher's stream delivered.
    package final class Record: Sendable {
        package let publisher: String
        package let media: MediaKind
        package let frames = Atomic<Int>(0)
        package let width = Atomic<Int>(0)
        package let height = Atomic<Int>(0)
        package let left = Atomic<Bool>(false)
        package let codec = Mutex<String?>(nil)
        /// The simulcast layer the server last said it forwards of this stream (nil: none said).
        package let substream = Mutex<Int?>(nil)
        package init(publisher: String, media: MediaKind) { self.publisher = publisher; self.media = media }
    }

    /// One MID of the connection: the record it counts into now.
    package final class Slot: Sendable {
        private let current: Mutex<Record?>
        package init(record: Record?) { current = Mutex(record) }
        package var record: Record? { current.withLock { $0 } }
        package func replace(_ record: Record?) -> Record? {
            current.withLock { old in
                defer { old = record }; return old
            }
        }
    }

    private struct State {
        var slots: [String: Slot] = [:]
        var records: [Record] = []
    }
    private let state = Mutex(State())

    /// Sets who each MID carries (`nil` publisher: nobody now, the stream was removed).
    /// Returns the names of publishers whose streams were removed.
    @discardableResult
    package func assign(_ streams: [(mid: String, publisher: String?, media: MediaKind)]) -> [String] {
        state.withLock { s in
            var removed: [String] = []
            for stream in streams {
                let slot =
                    s.slots[stream.mid]
                    ?? {
                        let new = Slot(record: nil)
                        s.slots[stream.mid] = new
                        return new
                    }()
                if let current = slot.record, current.publisher == stream.publisher, current.media == stream.media { continue }
                var record: Record?
                if let publisher = stream.publisher {
                    let r = Record(publisher: publisher, media: stream.media)
                    s.records.append(r)
                    record = r
                }
                if let old = slot.replace(record) {
                    old.left.store(true, ordering: .relaxed)
                    removed.append(old.publisher)
                }
            }
            return removed
        }
    }

    package func slot(mid: String) -> Slot? { state.withLock { $0.slots[mid] } }

    /// The MIDs that carry `media` now (of `publisher`, if given), with who they carry.
    package func mids(of media: MediaKind, publisher: String? = nil) -> [(mid: String, publisher: String)] {
        state.withLock { s in
            s.slots.compactMap { mid, slot in
                guard let r = slot.record, r.media == media, publisher == nil || r.publisher == publisher else { return nil }
                return (mid, r.publisher)
            }.sorted { $0.mid < $1.mid }
        }
    }

    /// Every publisher stream seen, in the order they arrived.
    package var records: [Record] { state.withLock { $0.records } }
}
