/// The settings one kind (of transport, capture or sink) decodes from its own keys: each
/// kind's file defines its type, so adding a kind touches no shared spec type.
public protocol KindSettings: Sendable {
    /// Whether `other` holds the same settings (for the spec's equality).
    func isEqual(to other: any KindSettings) -> Bool
    /// The settings without source positions (to compare two files' specs by meaning).
    var positionFree: any KindSettings { get }
    /// The URL of the service a transport kind talks to, if it has one (`sluice load` checks
    /// that its netem groups can reach it).
    var serviceURL: String? { get }
}

extension KindSettings {
    /// By default the settings themselves, for settings that hold no source positions.
    public var positionFree: any KindSettings { self }
    /// By default nil: no service.
    public var serviceURL: String? { nil }
}

extension KindSettings where Self: Equatable {
    /// Compares with `==` when `other` is of the same type; settings of another type are never equal.
    public func isEqual(to other: any KindSettings) -> Bool { (other as? Self) == self }
}

/// A kind's settings, boxed so the spec types stay `Equatable`.
public struct AnyKindSettings: Sendable, Equatable {
    /// The boxed settings.
    public let value: any KindSettings
    /// Boxes `value`.
    public init(_ value: any KindSettings) { self.value = value }
    /// Whether the two boxes hold equal settings (see `KindSettings.isEqual(to:)`).
    public static func == (a: AnyKindSettings, b: AnyKindSettings) -> Bool { a.value.isEqual(to: b.value) }
}

/// Which kind a capture or a sink is (`Role`: `CaptureSpec` or `SinkSpec`, so the two are
/// distinct types), and what its own keys said.
public struct KindChoice<Role>: Sendable, Equatable {
    /// The kind's name in pipeline files.
    public let name: String
    /// What the kind's own keys said (nil: it has none).
    public let settings: AnyKindSettings?
    /// The kind named `name` with its own settings (nil: it has none).
    public init(name: String, settings: (any KindSettings)? = nil) {
        self.name = name; self.settings = settings.map(AnyKindSettings.init)
    }
    /// The kind's settings, if they are of type `type`.
    public func settings<S: KindSettings>(as type: S.Type) -> S? { settings?.value as? S }
    /// The same kind with settings free of source positions.
    public var positionFree: KindChoice { KindChoice(name: name, settings: settings?.value.positionFree) }
}

/// Settings of a transport whose far end sends back what this side sends (an echo service
/// such as Janus's EchoTest): `sluice measure` measures the round trip through it.
public protocol EchoingSettings: KindSettings {
    /// Whether, with these settings, what is sent comes back.
    var echoesWhatIsSent: Bool { get }
}
