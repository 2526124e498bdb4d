import Foundation
import SluiceRun

/// `kind: cast`: this run is a Cast receiver. Senders on the network find it by `name`, load
/// media URLs (those `allow` lists) and command it; what plays goes through the receive section.
public struct CastSpec: KindSettings, Equatable {
    /// The name senders show (`_googlecast._tcp` instance, `fn`).
    public var name: String
    /// The TLS port senders connect to (default 8009).
    public var port: Int = 8009
    /// What may be loaded: `scheme:` (every URL of it) or URL prefixes.
    public var allow: [String] = []
    /// The picture size what plays is scaled to (default 1280x720).
    public var width = 1280, height = 720
    /// Settings for a receiver called `name`, on port 8009, allowing nothing, at 1280x720.
    public init(name: String) { self.name = name }
}

extension SpecDecoder {
    package mutating func decodeCast(_ map: [SpecEntry], at location: SourceLocation) -> CastSpec? {
        guard let nameEntry = map.entry("name") else {
            fail("transport kind 'cast' needs a 'name': what Cast senders show for this receiver, e.g. name: Living Room", at: location)
            return nil
        }
        guard let name = nonEmptyText(nameEntry) else { return nil }
        guard name.utf8.count <= 63, !name.contains(where: { $0.isNewline }) else {
            fail("'name' is at most 63 bytes on one line (a DNS-SD instance name)", at: nameEntry.value.location)
            return nil
        }
        var spec = CastSpec(name: name)
        if let entry = map.entry("port"), let port = integer(entry, range: 1...65535) { spec.port = port }
        if let entry = map.entry("size"), let text = nonEmptyText(entry) {
            if let (w, h) = CastReceiver.Options.dimensions(text.lowercased()), (64...3840).contains(w), (64...2160).contains(h) {
                spec.width = w - w % 2
                spec.height = h - h % 2
            } else {
                fail("'size' is WIDTHxHEIGHT (64x64 to 3840x2160), e.g. size: 1280x720; got '\(text.prefix(40))'", at: entry.value.location)
            }
        }
        if let entry = map.entry("allow"), let items = list(entry) {
            for item in items {
                guard let rule = text(item, name: "allow"), !rule.isEmpty else { continue }
                let scheme = rule.hasSuffix(":") ? String(rule.dropLast()).lowercased() : URL(string: rule)?.scheme?.lowercased()
                guard let scheme, ["file", "http", "https"].contains(scheme), rule.count <= 512 else {
                    fail(
                        "an 'allow' entry is a scheme (file:, http:, https:) or a URL prefix such as http://10.0.0.5:8000/media/; got '\(rule.prefix(80))'",
                        at: item.location)
                    continue
                }
                spec.allow.append(rule)
            }
        }
        if map.entry("allow") == nil {
            fail(
                "transport kind 'cast' needs 'allow': what senders may load, e.g. allow: [\"https:\"] or [\"http://10.0.0.5:8000/media/\"]; nothing else is fetched",
                at: location)
        }
        return spec
    }
}
