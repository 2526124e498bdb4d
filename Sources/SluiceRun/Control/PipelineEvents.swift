import Foundation
import Synchronization

/// One thing that happened in a pipeline: statistics each second, a filter event (such as
/// `motion`), a session starting or ending, an error, a state change.
public struct PipelineEvent: Sendable, Codable, Equatable {
    /// A field's value: a number, a string or a flag.
    public enum Value: Sendable, Codable, Equatable {
        /// A number (encoded as JSON number, non-finite values as 0), a string, or a flag (a JSON boolean).
        case number(Double), text(String), flag(Bool)

        /// Reads a JSON boolean as `.flag`, a number as `.number`, anything else as `.text`; throws if the value is none of these.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let b = try? c.decode(Bool.self) {
                self = .flag(b)
            } else if let d = try? c.decode(Double.self) {
                self = .number(d)
            } else {
                self = .text(try c.decode(String.self))
            }
        }
        /// Writes the value as a bare JSON number, string or boolean.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .number(let d): try c.encode(d.isFinite ? d : 0)
            case .text(let s): try c.encode(s)
            case .flag(let b): try c.encode(b)
            }
        }
    }

    /// Increasing from 1 in each pipeline (a client that reconnects sees what it missed).
    public var seq: Int
    /// Seconds since 1970.
    public var time: Double
    /// `stats`, `filter`, `session-start`, `session-end`, `error` or `state`.
    public var type: String
    /// The event's fields, by name (e.g. `send_fps` for `stats`).
    public var fields: [String: Value]
}

/// A pipeline's event log: the recent events, and live subscribers (the control API's event
/// stream). Posting never blocks: a subscriber that reads too slowly loses its oldest
/// unread events, never the pipeline's time.
public final class PipelineEvents: Sendable {
    private struct State {
        var next = 1
        var recent: [PipelineEvent] = []
        var subscribers: [Int: AsyncStream<PipelineEvent>.Continuation] = [:]
        var nextSubscriber = 0
        var finished = false
    }
    private let state = Mutex(State())
    /// How many recent events are kept (and replayed to a new subscriber that asks).
    public let capacity: Int

    /// An empty log that keeps the last `capacity` events (100 unless given).
    public init(capacity: Int = 100) { self.capacity = capacity }

    /// Records an event and hands it to every subscriber.
    public func post(_ type: String, _ fields: [String: PipelineEvent.Value] = [:]) {
        let capacity = capacity
        let delivery = state.withLock { s -> (PipelineEvent, [AsyncStream<PipelineEvent>.Continuation])? in
            guard !s.finished else { return nil }
            let event = PipelineEvent(seq: s.next, time: Date().timeIntervalSince1970, type: type, fields: fields)
            s.next += 1
            s.recent.append(event)
            if s.recent.count > capacity { s.recent.removeFirst(s.recent.count - capacity) }
            return (event, Array(s.subscribers.values))
        }
        guard let (event, subscribers) = delivery else { return }
        for c in subscribers { c.yield(event) }
    }

    /// The most recent events, oldest first.
    public var recent: [PipelineEvent] { state.withLock { $0.recent } }

    /// Live subscribers now.
    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Events from now on (after the recent ones with `seq` above `after`, if given); the
    /// stream ends when the pipeline ends or the subscriber stops reading it.
    public func subscribe(after: Int? = nil, buffer: Int = 256) -> AsyncStream<PipelineEvent> {
        let (stream, continuation) = AsyncStream<PipelineEvent>.makeStream(bufferingPolicy: .bufferingNewest(buffer))
        let id = state.withLock { s -> Int? in
            if let after { for e in s.recent where e.seq > after { continuation.yield(e) } }
            guard !s.finished else { return nil }
            s.nextSubscriber += 1
            s.subscribers[s.nextSubscriber] = continuation
            return s.nextSubscriber
        }
        guard let id else { continuation.finish(); return stream }
        continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) } }
        return stream
    }

    /// Ends every subscription (the pipeline stopped); later posts are dropped.
    public func finish() {
        let subscribers = state.withLock { s -> [AsyncStream<PipelineEvent>.Continuation] in
            s.finished = true
            defer { s.subscribers.removeAll() }
            return Array(s.subscribers.values)
        }
        for c in subscribers { c.finish() }
    }
}

extension PipelineEvents {
    /// A Swift filter's event (`FrameFilter` `emit`), e.g. `motion` with its fields.
    package func postFilterEvent(filter: String, event: String, fields: [String: Double]) {
        var f: [String: PipelineEvent.Value] = ["filter": .text(filter), "event": .text(event)]
        for (k, v) in fields { f[k] = .number(v) }
        post("filter", f)
    }
}
