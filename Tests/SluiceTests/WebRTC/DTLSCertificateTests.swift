import GStreamer
import XCTest
@testable import Sluice

/// Sluice's DTLS certificates: ECDSA P-256 by default, PEM files accepted, and the SDP
/// fingerprint right even where webrtcbin 1.22 computes it wrongly.
final class DTLSCertificateTests: XCTestCase {
    func testGeneratesAnECDSACertificateWithItsFingerprint() throws {
        let c = try DTLSCertificate.generateECDSA()
        XCTAssertEqual(c.keyKind, "ECDSA P-256")
        XCTAssertTrue(c.pem.contains("-----BEGIN CERTIFICATE-----") && c.pem.contains("-----BEGIN PRIVATE KEY-----"))
        XCTAssertEqual(c.fingerprint.split(separator: ":").count, 32)
        XCTAssertNotEqual(try DTLSCertificate.generateECDSA().fingerprint, c.fingerprint, "a new key each time")
    }

    /// webrtcbin hashes every base64 line of the PEM it is given: right for a certificate
    /// alone, wrong once the private key follows it. The replica must agree with the real
    /// fingerprint in the first case, so it computes what webrtcbin computes.
    func testReplicatesWebRTCBinsFingerprintComputation() throws {
        let c = try DTLSCertificate.generateECDSA()
        let certOnly = String(c.pem[..<c.pem.range(of: "-----BEGIN PRIVATE KEY-----")!.lowerBound])
        XCTAssertEqual(DTLSFingerprint.asWrittenByWebRTCBin(pem: certOnly), c.fingerprint)
        let written = DTLSFingerprint.asWrittenByWebRTCBin(pem: c.pem)
        XCTAssertNotEqual(written, c.fingerprint)
        DTLSFingerprintFix.register(written: written, real: c.fingerprint)
        let sdp = "v=0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=fingerprint:sha-256 \(written)\r\n"
        XCTAssertEqual(DTLSFingerprintFix.correct(sdp), "v=0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=fingerprint:sha-256 \(c.fingerprint)\r\n")
    }

    func testReadsPEMFilesAndRefusesMismatches() throws {
        let a = try DTLSCertificate.generateECDSA(), b = try DTLSCertificate.generateECDSA()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-dtls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let both = dir.appendingPathComponent("both.pem").path
        try a.pem.write(toFile: both, atomically: true, encoding: .utf8)
        XCTAssertEqual(try DTLSCertificate(certificateFile: both).fingerprint, a.fingerprint)
        let mixed = dir.appendingPathComponent("mixed.pem").path
        let aCert = String(a.pem[..<a.pem.range(of: "-----BEGIN PRIVATE KEY-----")!.lowerBound])
        let bKey = String(b.pem[b.pem.range(of: "-----BEGIN PRIVATE KEY-----")!.lowerBound...])
        try (aCert + bKey).write(toFile: mixed, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try DTLSCertificate(certificateFile: mixed)) {
            XCTAssertTrue("\($0)".contains("does not belong"), "\($0)")
        }
        XCTAssertThrowsError(try DTLSCertificate(certificateFile: dir.appendingPathComponent("none.pem").path)) {
            XCTAssertTrue("\($0)".contains("cannot read"), "\($0)")
        }
    }
}
