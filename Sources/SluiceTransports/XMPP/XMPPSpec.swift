import Foundation
import SluiceSignalling
import SluiceRun

/// `kind: xmpp`: log in to an XMPP server and call `peer` (or wait for calls).
public struct XMPPSpec: KindSettings, Equatable {
    /// This side's address; a resource (`/camera`) is asked for when binding (default `sluice`).
    public var jid: String
    /// The account's password (write `${VAR}` to take it from the environment).
    public var password: String
    /// Where to connect (default: the JID's domain, port 5222).
    public var host: String?
    /// `server:`'s port (default 5222, XMPP's client port).
    public var port: Int = 5222
    /// Whom to call: a full JID, or a bare one (XEP-0353 asks its devices). Nil: wait for a call.
    public var peer: String?
    /// Bare JIDs that may call (nil: anyone who can reach this account).
    public var allow: [String]?
    /// `required` refuses servers without STARTTLS; `offered` (default) uses it when offered.
    public var tlsRequired = false
    /// PEM file of the certificates to trust for the server (default: the system's).
    public var ca: String?
    /// Settings for the account `jid` with `password`; the other keys keep their defaults.
    public init(jid: String, password: String) { self.jid = jid; self.password = password }
}

/// `transport:` of `kind: xmpp`.
extension SpecDecoder {
    /// Decodes the account (`jid`, `password`), then the server, who may be called, and
    /// how the server is trusted.
    package mutating func decodeXMPP(_ map: [SpecEntry], at location: SourceLocation) -> XMPPSpec? {
        guard let jidEntry = map.entry("jid") else {
            fail("transport kind 'xmpp' needs a 'jid': the account Sluice logs in as, e.g. camera@example.org/sluice", at: location)
            return nil
        }
        guard let jidText = nonEmptyText(jidEntry) else { return nil }
        guard let jid = JID(jidText), jid.local != nil else {
            fail("'\(jidText.prefix(80))' is not an XMPP address; write user@domain or user@domain/resource", at: jidEntry.value.location)
            return nil
        }
        guard let passwordEntry = map.entry("password") else {
            fail("transport kind 'xmpp' needs a 'password'; take it from the environment: password: ${XMPP_PASSWORD}", at: location)
            return nil
        }
        guard let password = nonEmptyText(passwordEntry) else { return nil }
        var spec = XMPPSpec(jid: jid.description, password: password)
        decodeXMPPServer(map, into: &spec)
        decodeXMPPPeers(map, account: jid, into: &spec)
        decodeXMPPTrust(map, into: &spec)
        return spec
    }

    /// `server`: HOST or HOST:PORT to connect to instead of the JID's domain (port 5222 when not given).
    private mutating func decodeXMPPServer(_ map: [SpecEntry], into spec: inout XMPPSpec) {
        guard let server = map.entry("server"), let text = nonEmptyText(server) else { return }
        if let (host, port) = Self.hostAndPort(text) {
            spec.host = host
            spec.port = port ?? 5222
        } else {
            fail(
                "'server' is HOST or HOST:PORT (port 1–65535), e.g. 127.0.0.1:5222 or [::1]:5222; got '\(text.prefix(80))'",
                at: server.value.location)
        }
    }

    /// `peer` (the address to call, not `account` itself) and `allow` (the bare addresses
    /// whose calls are taken, for a peer that waits; not with `peer`).
    private mutating func decodeXMPPPeers(_ map: [SpecEntry], account jid: JID, into spec: inout XMPPSpec) {
        if let peer = map.entry("peer"), let text = nonEmptyText(peer) {
            if let p = JID(text), p.local != nil {
                if p.bare == jid.bare, p.resource == nil || p.resource == jid.resource {
                    fail("'peer' \(text) is this account itself; call another JID", at: peer.value.location)
                } else {
                    spec.peer = p.description
                }
            } else {
                fail(
                    "'peer' must be an XMPP address (user@domain, or user@domain/resource for one device); got '\(text.prefix(80))'",
                    at: peer.value.location)
            }
        }
        if let allow = map.entry("allow"), let items = list(allow) {
            var jids: [String] = []
            for item in items {
                guard let text = text(item, name: "allow") else { continue }
                guard let a = JID(text), a.local != nil, a.isBare else {
                    fail("'allow' lists bare XMPP addresses (user@domain); got '\(text.prefix(80))'", at: item.location)
                    continue
                }
                jids.append(a.description)
            }
            if spec.peer != nil {
                fail("'allow' is for a peer that waits for calls; this one calls 'peer' and only talks to it", at: allow.keyLocation)
            }
            spec.allow = jids
        }
    }

    /// `tls` (required or offered) and `ca` (a readable PEM file, relative to the pipeline file).
    private mutating func decodeXMPPTrust(_ map: [SpecEntry], into spec: inout XMPPSpec) {
        if let tls = map.entry("tls"), let mode = nonEmptyText(tls) {
            switch mode {
            case "required": spec.tlsRequired = true
            case "offered": spec.tlsRequired = false
            default:
                fail(
                    "'tls' is required (refuse servers without STARTTLS) or offered (use it when offered); got '\(mode.prefix(40))'",
                    at: tls.value.location)
            }
        }
        if let ca = map.entry("ca"), let path = nonEmptyText(ca) {
            let base = URL(fileURLWithPath: file).deletingLastPathComponent()
            let resolved = URL(fileURLWithPath: path, relativeTo: base).standardizedFileURL.path
            if FileManager.default.isReadableFile(atPath: resolved) {
                spec.ca = resolved
            } else {
                fail(
                    "'ca' names \(resolved), which cannot be read; give the PEM file of the certificates to trust for the server",
                    at: ca.value.location)
            }
        }
    }

    /// `host`, `host:port` or `[v6]:port`.
    package static func hostAndPort(_ text: String) -> (String, Int?)? {
        var host = text
        var port: Int? = nil
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let p = Int(rest.dropFirst()) else { return nil }
                port = p
            }
        } else if let colon = text.lastIndex(of: ":"), text.firstIndex(of: ":") == colon {
            host = String(text[..<colon])
            guard let p = Int(text[text.index(after: colon)...]) else { return nil }
            port = p
        }
        if let port, !(1...65535).contains(port) { return nil }
        guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "/" }) else { return nil }
        return (host, port)
    }
}
