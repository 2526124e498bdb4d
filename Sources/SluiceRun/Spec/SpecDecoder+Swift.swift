import Foundation
import SluiceFilterKit

/// Swift filters (`- filter: NAME` with inline settings), Swift sources
/// (`capture: {kind: swift, name: NAME}`) and dynamic plugins (`plugins:`).
extension SpecDecoder {
    /// Keys of a Swift filter item besides its settings.
    package static let swiftFilterKeys = ["filter", "on_error"]

    /// `plugins: [path, ...]`: resolves each path against the pipeline file's directory and
    /// loads it through the catalog, so its filters are known before filters are checked.
    package mutating func decodePlugins(_ entry: SpecEntry) -> [PluginReference] {
        let items: [SpecNode]
        switch entry.value.content {
        case .sequence(let list): items = list
        case .scalar(_, isNull: true), .reported: return []
        case .scalar: items = [entry.value]
        case .mapping:
            fail(
                "expected a list of plugin library paths for 'plugins', got a mapping; write e.g. `plugins: [libMyFilters.so]`",
                at: entry.value.location)
            return []
        }
        var out: [PluginReference] = []
        for item in items {
            guard case .scalar(let text, let isNull) = item.content, !isNull, !text.isEmpty else {
                if case .reported = item.content { continue }
                fail(
                    "a plugin is the path of a shared library (e.g. Plugins/Example/.build/release/libExampleFilters.so), got \(item.kindDescription)",
                    at: item.location)
                continue
            }
            let base = URL(fileURLWithPath: file).deletingLastPathComponent()
            let path = URL(fileURLWithPath: text, relativeTo: base).standardizedFileURL.path
            if let catalog = swiftCatalog, let problem = catalog.loadPlugin(at: path) {
                fail("plugin \(text): \(problem)", at: item.location)
            }
            out.append(PluginReference(path: path, location: item.location))
        }
        return out
    }

    /// A `- filter: NAME` item with its settings and `on_error`; `encoded`: of an
    /// `encoded_filters:` list, which takes encoded-frame filters only (and `filters:` none).
    package mutating func decodeSwiftFilter(
        _ map: [SpecEntry], selector: SpecEntry, media: MediaKind, encoded: Bool = false
    ) -> FilterSpec? {
        guard let name = nonEmptyText(selector) else { return nil }
        var policy = FilterErrorPolicy.pass
        if let e = map.entry("on_error"),
            let word = word(e.value, name: "on_error", what: "error policy", choices: FilterErrorPolicy.allCases.map(\.rawValue))
        {
            policy = FilterErrorPolicy(rawValue: word) ?? .pass
        }
        let settingEntries = map.filter { !Self.swiftFilterKeys.contains($0.key) }
        guard let catalog = swiftCatalog else {
            // Without a catalog (no filters known), keep the settings' text unchecked.
            let settings = settingEntries.compactMap { e in
                e.value.scalarText.map { FilterSetting(name: e.key, value: .string($0), location: e.keyLocation) }
            }
            return FilterSpec(kind: .swift(name: name, settings: settings, onError: policy), location: selector.keyLocation)
        }
        guard let parameters = catalog.filterParameters(name) else {
            let known = catalog.filterNames.sorted()
            let suggestion = Suggestions.didYouMean(name, in: known)
            fail(
                "unknown Swift filter '\(name)'"
                    + (suggestion.isEmpty
                        ? "; available: \(known.joined(separator: ", ")) (or load one with `plugins:`)" : suggestion),
                at: selector.value.location)
            return nil
        }
        guard checkFilterStage(name, catalog: catalog, encoded: encoded, at: selector.value.location) else { return nil }
        if let filterMedia = catalog.filterMedia(name), filterMedia != media {
            let fitting = catalog.filterNames.filter { catalog.filterMedia($0) == media }.sorted()
            fail(
                "'\(name)' is \(filterMedia == .audio ? "an audio" : "a video") filter and this is the \(media) branch"
                    + (fitting.isEmpty ? "" : "; \(media) filters: \(fitting.joined(separator: ", "))"),
                at: selector.value.location)
            return nil
        }
        guard
            let settings = filterSettings(
                settingEntries, parameters: parameters, owner: "filter '\(name)'",
                missingAt: selector.keyLocation)
        else { return nil }
        reportProblems(catalog.filterProblems, of: name, owner: "filter", settings: settings, parameters: parameters, at: selector.value.location)
        return FilterSpec(kind: .swift(name: name, settings: settings, onError: policy), location: selector.keyLocation)
    }

    /// Whether filter `name` belongs in the list it is in: encoded-frame filters in
    /// `encoded_filters:`, raw ones in `filters:`. Reports it at `location` if not.
    private mutating func checkFilterStage(_ name: String, catalog: any SwiftFilterCatalog, encoded: Bool, at location: SourceLocation) -> Bool {
        let isEncoded = catalog.encodedFilterCodecs(name) != nil
        if encoded == isEncoded { return true }
        if isEncoded {
            fail("'\(name)' works on encoded frames: put it in this branch's `encoded_filters:` list", at: location)
        } else {
            let fitting = catalog.filterNames.filter { catalog.encodedFilterCodecs($0) != nil }.sorted()
            fail(
                "'\(name)' works on raw frames: put it in this branch's `filters:` list"
                    + (fitting.isEmpty ? "" : "; encoded-frame filters: \(fitting.joined(separator: ", "))"),
                at: location)
        }
        return false
    }

    /// Checks that each Swift filter of an `encoded_filters:` list handles `codecs` (the
    /// branch's codec, or every codec it may receive), reporting those that do not.
    package mutating func checkEncodedFilterCodecs(_ filters: [FilterSpec], codecs: [Codec], branch: String, advice: String) {
        guard let catalog = swiftCatalog else { return }
        for f in filters {
            guard case .swift(let name, _, _) = f.kind, let handled = catalog.encodedFilterCodecs(name), let at = f.location else {
                continue
            }
            let missing = codecs.filter { !handled.contains($0) }
            guard !missing.isEmpty else { continue }
            fail(
                "'\(name)' handles \(handled.map(\.rawValue).joined(separator: ", ")), not \(missing.map(\.rawValue).joined(separator: ", "))"
                    + " (\(branch)); " + advice,
                at: at)
        }
    }

    /// Checks settings against `parameters`: unknown keys (did-you-mean), kinds, ranges and
    /// required settings. Returns nil if any is wrong (each reported at its position).
    package mutating func filterSettings(
        _ entries: [SpecEntry], parameters: [FilterParameter], owner: String,
        missingAt: SourceLocation
    ) -> [FilterSetting]? {
        let before = diagnostics.count
        let names = parameters.map(\.name)
        var settings: [FilterSetting] = []
        for entry in entries {
            guard let parameter = parameters.first(where: { $0.name == entry.key }) else {
                let suggestion = Suggestions.didYouMean(entry.key, in: names)
                fail(
                    "unknown setting '\(entry.key)' for \(owner)"
                        + (suggestion.isEmpty
                            ? (names.isEmpty ? "; it takes no settings" : "; it takes \(names.joined(separator: ", "))")
                            : suggestion),
                    at: entry.keyLocation)
                continue
            }
            guard let value = filterValue(entry.value, for: parameter) else { continue }
            if let problem = parameter.problem(with: value) {
                fail(problem, at: entry.value.location)
                continue
            }
            settings.append(FilterSetting(name: entry.key, value: value, location: entry.keyLocation))
        }
        for p in parameters where p.defaultValue == nil && !entries.contains(where: { $0.key == p.name }) {
            fail("\(owner) needs setting '\(p.name)' (\(p.kind.expected))", at: missingAt)
        }
        return diagnostics.count == before ? settings : nil
    }

    /// A file value as the parameter's kind of value, or nil (reported).
    private mutating func filterValue(_ node: SpecNode, for parameter: FilterParameter) -> FilterValue? {
        let name = parameter.name
        func expected() -> FilterValue? {
            fail(
                "\(name) must be \(parameter.kind.expected), got \(node.scalarText.map { "'\($0)'" } ?? node.kindDescription)",
                at: node.location)
            return nil
        }
        if case .reported = node.content { return nil }
        switch parameter.kind {
        case .integer:
            guard let text = node.scalarText else { return expected() }
            switch SpecScalars.integer(text) {
            case .value(let v): return .integer(v)
            case .tooLarge: fail("\(name) is too large: \(text)", at: node.location); return nil
            case .notAnInteger: return expected()
            }
        case .number:
            guard let text = node.scalarText, let v = SpecScalars.number(text) else { return expected() }
            return .number(v)
        case .boolean:
            guard let text = node.scalarText, let v = SpecScalars.bool(text) else { return expected() }
            return .boolean(v)
        case .string:
            guard let text = node.scalarText else { return expected() }
            return .string(text)
        case .integers:
            guard case .sequence(let items) = node.content else { return expected() }
            var values: [Int] = []
            for item in items {
                guard let text = item.scalarText, case .value(let v) = SpecScalars.integer(text) else {
                    fail(
                        "\(name) must be \(parameter.kind.expected); '\(item.scalarText ?? item.kindDescription)' is not an integer",
                        at: item.location)
                    return nil
                }
                values.append(v)
            }
            return .integers(values)
        }
    }

    /// `capture: {kind: swift, name: NAME, ...settings}` (video only).
    package mutating func decodeSwiftCapture(
        _ map: [SpecEntry], nameEntry: SpecEntry?, media: MediaKind, at location: SourceLocation
    ) -> CaptureSpec.Kind? {
        guard let nameEntry else {
            fail("a swift capture needs 'name' (the \(media == .video ? "FrameSource" : "AudioSource") to run)", at: location)
            return nil
        }
        guard let name = nonEmptyText(nameEntry) else { return nil }
        let settingEntries = map.filter { !(["kind", "name"] + CaptureRegistry.formatKeys(for: media)).contains($0.key) }
        guard let catalog = swiftCatalog else {
            let settings = settingEntries.compactMap { e in
                e.value.scalarText.map { FilterSetting(name: e.key, value: .string($0), location: e.keyLocation) }
            }
            return .swift(name: name, settings: settings)
        }
        guard let parameters = catalog.sourceParameters(name) else {
            let known = catalog.sourceNames.sorted()
            let suggestion = Suggestions.didYouMean(name, in: known)
            fail(
                "unknown Swift source '\(name)'" + (suggestion.isEmpty ? "; available: \(known.joined(separator: ", "))" : suggestion),
                at: nameEntry.value.location)
            return nil
        }
        if let sourceMedia = catalog.sourceMedia(name), sourceMedia != media {
            let fitting = catalog.sourceNames.filter { catalog.sourceMedia($0) == media }.sorted()
            fail(
                "'\(name)' is \(sourceMedia == .audio ? "an audio" : "a video") source and this is the \(media) branch"
                    + (fitting.isEmpty ? "" : "; \(media) sources: \(fitting.joined(separator: ", "))"),
                at: nameEntry.value.location)
            return nil
        }
        guard
            let settings = filterSettings(
                settingEntries, parameters: parameters, owner: "source '\(name)'",
                missingAt: nameEntry.keyLocation)
        else { return nil }
        reportProblems(catalog.sourceProblems, of: name, owner: "source", settings: settings, parameters: parameters, at: nameEntry.value.location)
        return .swift(name: name, settings: settings)
    }

    /// Reports what `problems` finds in the configuration of `settings`, each at its
    /// setting's location (at `location` for one the file left out).
    private mutating func reportProblems(
        _ problems: (String, FilterConfiguration) -> [FilterSettingProblem], of name: String, owner: String,
        settings: [FilterSetting], parameters: [FilterParameter], at location: SourceLocation
    ) {
        let given = Dictionary(settings.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        guard let configuration = try? FilterConfiguration(given, parameters: parameters) else { return }
        for problem in problems(name, configuration) {
            let at = settings.first { $0.name == problem.setting }?.location ?? location
            fail("\(owner) '\(name)': \(problem.message)", at: at)
        }
    }
}
