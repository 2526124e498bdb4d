import SluiceSignalling
import XCTest

/// The mDNS wire format against packets python-zeroconf 0.154 built (a foreign
/// implementation: Tests/SluiceSignallingTests keeps their bytes), and hostile packets.
final class DNSMessageTests: XCTestCase {
    static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 2)
            out.append(UInt8(hex[i..<j], radix: 16)!)
            i = j
        }
        return out
    }

    /// A DNS-SD answer for `Kitchen Camera._sluice._tcp.local.` (PTR, SRV, TXT, and an A record
    /// as additional), compressed as zeroconf compresses.
    static let zeroconfResponse = bytes(
        "000084000000000300000001075f736c75696365045f746370056c6f63616c00000c00010000119400110e4b69746368656e2043616d657261c00cc02a002180010000007800140000000020fb0b6b69746368656e2d63616dc019c02a001080010000119400261073747265616d733d63616d2c646f6f7210636f646563733d683236342c6f70757303763d31c04d000180010000007800040a000007"
    )
    /// A query for the service type (PTR) and for a host's address asking for a unicast answer (QU).
    static let zeroconfQuery = bytes("000000000002000000000000075f736c75696365045f746370056c6f63616c00000c00010b6b69746368656e2d63616dc01900018001")
    /// A goodbye: the PTR with TTL 0.
    static let zeroconfGoodbye = bytes("000084000000000100000000075f736c75696365045f746370056c6f63616c00000c00010000000000110e4b69746368656e2043616d657261c00c")

    func testReadsZeroconfsServiceAnswer() throws {
        let m = try DNSMessage(bytes: Self.zeroconfResponse)
        XCTAssertTrue(m.isResponse)
        XCTAssertTrue(m.isAuthoritative)
        XCTAssertEqual(m.answers.count, 3)
        XCTAssertEqual(m.answers[0], DNSRecord(name: "_sluice._tcp.local", data: .ptr("Kitchen Camera._sluice._tcp.local"), ttl: 4500))
        XCTAssertEqual(
            m.answers[1],
            DNSRecord(
                name: "Kitchen Camera._sluice._tcp.local",
                data: .srv(priority: 0, weight: 0, port: 8443, target: "kitchen-cam.local"), ttl: 120, cacheFlush: true))
        XCTAssertEqual(m.answers[2].data, .txt(["streams=cam,door", "codecs=h264,opus", "v=1"]))
        XCTAssertTrue(m.answers[2].cacheFlush)
        XCTAssertEqual(m.additionals, [DNSRecord(name: "kitchen-cam.local", data: .a("10.0.0.7"), ttl: 120, cacheFlush: true)])
    }

    func testReadsZeroconfsQueryAndGoodbye() throws {
        let q = try DNSMessage(bytes: Self.zeroconfQuery)
        XCTAssertFalse(q.isResponse)
        XCTAssertEqual(
            q.questions,
            [
                DNSQuestion(name: "_sluice._tcp.local", type: .ptr),
                DNSQuestion(name: "kitchen-cam.local", type: .a, unicastResponse: true)
            ])
        let bye = try DNSMessage(bytes: Self.zeroconfGoodbye)
        XCTAssertEqual(bye.answers.first?.ttl, 0)
        XCTAssertEqual(bye.answers.first?.data, .ptr("Kitchen Camera._sluice._tcp.local"))
    }

    /// What Sluice writes reads back the same, compressed (each repeated suffix a pointer),
    /// and byte for byte as zeroconf wrote the same goodbye.
    func testWritesWhatItReadsAndCompresses() throws {
        let m = try DNSMessage(bytes: Self.zeroconfResponse)
        let again = try m.encoded()
        XCTAssertEqual(try DNSMessage(bytes: again), m)
        XCTAssertLessThanOrEqual(again.count, Self.zeroconfResponse.count + 8, "names are compressed")
        XCTAssertEqual(try DNSMessage(bytes: Self.zeroconfGoodbye).encoded(), Self.zeroconfGoodbye)
        // An instance name with a dot in it, and IPv6.
        let odd = DNSMessage(
            isResponse: true,
            answers: [
                DNSRecord(name: "Cam 1\\.5._sluice._tcp.local", data: .aaaa("fe80::1"), ttl: 120),
                DNSRecord(name: "x.local", data: .txt([]), ttl: 0)
            ])
        XCTAssertEqual(try DNSMessage(bytes: odd.encoded()), odd)
    }

    func testHostilePacketsAreErrorsNotTraps() {
        var rng = SystemRandomNumberGenerator()
        // Every truncation of a real packet.
        for n in 0..<Self.zeroconfResponse.count {
            XCTAssertThrowsError(try DNSMessage(bytes: Array(Self.zeroconfResponse.prefix(n))), "truncated at \(n)")
        }
        // A compression pointer to itself, and one pointing forwards.
        var loop = Array(Self.zeroconfQuery.prefix(12))
        loop[5] = 1 // one question
        loop += [0xC0, 12, 0, 1, 0, 1]
        XCTAssertThrowsError(try DNSMessage(bytes: loop)) { XCTAssertTrue("\($0)".contains("forwards"), "\($0)") }
        // Counts that claim more than the packet holds, or than any packet may.
        var huge = Self.zeroconfQuery
        huge[4] = 0xFF; huge[5] = 0xFF
        XCTAssertThrowsError(try DNSMessage(bytes: huge))
        // An A record with 5 bytes; a label with reserved bits; oversize packets.
        var badA = Self.zeroconfResponse
        badA[badA.count - 5] = 5
        XCTAssertThrowsError(try DNSMessage(bytes: badA + [0]))
        XCTAssertThrowsError(try DNSMessage(bytes: Array(Self.zeroconfQuery.prefix(12)) + [0x80]))
        XCTAssertThrowsError(try DNSMessage(bytes: [UInt8](repeating: 0, count: 9001)))
        // Random bytes and random corruptions: errors or messages, never a trap or a hang.
        for _ in 0..<3000 {
            var p = Self.zeroconfResponse
            for _ in 0..<Int.random(in: 1...8, using: &rng) { p[Int.random(in: 0..<p.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng) }
            _ = try? DNSMessage(bytes: p)
            _ = try? DNSMessage(bytes: (0..<Int.random(in: 0...600, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        }
        // Names that cannot be written.
        XCTAssertThrowsError(try DNSMessage(questions: [DNSQuestion(name: String(repeating: "a", count: 64) + ".local", type: .a)]).encoded())
        XCTAssertThrowsError(try DNSMessage(answers: [DNSRecord(name: "x.local", data: .a("10.0.0"), ttl: 1)]).encoded())
    }
}
