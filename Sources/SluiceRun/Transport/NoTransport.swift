extension TransportKind {
    /// No WebRTC at all: each send branch's encoded stream is discarded. Measures what
    /// capture and encoding cost; a file with this kind has no receive section.
    public static let noTransport = TransportKind(rawValue: "none")
}

/// `kind: none`: no WebRTC; each send branch is encoded and discarded (what capture and
/// encoding cost).
package struct NoTransport: Transport {
    package let kind = TransportKind.noTransport
    package let sections = TransportSections(receive: .forbidden("sends nowhere, so there is nothing to receive; remove receive or use kind: loopback"))
    package let abilities: TransportAbilities = []

    package func prepare(_ c: TransportContext) async throws(RunError) -> TransportSetup {
        try c.buildSendBranches(into: nil)
        return TransportSetup()
    }
}
