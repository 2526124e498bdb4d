/// `filters:` lists (send and receive).
extension SpecDecoder {
    /// The kinds of filter item, each selected by one key, with the other keys it allows.
    /// A new kind (e.g. Swift filters, `- filter: NAME` with inline config) is one more case
    /// here and one more branch in `decodeFilterItem`.
    package enum FilterItemKind: String, CaseIterable {
        case element, gst, filter

        package var extraKeys: [String] {
            switch self {
            case .element: ["properties"]
            case .gst, .filter: []
            }
        }
    }

    package static let filterItemUsage = "a filter is a mapping such as `- element: videoflip`, `- gst: \"videoflip method=clockwise\"` or `- filter: pixelate`"

    /// A `filters:` list (raw frames), or with `encoded` an `encoded_filters:` list.
    package mutating func decodeFilters(_ entry: SpecEntry, media: MediaKind, encoded: Bool = false) -> [FilterSpec] {
        let items: [SpecNode]
        switch entry.value.content {
        case .sequence(let list): items = list
        case .scalar(_, isNull: true), .reported: return []
        case .scalar, .mapping:
            fail(
                "expected a list for '\(entry.key)', got \(entry.value.kindDescription); write one `- element: NAME` or `- gst: \"...\"` per line",
                at: entry.value.location)
            return []
        }
        var filters: [FilterSpec] = []
        for item in items {
            switch item.content {
            case .mapping(let map):
                if let filter = decodeFilterItem(map, media: media, encoded: encoded, at: item.location) { filters.append(filter) }
            case .reported:
                continue
            case .scalar, .sequence:
                fail(Self.filterItemUsage + ", got \(item.kindDescription)", at: item.location)
            }
        }
        return filters
    }

    private mutating func decodeFilterItem(
        _ map: [SpecEntry], media: MediaKind, encoded: Bool, at location: SourceLocation
    ) -> FilterSpec? {
        let selectors = map.filter { FilterItemKind(rawValue: $0.key) != nil }
        let kind = selectors.count == 1 ? selectors.first.flatMap { FilterItemKind(rawValue: $0.key) } : nil
        let allowed =
            kind.map { [$0.rawValue] + $0.extraKeys }
            ?? FilterItemKind.allCases.flatMap { [$0.rawValue] + $0.extraKeys }
        let before = diagnostics.count
        if kind != .filter { // a Swift filter's other keys are its settings, checked by decodeSwiftFilter
            checkKeys(map, allowed: allowed, context: "in filter") { key in
                FilterItemKind(rawValue: key) != nil ? "a filter item has exactly one of 'element', 'gst' or 'filter'" : nil
            }
        }
        if selectors.count > 1 {
            fail(
                "a filter item has both '\(selectors[0].key)' and '\(selectors[1].key)'; split it into two items, one per filter",
                at: location)
            return nil
        }
        guard let kind, let selector = selectors.first else {
            if diagnostics.count == before {
                fail("a filter item needs 'element', 'gst' or 'filter'; " + Self.filterItemUsage, at: location)
            }
            return nil
        }
        switch kind {
        case .element:
            guard let factory = factoryName(selector) else { return nil }
            var specs: [Property] = [], uses: [SpecPropertyUse] = []
            if let properties = map.entry("properties") { (specs, uses) = self.properties(properties) }
            elements.append(
                SpecElementUse(
                    factory: factory, location: selector.value.location,
                    named: true, properties: uses))
            return FilterSpec(kind: .element(factory: factory, properties: specs), location: selector.keyLocation)
        case .gst:
            guard let text = fragment(selector) else { return nil }
            return FilterSpec(kind: .gst(text), location: selector.keyLocation)
        case .filter:
            return decodeSwiftFilter(map, selector: selector, media: media, encoded: encoded)
        }
    }
}
