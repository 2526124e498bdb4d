import Foundation
import Logging
import Synchronization

/// The steps from a connected socket to a bound resource (RFC 6120 §§4–7): stream header,
/// features, STARTTLS, SASL, stream restart, bind, initial presence. Each wait is bounded.
struct XMPPLogin {
    struct Result {
        var jid: JID
        var encrypted: Bool
        var mechanism: String
        /// The stream header and end tag stanzas are parsed inside.
        var context: (open: String, close: String)
    }

    let config: XMPPClient.Configuration
    let connection: XMPPConnection
    let logger: Logger
    /// The connection's parts while logging in (the client reads on after).
    private var parts: AsyncStream<XMPPConnection.Inbound>.Iterator
    private var context = (open: "", close: "")

    init(config: XMPPClient.Configuration, connection: XMPPConnection, logger: Logger) {
        self.config = config
        self.connection = connection
        self.logger = logger
        self.parts = connection.inbound.makeAsyncIterator()
    }

    typealias Failure = XMPPClient.Failure

    mutating func run() async throws(Failure) -> Result {
        var encrypted = false
        var features = try await openStream()
        if let starttls = features.child("starttls", namespace: XMPPNamespace.tls) {
            _ = starttls
            connection.write("<starttls xmlns='\(XMPPNamespace.tls)'/>")
            let reply = try await nextStanza("the answer to STARTTLS")
            guard reply.name == "proceed" else { throw Failure("the XMPP server refused STARTTLS (\(reply.name))") }
            do { try await connection.startTLS(hostname: config.jid.domain, trustRoots: config.trustRoots) } catch {
                throw Failure("cannot start TLS with the XMPP server: \(error)")
            }
            encrypted = true
            features = try await openStream(step: "the TLS handshake and the stream after it")
        } else if config.tls == .required {
            throw Failure(
                "the XMPP server at \(config.host):\(config.port) does not offer STARTTLS; "
                    + "set `tls: offered` to log in over a plain stream (SCRAM only)")
        }
        let mechanism = try await authenticate(features, encrypted: encrypted)
        do { try await connection.resetStream() } catch { throw Failure("the connection closed: \(error)") }
        features = try await openStream()
        let jid = try await bind(features)
        connection.write("<presence/>")
        logger.debug("XMPP: logged in as \(jid) (\(mechanism)\(encrypted ? ", TLS" : ""))")
        return Result(jid: jid, encrypted: encrypted, mechanism: mechanism, context: context)
    }

    /// Sends a stream header and returns the server's features.
    private mutating func openStream(step: String = "the stream header") async throws(Failure) -> XML.Element {
        connection.write(
            "<?xml version='1.0'?><stream:stream to='\(XML.escape(config.jid.domain))' version='1.0' "
                + "xmlns='\(XMPPNamespace.client)' xmlns:stream='\(XMPPNamespace.stream)' xml:lang='en'>")
        while true {
            switch try await next(step) {
            case .streamOpened(let header, let attributes):
                guard attributes["version"].map({ $0.hasPrefix("1.") }) ?? false else {
                    throw Failure("the XMPP server does not speak XMPP 1.0 (stream version \(attributes["version"] ?? "none"))")
                }
                let name = header.dropFirst().prefix { !$0.isWhitespace && $0 != ">" }
                context = (open: header, close: "</\(name)>")
                let features = try await nextStanza("the stream features")
                guard features.name == "features", features.namespace == XMPPNamespace.stream else {
                    throw Failure("the XMPP server sent <\(features.name)> where its stream features belong")
                }
                return features
            case .stanza, .streamClosed:
                throw Failure("the XMPP server sent a stanza before its stream header")
            }
        }
    }

    private mutating func authenticate(_ features: XML.Element, encrypted: Bool) async throws(Failure) -> String {
        let offered = features.child("mechanisms", namespace: XMPPNamespace.sasl)?.children("mechanism").map(\.text) ?? []
        guard let local = config.jid.local else { throw Failure("the JID \(config.jid) has no user part to log in with") }
        if let hash = [SCRAM.Hash.sha256, .sha1].first(where: { offered.contains($0.rawValue) }) {
            var scram = SCRAM(hash: hash, user: local, password: config.password)
            try await send(sasl: "auth", mechanism: hash.rawValue, Data(scram.clientFirst.utf8))
            let challenge = try await saslStep("challenge")
            let final: String
            do { final = try scram.clientFinal(serverFirst: String(decoding: challenge, as: UTF8.self)) } catch {
                throw Failure("SASL \(hash.rawValue): \(error.description)")
            }
            try await send(sasl: "response", mechanism: nil, Data(final.utf8))
            let success = try await saslStep("success")
            do { try scram.verify(serverFinal: String(decoding: success, as: UTF8.self)) } catch {
                throw Failure("SASL \(hash.rawValue): \(error.description)")
            }
            return hash.rawValue
        }
        if offered.contains("PLAIN") {
            guard encrypted else {
                throw Failure("the XMPP server offers only PLAIN login on a stream without TLS; Sluice will not send a password in the clear")
            }
            try await send(sasl: "auth", mechanism: "PLAIN", Data(("\0" + local + "\0" + config.password).utf8))
            _ = try await saslStep("success")
            return "PLAIN"
        }
        throw Failure(
            "the XMPP server offers no SASL mechanism Sluice speaks (offered: \(offered.joined(separator: ", ")); "
                + "Sluice speaks SCRAM-SHA-256, SCRAM-SHA-1 and, inside TLS, PLAIN)")
    }

    private func send(sasl element: String, mechanism: String?, _ payload: Data) async throws(Failure) {
        let attr = mechanism.map { " mechanism='\($0)'" } ?? ""
        let body = payload.isEmpty ? "=" : payload.base64EncodedString()
        connection.write("<\(element) xmlns='\(XMPPNamespace.sasl)'\(attr)>\(body)</\(element)>")
    }

    /// Waits for `expected` (`challenge` or `success`) and returns its decoded payload.
    private mutating func saslStep(_ expected: String) async throws(Failure) -> Data {
        let reply = try await nextStanza("the SASL \(expected)")
        if reply.name == "failure" {
            let condition = reply.children.first.map(\.name) ?? "failure"
            let text = reply.child("text")?.text ?? ""
            if condition == "not-authorized" {
                throw Failure("the XMPP server refused the login of \(config.jid.bare): wrong password or no such account (not-authorized)")
            }
            throw Failure("the XMPP server refused the login: \(condition)\(text.isEmpty ? "" : " — \(text)")")
        }
        guard reply.name == expected else { throw Failure("the XMPP server sent <\(reply.name)> where the SASL \(expected) belongs") }
        let text = reply.text.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.isEmpty || text == "=" { return Data() }
        guard let data = Data(base64Encoded: text) else { throw Failure("the XMPP server's SASL \(expected) is not base64") }
        return data
    }

    private mutating func bind(_ features: XML.Element) async throws(Failure) -> JID {
        guard features.child("bind", namespace: XMPPNamespace.bind) != nil else {
            throw Failure("the XMPP server offers no resource binding after login")
        }
        let resource = config.jid.resource.map { "<resource>\(XML.escape($0))</resource>" } ?? ""
        connection.write("<iq type='set' id='bind1'><bind xmlns='\(XMPPNamespace.bind)'>\(resource)</bind></iq>")
        let reply = try await nextStanza("the bound resource")
        guard reply.name == "iq", reply[attribute: "type"] == "result",
            let text = reply.child("bind")?.child("jid")?.text, let jid = JID(text), !jid.isBare
        else {
            let why = XMPPStanza.condition(of: reply) ?? reply.name
            throw Failure("the XMPP server did not bind a resource (\(why))")
        }
        if let session = features.child("session", namespace: XMPPNamespace.session), session.child("optional") == nil {
            connection.write("<iq type='set' id='sess1'><session xmlns='\(XMPPNamespace.session)'/></iq>")
            _ = try await nextStanza("the session")
        }
        return jid
    }

    private mutating func nextStanza(_ step: String) async throws(Failure) -> XML.Element {
        while true {
            switch try await next(step) {
            case .stanza(let text):
                let stanza: XML.Element
                do { stanza = try XML.parse(text, context: context) } catch {
                    throw Failure("the XMPP server sent XML that does not parse: \(error.description)")
                }
                if stanza.name == "error", stanza.namespace == XMPPNamespace.stream {
                    throw Failure("the XMPP server ended the stream: \(XMPPStanza.condition(of: stanza) ?? "error")")
                }
                return stanza
            case .streamClosed:
                throw Failure("the XMPP server closed the stream while waiting for \(step)")
            case .streamOpened:
                throw Failure("the XMPP server opened a second stream while waiting for \(step)")
            }
        }
    }

    /// The next part, within the timeout.
    private mutating func next(_ step: String) async throws(Failure) -> XMPPFramer.Part {
        let timeout = config.timeout
        let connection = self.connection
        let timedOut = Mutex(false)
        let timer = Task {
            try? await Task.sleep(for: .seconds(timeout))
            guard !Task.isCancelled else { return }
            timedOut.withLock { $0 = true }
            connection.close()
        }
        defer { timer.cancel() }
        let inbound = await parts.next()
        if timedOut.withLock({ $0 }) {
            throw Failure("no answer from the XMPP server at \(config.host):\(config.port) for \(step) within \(Int(timeout)) s")
        }
        switch inbound {
        case .part(let p)?: return p
        case .broken(let f)?: throw Failure("the XMPP server sent XML that breaks XMPP's rules (\(f.condition)): \(f.description)")
        case .closed(let why)?:
            throw Failure("the XMPP server closed the connection while waiting for \(step)" + (why.map { ": \($0)" } ?? ""))
        case nil:
            throw Failure("the connection to the XMPP server closed while waiting for \(step)")
        }
    }
}
