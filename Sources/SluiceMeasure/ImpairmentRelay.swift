import Foundation
import SluiceFilterKit
import SluiceRun

/// Forwards packets read from a file descriptor (a TUN device) back into it after the
/// impairment in force (`ImpairmentSchedule`): each packet is dropped with the loss
/// probability, sent at once when reordered, otherwise written back once its delay (±
/// jitter) has passed and, with a rate, once the packets before it have been transmitted;
/// duplicated with the duplicate probability; dropped when `limit` packets already wait.
/// One thread reads, one writes.
///
/// `@unchecked Sendable`: the queue, counters, schedule clock and random state are only
/// touched with `condition` held; `fd` and `schedule` are immutable.
public final class ImpairmentRelay: @unchecked Sendable {
    /// The conditions the relay applies, step by step.
    public let schedule: ImpairmentSchedule
    private let fd: Int32
    private let condition = NSCondition()
    private var queue: [(due: UInt64, packet: [UInt8])] = []
    private var stopped = false
    private var random: SplitMix64
    /// When the schedule's clock started (monotonic ns), and when the link is next free.
    private var scheduleStart: UInt64
    private var linkFreeAt: UInt64 = 0
    private var currentStep = 0
    /// Packets written back, dropped (loss), duplicated, and dropped because `limitPackets` were waiting.
    public private(set) var forwarded = 0, dropped = 0, duplicated = 0, overflowed = 0

    /// A relay on the TUN device `fd` applying one fixed `impairment`; `seed` makes its random choices repeatable.
    public convenience init(fd: Int32, impairment: Impairment, seed: UInt64) {
        self.init(fd: fd, schedule: ImpairmentSchedule(impairment, text: ""), seed: seed)
    }

    /// A relay on the TUN device `fd` applying `schedule`, whose clock starts now; `seed` makes its
    /// random choices repeatable.
    public init(fd: Int32, schedule: ImpairmentSchedule, seed: UInt64) {
        self.fd = fd; self.schedule = schedule; random = SplitMix64(seed: seed)
        scheduleStart = Self.now()
    }

    /// Starts the two threads.
    public func start() {
        Thread.detachNewThread { [self] in readLoop() }
        Thread.detachNewThread { [self] in writeLoop() }
    }

    /// Stops forwarding: packets still queued are not written; the reading thread ends after its next read.
    public func stop() {
        condition.lock(); stopped = true; condition.broadcast(); condition.unlock()
    }

    /// Starts the schedule over from its first step, now.
    public func restartSchedule() {
        condition.lock(); scheduleStart = Self.now(); currentStep = 0; condition.unlock()
    }

    /// The step in force, and counts so far: (step, forwarded, dropped, duplicated, overflowed).
    public var counts: (step: Int, forwarded: Int, dropped: Int, duplicated: Int, overflowed: Int) {
        condition.lock(); defer { condition.unlock() }
        return (currentStep, forwarded, dropped, duplicated, overflowed)
    }

    /// Decides the fate of a packet of `bytes` arriving at `now`, under the step in force:
    /// the times its copies are due (empty: dropped). Call with `condition` held.
    package func admit(bytes: Int, now: UInt64) -> [UInt64] {
        currentStep = schedule.step(at: Double(now &- scheduleStart) / 1e9)
        let impairment = schedule.steps[currentStep].impairment
        guard let fate = impairment.fate(random: &random) else { dropped += 1; return [] }
        guard queue.count + fate.delaysNs.count <= impairment.limitPackets else { overflowed += 1; return [] }
        if fate.reordered { return [now] }
        var due: [UInt64] = []
        for delay in fate.delaysNs {
            var at = now + delay
            if let rate = impairment.rateBitsPerSecond {
                // Transmitted after the packets before it, taking its own time on the wire.
                at = max(at, linkFreeAt) + UInt64(Double(bytes * 8) / rate * 1e9)
                linkFreeAt = at
            }
            due.append(at)
        }
        if due.count > 1 { duplicated += 1 }
        return due
    }

    /// Queues `packet`'s copies by their due time; returns how many. Call with `condition` held.
    package func enqueue(_ packet: [UInt8], now: UInt64) -> Int {
        let due = admit(bytes: packet.count, now: now)
        for d in due {
            let i = queue.firstIndex { $0.due > d } ?? queue.count
            queue.insert((d, packet), at: i)
        }
        return due.count
    }

    private func readLoop() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 {
                if n < 0 && errno == EINTR { continue }
                break
            }
            let packet = Array(buffer[0..<n])
            condition.lock()
            if stopped { condition.unlock(); break }
            if enqueue(packet, now: Self.now()) > 0 { condition.signal() }
            condition.unlock()
        }
    }

    private func writeLoop() {
        while true {
            condition.lock()
            while !stopped {
                if let first = queue.first {
                    let now = Self.now()
                    if first.due <= now { break }
                    _ = condition.wait(until: Date().addingTimeInterval(Double(first.due - now) / 1e9))
                } else {
                    condition.wait()
                }
            }
            if stopped { condition.unlock(); return }
            let item = queue.removeFirst()
            forwarded += 1
            condition.unlock()
            _ = item.packet.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        }
    }

    package static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}
