import SluiceSignalling
import XCTest

/// The DNS-SD cache on python-zeroconf's packets: an instance resolves from PTR, SRV, TXT
/// and A; a goodbye ends it a second later; TTLs expire; a record storm stays bounded.
final class DNSSDCacheTests: XCTestCase {
    let s: UInt64 = 1_000_000_000

    func testResolvesZeroconfsAnswerAndForgetsAtItsGoodbye() throws {
        var cache = DNSSDCache()
        cache.add(try DNSMessage(bytes: DNSMessageTests.zeroconfResponse), nowNs: 10 * s)
        let found = cache.instances(of: "_sluice._tcp", nowNs: 11 * s)
        XCTAssertEqual(
            found,
            [
                ServiceInstance(
                    name: "Kitchen Camera", type: "_sluice._tcp", host: "kitchen-cam.local", port: 8443,
                    addresses: ["10.0.0.7"], txt: ["streams": "cam,door", "codecs": "h264,opus", "v": "1"])
            ])
        XCTAssertEqual(cache.instances(of: "_other._tcp", nowNs: 11 * s), [])
        cache.add(try DNSMessage(bytes: DNSMessageTests.zeroconfGoodbye), nowNs: 20 * s)
        XCTAssertEqual(cache.instances(of: "_sluice._tcp", nowNs: 20 * s + s / 2).count, 1, "a goodbye ends it one second later")
        XCTAssertEqual(cache.instances(of: "_sluice._tcp", nowNs: 21 * s + 1), [])
        // Without a goodbye, the SRV's 120 s TTL ends the host and port; the PTR (4500 s) stays.
        var aging = DNSSDCache()
        aging.add(try DNSMessage(bytes: DNSMessageTests.zeroconfResponse), nowNs: 0)
        let later = aging.instances(of: "_sluice._tcp", nowNs: 200 * s)
        XCTAssertEqual(later.first?.port, 0)
        XCTAssertEqual(later.first?.addresses, [])
    }

    func testARecordStormStaysBounded() throws {
        var cache = DNSSDCache()
        for batch in 0..<40 {
            let answers = (0..<50).map { i in
                DNSRecord(name: "_sluice._tcp.local", data: .ptr("flood \(batch)-\(i)._sluice._tcp.local"), ttl: 4500)
            }
            cache.add(DNSMessage(isResponse: true, answers: answers), nowNs: UInt64(batch) * s)
        }
        XCTAssertEqual(cache.instances(of: "_sluice._tcp", nowNs: 41 * s).count, DNSSDCache.maxNames)
        XCTAssertEqual(ServiceInstance.renamed("Cam"), "Cam (2)")
        XCTAssertEqual(ServiceInstance.renamed("Cam (2)"), "Cam (3)")
        XCTAssertEqual(ServiceInstance.renamed("Cam (x)"), "Cam (x) (2)")
    }
}
