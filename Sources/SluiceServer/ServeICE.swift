/// `sluice serve`'s ICE settings for a server behind NAT (a container, a pod, a cloud VM).
public struct ServeICE: Sendable {
    /// Public addresses a 1:1 NAT forwards to this host: each host candidate is also announced
    /// with them (`--ice-public-address`).
    public var publicAddresses: [String] = []
    /// The local ports ICE may bind, for the NAT to forward (`--ice-port-range`); nil: any.
    public var portRange: ClosedRange<Int>?
    /// Whether sessions also offer passive ICE-TCP candidates (`--ice-tcp`). Off by default: a
    /// server behind NAT would offer ports nobody forwards.
    public var tcp = false

    /// No public address, any port, UDP only.
    public init() {}
}
