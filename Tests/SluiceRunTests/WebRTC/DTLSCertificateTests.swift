import GStreamer
import SluiceTestSupport
import XCTest
@testable import SluiceRun

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

    /// `transport.dtls` in a pipeline file: read relative to the file, and a loopback run
    /// with it delivers media (both ends present it; webrtcbin checks nothing, so the
    /// fingerprint each side would verify is the certificate's own).
    func testAPipelineFileCanGiveTheCertificate() async throws {
        try requireLoopbackOnlyNetwork()
        let c = try DTLSCertificate.generateECDSA(commonName: "from-the-file")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-dtls-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try c.pem.write(to: dir.appendingPathComponent("dtls.pem"), atomically: true, encoding: .utf8)
        let yaml = """
            transport:
              ice: { addresses: [127.0.0.1], connect_timeout: 5 }
              dtls: { certificate: dtls.pem }
            send:
              video:
                capture: { kind: test, width: 320, height: 240, fps: 30 }
                encode: { codec: vp8, bitrate: 500 }
            receive:
              video: { sink: stats }
            """
        let spec = try PipelineLoader(environment: [:], catalog: GStreamerCatalog())
            .load(yaml: yaml, file: dir.appendingPathComponent("test.yaml").path)
        XCTAssertEqual(spec.transport.dtlsCertificate?.fingerprint, c.fingerprint)
        XCTAssertEqual(WebRTCRecipe(transport: spec.transport).certificate, c)
        let summary = try await PipelineRun(spec: spec).run(options: RunOptions(duration: 2))
        XCTAssertGreaterThan(summary.receive.video?.frames ?? 0, 20)
    }

    /// A certificate given to a transport whose `dtlsdec` is already READY (webrtcbin adds the
    /// receive bin while another thread may be bringing the pipeline up) still accepts the
    /// peer: the handshake between two `dtlssrtpenc`/`dtlssrtpdec` ends completes, and each end
    /// read the other's certificate. Before `present` took such an element down and up again,
    /// the new connection refused every certificate ("certificate verify failed"), about one
    /// WHEP `?at=` playback in four.
    func testACertificateGivenToARunningTransportStillAcceptsThePeer() throws {
        let a = try DTLSCertificate.generateECDSA(commonName: "end-a")
        let b = try DTLSCertificate.generateECDSA(commonName: "end-b")
        let pipeline = Pipeline(name: "dtls-pair")
        let idA = "sluice-test-a-\(UUID().uuidString)", idB = "sluice-test-b-\(UUID().uuidString)"
        let encA = try Element.make("dtlssrtpenc"), decA = try Element.make("dtlssrtpdec")
        let encB = try Element.make("dtlssrtpenc"), decB = try Element.make("dtlssrtpdec")
        for (element, id) in [(encA, idA), (decA, idA), (encB, idB), (decB, idB)] { try element.set("connection-id", id) }
        try encA.set("is-client", true)
        try encB.set("is-client", false)
        try pipeline.add([decA, encB, decB])
        try encB.link(decA)
        DTLSCertificate.present(b.pem, on: decB)
        XCTAssertNotEqual(decA.setState(.ready), .failure, "end A's dtlsdec is up before its certificate")
        DTLSCertificate.present(a.pem, on: decA)
        // Everything but the client end runs first; the client joins the running pipeline
        // the way webrtcbin adds its elements, and starts the handshake at once. Setting a
        // stopped pipeline going takes every child through READY again, so a server end made
        // PLAYING before it would be stopped and restarted: A's first flight then reached a
        // stopped connection and the restarted one failed on the retransmission ("Fatal SSL
        // error", "tls_process_client_hello:length mismatch"), more than half the runs on a
        // busy machine.
        XCTAssertNotEqual(pipeline.setState(.playing), .failure)
        defer { pipeline.setState(.null) }
        try pipeline.add([encA])
        try encA.link(decB)
        XCTAssertTrue(encA.syncStateWithParent(), "the client end joins the running pipeline")
        let deadline = ContinuousClock.now + .seconds(10)
        var peers: (ofA: String?, ofB: String?) = (nil, nil)
        while ContinuousClock.now < deadline, peers.ofA == nil || peers.ofB == nil {
            if let message = pipeline.bus.pop(timeout: 50_000_000), message.kind == .error {
                XCTFail("the handshake failed: \(message.parsedError?.message ?? "?") \(message.parsedError?.debug ?? "")")
                return
            }
            peers = (decA.get("peer-pem", as: String.self), decB.get("peer-pem", as: String.self))
        }
        let certificateOf = { (pem: String) in String(pem[..<pem.range(of: "-----BEGIN PRIVATE KEY-----")!.lowerBound]) }
        XCTAssertEqual(peers.ofA.map(Self.certificateLines), Self.certificateLines(certificateOf(b.pem)), "end A saw B's certificate")
        XCTAssertEqual(peers.ofB.map(Self.certificateLines), Self.certificateLines(certificateOf(a.pem)), "end B saw A's certificate")
    }

    private static func certificateLines(_ pem: String) -> [Substring] {
        pem.split(whereSeparator: \.isNewline).filter { !$0.isEmpty }
    }
}
