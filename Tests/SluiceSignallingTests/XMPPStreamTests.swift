import Foundation
import SluiceSignalling
import XCTest

/// The parts of the XMPP client that need no server: the stream framer, XML parsing,
/// SCRAM, JIDs.
final class XMPPStreamTests: XCTestCase {
    /// What prosody sends after a client's stream header (taken from its debug log).
    let serverOpening =
        "<?xml version='1.0'?><stream:stream xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' "
        + "id='b9f8c5d4' from='localhost' version='1.0' xml:lang='en'>"
        + "<stream:features><starttls xmlns='urn:ietf:params:xml:ns:xmpp-tls'/><mechanisms xmlns='urn:ietf:params:xml:ns:xmpp-sasl'>"
        + "<mechanism>SCRAM-SHA-1</mechanism><mechanism>SCRAM-SHA-1-PLUS</mechanism></mechanisms></stream:features>"

    func testFramerCutsStanzasAcrossArbitraryChunks() throws {
        let text =
            serverOpening + " \n<iq type='result' id='a1' to='x@y/z'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'><jid>x@y/z</jid></bind></iq>"
            + "<message from='a@b/c' id=\"q>1\"><body>1 &lt; 2 &amp; \"quoted\" &gt;</body></message><presence/></stream:stream>"
        let bytes = Array(text.utf8)
        // Every chunk size from 1 byte to all at once gives the same parts.
        var reference: [XMPPFramer.Part]?
        for chunk in [1, 2, 3, 7, 64, bytes.count] {
            var framer = XMPPFramer()
            var parts: [XMPPFramer.Part] = []
            var i = 0
            while i < bytes.count {
                parts += try framer.feed(bytes[i..<min(i + chunk, bytes.count)])
                i += chunk
            }
            if let reference { XCTAssertEqual(parts, reference, "chunk \(chunk)") } else { reference = parts }
        }
        let parts = try XCTUnwrap(reference)
        XCTAssertEqual(parts.count, 6)
        guard case .streamOpened(let header, let attributes) = parts[0] else { return XCTFail("\(parts[0])") }
        XCTAssertEqual(attributes["version"], "1.0")
        XCTAssertEqual(attributes["from"], "localhost")
        XCTAssertEqual(parts[5], .streamClosed)
        // Each stanza parses in the header's context: namespaces resolve, entities decode.
        let context = (open: header, close: "</stream:stream>")
        guard case .stanza(let f) = parts[1], case .stanza(let iq) = parts[2], case .stanza(let m) = parts[3] else { return XCTFail() }
        let features = try XML.parse(f, context: context)
        XCTAssertEqual(features.name, "features")
        XCTAssertEqual(features.namespace, "http://etherx.jabber.org/streams")
        XCTAssertEqual(features.child("mechanisms")?.children("mechanism").map(\.text), ["SCRAM-SHA-1", "SCRAM-SHA-1-PLUS"])
        XCTAssertEqual(try XML.parse(iq, context: context).child("bind")?.child("jid")?.text, "x@y/z")
        let message = try XML.parse(m, context: context)
        XCTAssertEqual(message.namespace, "jabber:client")
        XCTAssertEqual(message[attribute: "id"], "q>1")
        XCTAssertEqual(message.child("body")?.text, "1 < 2 & \"quoted\" >")
    }

    func testFramerRefusesWhatXMPPForbidsAndBoundsMemory() {
        let cases: [(String, String)] = [
            ("<!DOCTYPE x [<!ENTITY a 'aaaa'>]>", "restricted-xml"),
            ("<message><!-- hi --></message>", "restricted-xml"),
            ("<?php evil ?>", "restricted-xml"),
            ("</stream:stream><x/>", "not-well-formed")
        ]
        for (input, condition) in cases {
            var framer = XMPPFramer()
            XCTAssertThrowsError(try framer.feed(Array((serverOpening + input).utf8)), input) { error in
                XCTAssertEqual((error as? XMPPFramer.Failure)?.condition, condition, input)
            }
        }
        var notAStream = XMPPFramer()
        XCTAssertThrowsError(try notAStream.feed(Array("<html><body>".utf8)))
        // A stanza that never ends stops at the size limit, even fed a byte at a time.
        var framer = XMPPFramer(maxStanzaBytes: 4096)
        XCTAssertNoThrow(try framer.feed(Array(serverOpening.utf8)))
        XCTAssertThrowsError(
            try {
                _ = try framer.feed(Array("<message><body>".utf8))
                for _ in 0..<5000 { _ = try framer.feed([UInt8(ascii: "a")]) }
            }()
        ) { error in XCTAssertEqual((error as? XMPPFramer.Failure)?.condition, "policy-violation") }
        // So does nesting, and an unclosed tag.
        var deep = XMPPFramer(maxDepth: 16)
        XCTAssertThrowsError(try deep.feed(Array((serverOpening + String(repeating: "<a>", count: 20)).utf8)))
        var open = XMPPFramer(maxStanzaBytes: 1024)
        XCTAssertThrowsError(try open.feed(Array((serverOpening + "<message to='" + String(repeating: "x", count: 2000)).utf8)))
        // Whitespace keepalives between stanzas are not kept: megabytes of them cost nothing.
        var idle = XMPPFramer(maxStanzaBytes: 1024)
        XCTAssertNoThrow(
            try {
                _ = try idle.feed(Array(serverOpening.utf8))
                for _ in 0..<2000 { _ = try idle.feed(Array(repeating: UInt8(ascii: " "), count: 1000)) }
                let parts = try idle.feed(Array("<presence/>".utf8))
                XCTAssertEqual(parts, [.stanza("<presence/>")])
            }())
    }

    func testXMLRefusesEntitiesAndSerializesEscaped() throws {
        XCTAssertThrowsError(try XML.parse("<!DOCTYPE a [<!ENTITY x SYSTEM 'file:///etc/passwd'>]><a>&x;</a>"))
        XCTAssertThrowsError(try XML.parse("<a><b></a>"))
        let e = XML.Element(
            "message", namespace: "jabber:client", attributes: [("to", "a'b@c")],
            children: [XML.Element("body", namespace: "jabber:client", text: "<x> & 'y'")])
        let text = e.serialized()
        XCTAssertEqual(text, "<message xmlns='jabber:client' to='a&apos;b@c'><body>&lt;x&gt; &amp; &apos;y&apos;</body></message>")
        XCTAssertEqual(try XML.parse(text), e)
    }

    /// RFC 5802 §5's example exchange (user "user", password "pencil").
    func testSCRAMSHA1MatchesRFC5802() throws {
        var scram = SCRAM(hash: .sha1, user: "user", password: "pencil", clientNonce: "fyko+d2lbbFgONRv9qkxdawL")
        XCTAssertEqual(scram.clientFirst, "n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL")
        let final = try scram.clientFinal(serverFirst: "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096")
        XCTAssertEqual(final, "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=")
        XCTAssertNoThrow(try scram.verify(serverFinal: "v=rmF9pqV8S7suAoZWja4dJRkFsKQ="))
        XCTAssertThrowsError(try scram.verify(serverFinal: "v=AAAApqV8S7suAoZWja4dJRkFsKQ="), "a server that does not know the password")
    }

    /// RFC 7677 §3's example (SCRAM-SHA-256).
    func testSCRAMSHA256MatchesRFC7677() throws {
        var scram = SCRAM(hash: .sha256, user: "user", password: "pencil", clientNonce: "rOprNGfwEbeRWgbNEkqO")
        let final = try scram.clientFinal(serverFirst: "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096")
        XCTAssertEqual(final, "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
        XCTAssertNoThrow(try scram.verify(serverFinal: "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="))
    }

    func testSCRAMRefusesHostileChallenges() {
        for challenge in [
            "r=other,s=QSXCR+Q6sek8bf92,i=4096", "r=abcX,s=QSXCR+Q6sek8bf92,i=999999999", "r=abcX,s=!!!,i=10",
            "r=abcX,s=QSXCR+Q6sek8bf92", "m=ext,r=abcX,s=QSXCR+Q6sek8bf92,i=10", "r=abcX,s=QSXCR+Q6sek8bf92,i=0"
        ] {
            var scram = SCRAM(hash: .sha1, user: "u", password: "p", clientNonce: "abc")
            XCTAssertThrowsError(try scram.clientFinal(serverFirst: challenge), challenge)
        }
        let scram = SCRAM(hash: .sha1, user: "u", password: "p", clientNonce: "abc")
        XCTAssertThrowsError(try scram.verify(serverFinal: "v=rmF9pqV8S7suAoZWja4dJRkFsKQ="), "no challenge answered yet")
        XCTAssertThrowsError(try scram.verify(serverFinal: "e=invalid-proof"))
    }

    func testJIDs() {
        XCTAssertEqual(JID("Alice@Example.org/phone")?.description, "Alice@example.org/phone")
        XCTAssertEqual(JID("alice@example.org/a/b")?.resource, "a/b")
        XCTAssertEqual(JID("alice@example.org")?.isBare, true)
        XCTAssertEqual(JID("example.org")?.local, nil)
        for bad in ["", "@example.org", "alice@", "alice@example.org/", "a b@example.org", "a@b@c", "alice@exa\nmple.org"] {
            XCTAssertNil(JID(bad), bad)
        }
    }
}
