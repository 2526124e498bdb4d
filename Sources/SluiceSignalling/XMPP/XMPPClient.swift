import Foundation
import Logging
import Synchronization

/// A logged-in XMPP client stream (RFC 6120/6121): TCP, STARTTLS when the server offers it
/// (or always, with `tls: .required`), SASL (SCRAM-SHA-256, SCRAM-SHA-1; PLAIN only inside
/// TLS), resource binding and initial presence. Then it sends stanzas, matches IQ answers
/// to requests, and hands every other stanza to `stanzas`.
public final class XMPPClient: Sendable {
    /// Who logs in, where, and how the stream is protected.
    public struct Configuration: Sendable {
        /// When the stream uses TLS.
        public enum TLS: String, Sendable, CaseIterable {
            /// STARTTLS when the server offers it, a plain stream (SCRAM only) otherwise.
            case offered
            /// Refuse servers that do not offer STARTTLS.
            case required
        }
        /// Who logs in; a resource, if given, is asked for when binding.
        public var jid: JID
        /// The account's password.
        public var password: String
        /// Where to connect (default: the JID's domain).
        public var host: String
        /// The server's client port (5222).
        public var port: Int
        /// Whether STARTTLS is required or used when offered.
        public var tls: TLS
        /// PEM file of the certificates to trust for the server (default: the system's).
        public var trustRoots: String?
        /// Bound on connecting and on each step of logging in, in seconds.
        public var timeout: Double

        /// A configuration for `jid`; the host defaults to the JID's domain.
        public init(
            jid: JID, password: String, host: String? = nil, port: Int = 5222, tls: TLS = .offered,
            trustRoots: String? = nil, timeout: Double = 10
        ) {
            self.jid = jid
            self.password = password
            self.host = host ?? jid.domain
            self.port = port
            self.tls = tls
            self.trustRoots = trustRoots
            self.timeout = timeout
        }
    }

    /// Why logging in or the stream failed, in words a user can act on.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong, with what to check.
        public var description: String
        /// A failure saying `description`.
        public init(_ description: String) { self.description = description }
    }

    /// The full JID the server bound.
    public let jid: JID
    /// Whether the stream runs inside TLS.
    public let encrypted: Bool
    /// The SASL mechanism that logged in.
    public let mechanism: String
    /// Messages, presences and IQ requests (`get`/`set`) addressed to this client, in order.
    /// Finishes when the stream ends.
    public let stanzas: AsyncStream<XML.Element>

    private let connection: XMPPConnection
    private let state: Mutex<State>
    private let reader: Mutex<Task<Void, Never>?> = Mutex(nil)
    private let logger: Logger

    private struct State {
        var pending: [String: CheckedContinuation<XML.Element?, Never>] = [:]
        var nextID = 0
        var endReason: String?
        var closing = false
    }

    private init(
        jid: JID, encrypted: Bool, mechanism: String, connection: XMPPConnection,
        stanzas: AsyncStream<XML.Element>, logger: Logger
    ) {
        self.jid = jid
        self.encrypted = encrypted
        self.mechanism = mechanism
        self.connection = connection
        self.stanzas = stanzas
        self.state = Mutex(State())
        self.logger = logger
    }

    /// Connects and logs in. Throws on a refused connection, a missing STARTTLS when
    /// required, an untrusted certificate, a wrong password, or a server that says nothing
    /// within the timeout.
    public static func connect(_ config: Configuration, logger: Logger = Logger(label: "sluice.xmpp")) async throws(Failure) -> XMPPClient {
        let connection: XMPPConnection
        do { connection = try await XMPPConnection.connect(host: config.host, port: config.port, timeout: config.timeout) } catch {
            throw Failure("cannot connect to the XMPP server at \(config.host):\(config.port): \(Self.words(for: error))")
        }
        var login = XMPPLogin(config: config, connection: connection, logger: logger)
        let result: XMPPLogin.Result
        do { result = try await login.run() } catch {
            connection.close()
            throw error
        }
        let (stanzas, sink) = AsyncStream<XML.Element>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let client = XMPPClient(
            jid: result.jid, encrypted: result.encrypted, mechanism: result.mechanism,
            connection: connection, stanzas: stanzas, logger: logger)
        let context = result.context
        // Login's iterator is done with: this one goes on with the same buffered parts.
        client.reader.withLock {
            $0 = Task { [weak client] in
                for await next in connection.inbound {
                    guard let client else { break }
                    if !client.receive(next, context: context, sink: sink) { break }
                }
                client?.finish(reason: "the XMPP server closed the stream")
                sink.finish()
            }
        }
        return client
    }

    /// Handles one inbound part after login; false when the stream is over.
    private func receive(
        _ inbound: XMPPConnection.Inbound, context: (open: String, close: String),
        sink: AsyncStream<XML.Element>.Continuation
    ) -> Bool {
        switch inbound {
        case .part(.stanza(let text)):
            let stanza: XML.Element
            do { stanza = try XML.parse(text, context: context) } catch {
                logger.warning("XMPP: dropping a stanza that does not parse: \(error)")
                return true
            }
            if stanza.name == "error", stanza.namespace == XMPPNamespace.stream {
                finish(reason: "the XMPP server ended the stream: \(XMPPStanza.condition(of: stanza) ?? "error")")
                return false
            }
            if stanza.name == "iq", let type = stanza[attribute: "type"], type == "result" || type == "error",
                let id = stanza[attribute: "id"]
            {
                let waiting = state.withLock { $0.pending.removeValue(forKey: id) }
                if let waiting { waiting.resume(returning: stanza) }
                return true
            }
            sink.yield(stanza)
            return true
        case .part(.streamClosed):
            finish(reason: "the XMPP server closed the stream")
            connection.close()
            return false
        case .part(.streamOpened):
            return true
        case .broken(let f):
            finish(reason: "the XMPP server sent XML that breaks XMPP's rules (\(f.condition)): \(f.description)")
            return false
        case .closed(let why):
            finish(reason: "the connection to the XMPP server closed" + (why.map { ": \(Self.words(for: $0))" } ?? ""))
            return false
        }
    }

    private func finish(reason: String) {
        let waiting = state.withLock { s -> [CheckedContinuation<XML.Element?, Never>] in
            if s.endReason == nil { s.endReason = s.closing ? "closed by this client" : reason }
            defer { s.pending = [:] }
            return Array(s.pending.values)
        }
        for w in waiting { w.resume(returning: nil) }
    }

    /// A connection error in a few words ("connection refused"), not NIO's whole description.
    static func words(for error: any Error) -> String { words(for: "\(error)") }

    static func words(for text: String) -> String {
        for (needle, words) in [
            ("Connection refused", "connection refused"), ("uncleanShutdown", "it went without ending TLS (the server vanished)"),
            ("timeout", "no answer (timed out)"),
            ("No route", "no route to the host"), ("Name or service not known", "the host name does not resolve")
        ]
        where text.localizedCaseInsensitiveContains(needle) { return words }
        return text
    }

    /// Why the stream ended, once it has.
    public var endReason: String? { state.withLock { $0.endReason } }

    /// A fresh stanza id.
    public func nextID() -> String {
        state.withLock { s in
            s.nextID += 1
            return "sl\(s.nextID)"
        }
    }

    /// Sends a stanza as it is.
    public func send(_ stanza: XML.Element) {
        connection.write(stanza.serialized(inherited: XMPPNamespace.client))
    }

    /// Sends an IQ (`get` or `set`; an id is added when missing) and waits for its `result`
    /// or `error`. Nil when nothing came within `timeout` seconds or the stream ended.
    public func request(_ iq: XML.Element, timeout: Double = 10) async -> XML.Element? {
        var iq = iq
        let id = iq[attribute: "id"] ?? nextID()
        iq[attribute: "id"] = id
        let sendable = iq
        let timer = Task { [weak self] in
            try? await Task.sleep(for: .seconds(timeout))
            let waiting = self?.state.withLock { $0.pending.removeValue(forKey: id) }
            waiting?.resume(returning: nil)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { (c: CheckedContinuation<XML.Element?, Never>) in
            let accepted = state.withLock { s -> Bool in
                guard s.endReason == nil else { return false }
                s.pending[id] = c
                return true
            }
            guard accepted else { return c.resume(returning: nil) }
            send(sendable)
        }
    }

    /// Ends the stream politely (`</stream:stream>`) and closes the connection.
    public func close() async {
        state.withLock { $0.closing = true }
        connection.write("</stream:stream>")
        // The server answers with its own end tag; do not wait long for it.
        let reader = self.reader.withLock { $0 }
        let waited = Task {
            try? await Task.sleep(for: .milliseconds(500))
            self.connection.close()
        }
        await reader?.value
        waited.cancel()
        connection.close()
        finish(reason: "closed by this client")
    }
}

/// The namespaces the client stream uses.
public enum XMPPNamespace {
    /// Client-to-server stanzas.
    public static let client = "jabber:client"
    /// The stream element's prefix (`stream:`).
    public static let stream = "http://etherx.jabber.org/streams"
    /// STARTTLS.
    public static let tls = "urn:ietf:params:xml:ns:xmpp-tls"
    /// SASL authentication.
    public static let sasl = "urn:ietf:params:xml:ns:xmpp-sasl"
    /// Resource binding.
    public static let bind = "urn:ietf:params:xml:ns:xmpp-bind"
    /// The legacy session establishment some servers still announce.
    public static let session = "urn:ietf:params:xml:ns:xmpp-session"
    /// Stanza error conditions.
    public static let stanzas = "urn:ietf:params:xml:ns:xmpp-stanzas"
    /// Stream error conditions.
    public static let streams = "urn:ietf:params:xml:ns:xmpp-streams"
}
