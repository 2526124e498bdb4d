import Foundation
import SluiceSignalling
import SluiceTestSupport
import XCTest

/// The XMPP client stream against a real server: Debian's prosody on loopback (each test
/// starts its own). Run inside a loopback-only namespace, like every socket test.
final class XMPPClientTests: XCTestCase {
    private func config(
        _ user: String, _ password: String, _ server: Prosody, tls: XMPPClient.Configuration.TLS = .offered,
        trust: Bool = true
    ) -> XMPPClient.Configuration {
        XMPPClient.Configuration(
            jid: JID("\(user)@localhost/test")!, password: password, host: "127.0.0.1", port: server.port,
            tls: tls, trustRoots: trust ? server.certificate : nil, timeout: 5)
    }

    func testLogsInWithSTARTTLSAndSCRAMAndBindsTheResource() async throws {
        let server = try Prosody(users: ["alice": "secret-a"]).start(for: self)
        let client = try await XMPPClient.connect(config("alice", "secret-a", server, tls: .required))
        XCTAssertEqual(client.jid.description, "alice@localhost/test")
        XCTAssertTrue(client.encrypted)
        XCTAssertTrue(client.mechanism.hasPrefix("SCRAM-SHA-"), client.mechanism)
        await client.close()
    }

    func testWithoutTLSOnOfferLogsInWithSCRAMAndRefusesWhenTLSIsRequired() async throws {
        let server = try Prosody(users: ["alice": "pw"], tls: .off).start(for: self)
        let client = try await XMPPClient.connect(config("alice", "pw", server))
        XCTAssertFalse(client.encrypted)
        XCTAssertTrue(client.mechanism.hasPrefix("SCRAM-SHA-"), client.mechanism)
        await client.close()
        do {
            _ = try await XMPPClient.connect(config("alice", "pw", server, tls: .required))
            XCTFail("logged in without TLS although it was required")
        } catch {
            XCTAssertTrue(error.description.contains("does not offer STARTTLS"), error.description)
        }
    }

    func testAWrongPasswordIsAClearError() async throws {
        let server = try Prosody(users: ["alice": "right"]).start(for: self)
        do {
            _ = try await XMPPClient.connect(config("alice", "wrong", server))
            XCTFail("logged in with a wrong password")
        } catch {
            XCTAssertTrue(error.description.contains("wrong password"), error.description)
        }
    }

    func testAnUntrustedCertificateIsRefused() async throws {
        let server = try Prosody(users: ["alice": "pw"]).start(for: self)
        do {
            _ = try await XMPPClient.connect(config("alice", "pw", server, trust: false))
            XCTFail("trusted a self-signed certificate nobody vouched for")
        } catch {
            XCTAssertTrue(error.description.contains("TLS"), error.description)
        }
    }

    func testTwoClientsExchangeAnIQAndAServerThatVanishesEndsTheStream() async throws {
        let server = try Prosody(users: ["alice": "pa", "bob": "pb"]).start(for: self)
        let alice = try await XMPPClient.connect(config("alice", "pa", server))
        let bob = try await XMPPClient.connect(config("bob", "pb", server))
        // Bob answers the first IQ he gets.
        let answered = Task {
            for await stanza in bob.stanzas where stanza.name == "iq" {
                bob.send(XMPPStanza.result(for: stanza))
                return stanza.child("query")?.namespace
            }
            return nil
        }
        let query = XML.Element("query", namespace: "urn:test:sluice")
        let reply = await alice.request(XMPPStanza.iq("get", to: bob.jid.description, payload: query), timeout: 5)
        XCTAssertEqual(reply?[attribute: "type"], "result")
        let seen = await answered.value
        XCTAssertEqual(seen, "urn:test:sluice")
        // The server goes away: the stream ends with a reason and requests fail at once.
        server.stop()
        for await _ in alice.stanzas {}
        XCTAssertNotNil(alice.endReason)
        let late = await alice.request(XMPPStanza.iq("get", to: bob.jid.description, payload: query), timeout: 5)
        XCTAssertNil(late)
    }

    func testNoServerIsAClearError() async throws {
        let config = XMPPClient.Configuration(jid: JID("a@localhost")!, password: "x", host: "127.0.0.1", port: 1, timeout: 2)
        do {
            _ = try await XMPPClient.connect(config)
            XCTFail("connected to nothing")
        } catch {
            XCTAssertTrue(error.description.hasSuffix("cannot connect to the XMPP server at 127.0.0.1:1: connection refused"), error.description)
        }
    }
}
