extension TransportKind {
    /// For `sluice serve`: the receive section handles what WHIP publishers send, the send
    /// section is what WHEP viewers play.
    public static let server = TransportKind(rawValue: "server")
}

/// `kind: server`: a file for `sluice serve`, not for `sluice run`.
package struct ServerTransport: Transport {
    package let kind = TransportKind.server
    package let abilities: TransportAbilities = [.webRTC, .renditions]

    package func prepare(_ c: TransportContext) async throws(RunError) -> TransportSetup {
        throw RunError(
            "this file is for `sluice serve` (transport kind server): serve it with "
                + "`sluice serve --pipeline \(c.spec.file)` or `--receive \(c.spec.file)`", at: c.spec.transport.location)
    }
}
