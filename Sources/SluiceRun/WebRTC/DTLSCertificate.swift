import Crypto
import Foundation
import GStreamer
import Synchronization
import X509

/// The certificate a webrtcbin presents in the DTLS handshake (and whose fingerprint the SDP
/// carries).
///
/// GStreamer 1.22 generates an RSA-2048 certificate by default. Some stacks' DTLS clients
/// offer only ECDHE-ECDSA cipher suites (aiortc; browsers default to ECDSA certificates
/// too), and OpenSSL then fails the handshake with "no shared cipher". Sluice therefore
/// presents an ECDSA P-256 certificate by default, as browsers do, generated once per
/// process; a PEM file can be given instead so that fingerprints stay stable across restarts.
public struct DTLSCertificate: Sendable, Equatable {
    /// The certificate, then the private key, in PEM (what GStreamer's `pem` properties take).
    public let pem: String
    /// SHA-256 fingerprint as SDP writes it (`AB:CD:…`).
    public let fingerprint: String
    /// `ECDSA P-256`, `RSA`, …
    public let keyKind: String
    /// The fingerprint webrtcbin 1.22 writes for this PEM (see `DTLSFingerprint`).
    package let writtenByWebRTCBin: String

    /// A new self-signed ECDSA P-256 certificate, valid from a day ago for 30 days.
    public static func generateECDSA(commonName: String = "sluice") throws -> DTLSCertificate {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName(commonName) }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now - 86400, notValidAfter: now + 30 * 86400,
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: Certificate.Extensions {}, issuerPrivateKey: Certificate.PrivateKey(key))
        return try DTLSCertificate(certificatePEM: certificate.serializeAsPEM().pemString, keyPEM: key.pemRepresentation)
    }

    /// A certificate and its private key from PEM text (one file holding both, or two).
    /// Throws with a reason a user can act on if either is missing or they do not match.
    public init(certificatePEM: String, keyPEM: String) throws {
        // One file may hold both: each is parsed from its own PEM block.
        let certificatePEM = Self.block(certificatePEM, "CERTIFICATE"), keyPEM = Self.privateKeyBlock(keyPEM)
        let certificate: Certificate
        do { certificate = try Certificate(pemEncoded: certificatePEM) } catch {
            throw DTLSCertificateError("no PEM certificate (-----BEGIN CERTIFICATE-----) could be read: \(error)")
        }
        let key: Certificate.PrivateKey
        do { key = try Certificate.PrivateKey(pemEncoded: keyPEM) } catch {
            throw DTLSCertificateError("no PEM private key (-----BEGIN PRIVATE KEY----- or EC/RSA PRIVATE KEY) could be read: \(error)")
        }
        guard key.publicKey == certificate.publicKey else {
            throw DTLSCertificateError("the private key does not belong to the certificate")
        }
        let der = try certificate.serializeAsPEM().derBytes
        fingerprint = SHA256.hash(data: der).map { String(format: "%02X", $0) }.joined(separator: ":")
        keyKind = "\(key.publicKey)".contains("P256") ? "ECDSA P-256" : "\(certificate.signatureAlgorithm)"
        pem = certificatePEM + "\n" + keyPEM + "\n"
        writtenByWebRTCBin = DTLSFingerprint.asWrittenByWebRTCBin(pem: pem)
    }

    /// Reads a PEM file holding the certificate and the private key, or two files.
    public init(certificateFile: String, keyFile: String? = nil) throws {
        let read = { (path: String) throws -> String in
            do { return try String(contentsOfFile: path, encoding: .utf8) } catch {
                throw DTLSCertificateError("cannot read \(path): \(error.localizedDescription)")
            }
        }
        let certText = try read(certificateFile)
        try self.init(certificatePEM: certText, keyPEM: try keyFile.map(read) ?? certText)
    }

    /// The certificate every webrtcbin of this process presents unless told otherwise:
    /// ECDSA P-256, made on first use.
    public static var processDefault: DTLSCertificate { defaultCertificate }
    private static let defaultCertificate: DTLSCertificate = {
        do { return try generateECDSA() } catch {
            // swift-certificates signing with a fresh in-memory key cannot fail in practice;
            // if it ever does, webrtcbin's own (RSA) certificate still works with most peers.
            return DTLSCertificate(pem: "", fingerprint: "", keyKind: "GStreamer default (RSA)")
        }
    }()

    private init(pem: String, fingerprint: String, keyKind: String) {
        self.pem = pem; self.fingerprint = fingerprint; self.keyKind = keyKind; writtenByWebRTCBin = fingerprint
    }

    /// Makes `webrtcbin` present this certificate on every DTLS transport it creates (media
    /// and data channels). Must be called before the first offer or answer.
    ///
    /// webrtcbin 1.22 has no certificate property; each transport's receive bin holds a
    /// `dtlssrtpdec` whose `pem` selects the DTLS agent (certificate) of that connection,
    /// and the SDP fingerprint is read back from it. The receive bin is added to webrtcbin
    /// as the transport is created, before any SDP is written, so setting `pem` there is
    /// in time.
    public func apply(to webrtcbin: Element) {
        guard !pem.isEmpty else { return }
        let pem = pem
        DTLSFingerprintFix.register(written: writtenByWebRTCBin, real: fingerprint)
        // The handler captures only the PEM text.
        webrtcbin.connect("element-added") { (args: borrowing SignalArguments) -> Void in
            guard let bin = args.object(1, as: Bin.self) else { return }
            for child in bin.children where child.factoryName == "dtlssrtpdec" {
                Self.present(pem, on: child)
            }
        }
    }

    /// Sets `pem` on a transport's `dtlssrtpdec` (or a `dtlsdec`), whatever its state.
    ///
    /// Setting `pem` makes the inner `dtlsdec` drop its DTLS connection and make a new one, and
    /// `dtlsdec` connects the handler that accepts the peer's certificate only as it goes from
    /// NULL to READY. A connection made after that refuses every certificate ("certificate
    /// verify failed"). webrtcbin adds a transport's receive bin while the pipeline may be
    /// bringing its children up in another thread (a prerolling pipeline's asynchronous
    /// PAUSED → PLAYING), so `dtlsdec` can already be READY here. Under its state lock, such a
    /// `dtlsdec` is taken back to NULL and up again, which connects the handler to the new
    /// connection. No DTLS packet can have reached it yet: the transport's ICE starts later.
    package static func present(_ pem: String, on element: Element) {
        let dtlsdec = element.factoryName == "dtlsdec" ? element : element.cast(to: Bin.self)?.children.first { $0.factoryName == "dtlsdec" }
        guard let dtlsdec else {
            try? element.set("pem", pem)
            return
        }
        dtlsdec.withStateLock {
            try? element.set("pem", pem)
            let state = dtlsdec.currentState()
            guard state != .null else { return }
            dtlsdec.setState(.null)
            dtlsdec.setState(state)
        }
    }

    private static func block(_ text: String, _ label: String) -> String {
        guard let start = text.range(of: "-----BEGIN \(label)-----"),
            let end = text.range(of: "-----END \(label)-----", range: start.upperBound..<text.endIndex)
        else { return text }
        return String(text[start.lowerBound..<end.upperBound])
    }

    private static func privateKeyBlock(_ text: String) -> String {
        for label in ["PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY"] where text.contains("-----BEGIN \(label)-----") {
            return block(text, label)
        }
        return text
    }
}

/// A DTLS certificate could not be made or read.
public struct DTLSCertificateError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, in words.
    public var description: String
    package init(_ description: String) { self.description = description }
}

/// Puts the real fingerprint of Sluice's DTLS certificates into SDP that webrtcbin wrote
/// (see `DTLSFingerprint.asWrittenByWebRTCBin`): every local offer and answer passes here.
package enum DTLSFingerprintFix {
    private static let table = Mutex<[String: String]>([:])

    package static func register(written: String, real: String) {
        guard written != real else { return }
        table.withLock { $0[written] = real }
    }

    /// `sdp` with each `a=fingerprint:sha-256` value webrtcbin miscomputed replaced.
    package static func correct(_ sdp: String) -> String {
        let fixes = table.withLock { $0 }
        guard !fixes.isEmpty, sdp.contains("a=fingerprint:sha-256 ") else { return sdp }
        var out = sdp
        for (written, real) in fixes where out.contains(written) {
            out = out.replacingOccurrences(of: "a=fingerprint:sha-256 " + written, with: "a=fingerprint:sha-256 " + real)
        }
        return out
    }
}
