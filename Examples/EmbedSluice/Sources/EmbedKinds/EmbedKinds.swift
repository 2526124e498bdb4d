import SluiceRun

/// This program's kinds, registered the way any program embedding Sluice adds its own.
public enum EmbedKinds {
    /// Registers `solid` (capture) and `unix` (transport) with Sluice's registries.
    public static func register() {
        CaptureRegistry.register(SolidCapture())
        TransportRegistry.register(UnixSocketTransport())
    }
}
