import SluiceLoad
import SluiceRun

/// The transport kinds Sluice ships that speak to other services, one folder each with
/// everything of the kind: its `Transport`, its session, its settings and their decoding, and
/// its `sluice load` adapter. `SluiceRun` itself ships only the kinds the run needs
/// (`loopback`, `none`, `server`).
public enum SluiceTransports {
    /// Registers every kind of this module with `TransportRegistry` and its load adapters
    /// with `LoadAdapters`, as kinds Sluice ships (a kind a program registered under the
    /// same name still wins). Call it once at start, before reading a pipeline file; calling
    /// it again does nothing. The `sluice` CLI and `SluiceServer` call it.
    public static func registerBuiltIns() { _ = registered }

    private static let registered: Void = {
        TransportRegistry.kinds.addBuiltIn([
            WHEPTransport(), WHIPTransport(), AppRTCTransport(), LANTransport(), XMPPTransport(),
            JanusTransport(), CastTransport(), CameraTransport()
        ])
        LoadAdapters.kinds.addBuiltIn([
            WHEPLoadAdapter(), WHIPLoadAdapter(), JanusLoadAdapter(), CameraLoadAdapter(), AppRTCLoadAdapter()
        ])
    }()
}
