import SluiceRun
import SluiceMeasure
extension WebRTCRecipe {
    /// The recipe of a `sluice load` client: the file's transport section, but UDP only unless
    /// the file says `ice.tcp: true`. Over TCP a lost packet is retransmitted by TCP itself, so
    /// a group's `loss` would show as late frames instead of lost packets, NACKs and
    /// retransmissions; browsers too take the UDP pair whenever it works.
    package init(loadClientOf transport: TransportSpec) {
        self.init(transport: transport)
        iceTCP = transport.ice.tcp ?? false
    }
}
