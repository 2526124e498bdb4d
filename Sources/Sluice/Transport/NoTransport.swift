/// `kind: none`: no WebRTC; each send branch is encoded and discarded (what capture and
/// encoding cost).
struct NoTransport: Transport {
    func prepare(_ c: TransportContext) async throws(RunError) -> TransportSetup {
        try c.buildSendBranches(into: nil)
        return TransportSetup()
    }
}

/// `kind: server`: a file for `sluice serve`, not for `sluice run`.
struct ServerTransport: Transport {
    func prepare(_ c: TransportContext) async throws(RunError) -> TransportSetup {
        throw RunError("this file is for `sluice serve` (transport kind server): serve it with "
            + "`sluice serve --pipeline \(c.spec.file)` or `--receive \(c.spec.file)`", at: c.spec.transport.location)
    }
}
