import Foundation
import GStreamer
import Synchronization

/// `ElementCatalog` backed by this machine's GStreamer registry.
///
/// Property checks instantiate the element once per factory and cache it; the cache is
/// behind a Mutex because validation may run from any task.
public final class GStreamerCatalog: ElementCatalog {
    private let cache = Mutex<[String: Element]>([:])

    /// A catalog of this machine's GStreamer elements; initialises GStreamer if it is not yet.
    public init() { Gst.initialize() }

    /// Whether the GStreamer registry has an element factory of this name.
    public func isInstalled(_ factory: String) -> Bool { Registry.hasElement(factory) }

    /// The names of all element factories in the GStreamer registry.
    public func installedFactories() -> [String] { Registry.factories().map(\.name) }

    private func instance(_ factory: String) -> Element? {
        cache.withLock { c in
            if let e = c[factory] { return e }
            guard let e = try? Element.make(factory) else { return nil }
            c[factory] = e
            return e
        }
    }

    /// The element's writable property names, or nil if the factory cannot be instantiated (not installed).
    public func propertyNames(of factory: String) -> [String]? {
        instance(factory)?.writablePropertyNames
    }

    /// nil if `value` deserialises as the property's GStreamer type, otherwise a short reason
    /// (element not installed, no such property, or not a valid value of that type).
    public func checkProperty(factory: String, property: String, value: String) -> String? {
        guard let e = instance(factory) else { return "element '\(factory)' is not installed" }
        guard let type = e.propertyType(property) else { return "\(factory) has no property '\(property)'" }
        if Value.deserialize(value, as: type) != nil { return nil }
        return "'\(value)' is not a valid \(Value.typeName(type)) for \(factory).\(property)"
    }

    /// nil if the gst-launch fragment parses into a bin, otherwise GStreamer's error message.
    public func checkFragment(_ fragment: String) -> String? {
        do {
            _ = try Bin.parse(fragment)
            return nil
        } catch {
            return error.message
        }
    }
}

extension PipelineLoader {
    /// A loader that checks against this machine's GStreamer elements and the Swift filters
    /// registered in this process: what a running program uses for files it receives.
    public static func runtime(environment: [String: String] = ProcessInfo.processInfo.environment) -> PipelineLoader {
        PipelineLoader(environment: environment, catalog: GStreamerCatalog(), filters: FilterRegistry.shared)
    }
}
