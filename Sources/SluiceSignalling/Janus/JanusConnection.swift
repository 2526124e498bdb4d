import Foundation
import HTTPTypes
import Logging
import Synchronization
import WSClient

/// The WebSocket to Janus (subprotocol `janus-protocol`): requests matched to their answers
/// by transaction, bounded by a timeout; everything else handed to `unasked`.
final class JanusConnection: Sendable {
    private struct Pending {
        var continuation: CheckedContinuation<JSONValue, any Error>
        /// An `ack` is the answer (keepalive, trickle); otherwise it only says "wait for the event".
        var ackIsAnswer: Bool
    }
    private struct State {
        var pending: [String: Pending] = [:]
        var closed: String?
        var serial = 0
    }
    private let state = Mutex(State())
    private let outgoing: AsyncStream<String>.Continuation
    private let task = Mutex<Task<Void, Never>?>(nil)
    let timeout: Double
    let url: String

    /// `unasked` gets every message that answers no pending request, and nil once the
    /// connection has closed (with why).
    init(url: String, timeout: Double, logger: Logger, unasked: @escaping @Sendable (JSONValue?, String?) -> Void) {
        self.url = url
        self.timeout = timeout
        let (outbound, outgoing) = AsyncStream<String>.makeStream()
        self.outgoing = outgoing
        // The task holds the connection until the WebSocket ends (`close`, or Janus going away).
        task.withLock {
            $0 = Task { [self] in
                var headers = HTTPFields()
                headers[.secWebSocketProtocol] = "janus-protocol"
                var why: String?
                do {
                    try await WebSocketClient.connect(
                        url: url, configuration: .init(maxFrameSize: 1 << 20, additionalHeaders: headers),
                        logger: logger
                    ) { inbound, writer, _ in
                        try await withThrowingTaskGroup(of: Void.self) { group in
                            group.addTask {
                                for try await message in inbound.messages(maxSize: 1 << 20) {
                                    guard case .text(let text) = message else { continue }
                                    guard let json = JSONValue(parsing: text), json.object != nil else {
                                        logger.warning("Janus sent something that is not a JSON object: \(text.prefix(120))")
                                        continue
                                    }
                                    if !self.answer(json) { unasked(json, nil) }
                                }
                            }
                            group.addTask {
                                for await text in outbound { try await writer.write(.text(text)) }
                            }
                            _ = try await group.next()
                            group.cancelAll()
                        }
                    }
                } catch {
                    why = "\(error)"
                }
                let reason = why ?? "Janus closed the WebSocket"
                let pending = state.withLock { s in
                    s.closed = reason
                    defer { s.pending = [:] }
                    return Array(s.pending.values)
                }
                for p in pending {
                    p.continuation.resume(throwing: JanusClient.Failure("the connection to Janus (\(url)) closed: \(reason)"))
                }
                unasked(nil, why ?? "Janus closed the WebSocket")
            }
        }
    }

    /// Resumes the request `json` answers; false if it answers none.
    private func answer(_ json: JSONValue) -> Bool {
        guard let transaction = json["transaction"]?.string else { return false }
        let kind = json["janus"]?.string ?? ""
        let pending = state.withLock { s -> Pending? in
            guard let p = s.pending[transaction] else { return nil }
            if kind == "ack", !p.ackIsAnswer { return nil }
            s.pending[transaction] = nil
            return p
        }
        guard let pending else {
            // An ack of a request still waiting for its event is consumed here.
            return kind == "ack" && state.withLock { $0.pending[transaction] != nil }
        }
        pending.continuation.resume(returning: json)
        return true
    }

    /// Sends `message` (with a new transaction) and waits for its answer: the `success`,
    /// `error` or `event` with the same transaction (or its `ack`, with `ackIsAnswer`).
    func request(_ message: [String: JSONValue], ackIsAnswer: Bool = false) async throws(JanusClient.Failure) -> JSONValue {
        let transaction = state.withLock { s -> String in
            s.serial += 1
            return "sluice-\(s.serial)-\(UInt32.random(in: 0...UInt32.max))"
        }
        var m = message
        m["transaction"] = .string(transaction)
        let text = JSONValue.object(m).text
        let timeout = self.timeout
        let what = message["body"]?["request"]?.string ?? message["janus"]?.string ?? "request"
        let reply: JSONValue
        do {
            reply = try await withCheckedThrowingContinuation { (c: CheckedContinuation<JSONValue, any Error>) in
                let closed = state.withLock { s -> String? in
                    if let why = s.closed { return why }
                    s.pending[transaction] = Pending(continuation: c, ackIsAnswer: ackIsAnswer)
                    return nil
                }
                if let closed {
                    c.resume(throwing: JanusClient.Failure("the connection to Janus (\(url)) is closed: \(closed)"))
                    return
                }
                outgoing.yield(text)
                Task { [weak self] in
                    try? await Task.sleep(for: .seconds(timeout))
                    let late = self?.state.withLock { s in
                        defer { s.pending[transaction] = nil }
                        return s.pending[transaction]
                    }
                    late?.continuation.resume(
                        throwing: JanusClient.Failure(
                            "Janus did not answer '\(what)' within \(Int(timeout)) s"))
                }
            }
        } catch let e as JanusClient.Failure {
            throw e
        } catch {
            throw JanusClient.Failure("\(error)")
        }
        if reply["janus"]?.string == "error" {
            let code = reply["error"]?["code"]?.int.map(Int.init)
            let reason = reply["error"]?["reason"]?.string ?? "no reason given"
            throw JanusClient.Failure("Janus refused '\(what)': \(reason)\(code.map { " (error \($0))" } ?? "")", code: code)
        }
        return reply
    }

    /// Sends without waiting for an answer.
    func post(_ message: [String: JSONValue]) {
        var m = message
        m["transaction"] = .string("sluice-post-\(UInt32.random(in: 0...UInt32.max))")
        outgoing.yield(JSONValue.object(m).text)
    }

    var isClosed: Bool { state.withLock { $0.closed != nil } }

    /// Closes the WebSocket and waits (bounded) for it to end.
    func close() async {
        outgoing.finish()
        let t = task.withLock { $0 }
        await t?.value
    }
}
