import Foundation
import GStreamer
import Synchronization

/// `ElementCatalog` backed by this machine's GStreamer registry.
///
/// Property checks instantiate the element once per factory and cache it; the cache is
/// behind a Mutex because validation may run from any task.
public final class GStreamerCatalog: ElementCatalog {
    private let cache = Mutex<[String: Element]>([:])

    public init() { Gst.initialize() }

    public func isInstalled(_ factory: String) -> Bool { Registry.hasElement(factory) }

    public func installedFactories() -> [String] { Registry.factories().map(\.name) }

    private func instance(_ factory: String) -> Element? {
        cache.withLock { c in
            if let e = c[factory] { return e }
            guard let e = try? Element.make(factory) else { return nil }
            c[factory] = e
            return e
        }
    }

    public func propertyNames(of factory: String) -> [String]? {
        instance(factory)?.writablePropertyNames
    }

    public func checkProperty(factory: String, property: String, value: String) -> String? {
        guard let e = instance(factory) else { return "element '\(factory)' is not installed" }
        guard let type = e.propertyType(property) else { return "\(factory) has no property '\(property)'" }
        if Value.deserialize(value, as: type) != nil { return nil }
        return "'\(value)' is not a valid \(Value.typeName(type)) for \(factory).\(property)"
    }

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
