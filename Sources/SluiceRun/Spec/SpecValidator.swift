/// Checks a pipeline file's elements against this machine's GStreamer (an `ElementCatalog`).
///
/// - A named element that is not installed is a `.missingElement` diagnostic when Debian ships
///   it (`KnownElements`), otherwise an "unknown element" file error with a did-you-mean over
///   installed and known names.
/// - Property names of installed elements are checked (did-you-mean over the element's
///   properties), then their values (the catalog's reason, at the value).
/// - gst-launch fragments must parse (`checkFragment`).
/// - Elements Sluice picks itself (`DefaultElements.required(for:)`) must be installed.
///
/// Each missing factory is reported once, at its first use.
package struct SpecValidator {
    package let catalog: any ElementCatalog
    package private(set) var diagnostics: [Diagnostic] = []
    private var reportedMissing: Set<String> = []

    package init(catalog: any ElementCatalog) { self.catalog = catalog }

    package mutating func check(elements: [SpecElementUse], fragments: [SpecFragmentUse]) {
        for use in elements { check(use) }
        for fragment in fragments {
            if let message = catalog.checkFragment(GstLaunchFragment.normalized(fragment.text)) {
                diagnostics.append(
                    Diagnostic(
                        "invalid gst fragment '\(fragment.text)': \(message); check it with gst-launch-1.0",
                        at: fragment.location))
            }
        }
    }

    private mutating func check(_ use: SpecElementUse) {
        guard catalog.isInstalled(use.factory) else {
            if use.named { reportMissing(use.factory, at: use.location, named: true) }
            return
        }
        guard !use.properties.isEmpty else { return }
        let names = catalog.propertyNames(of: use.factory) ?? []
        for property in use.properties {
            guard names.contains(property.name) else {
                let suggestion = Suggestions.didYouMean(property.name, in: names)
                diagnostics.append(
                    Diagnostic(
                        "element '\(use.factory)' has no property '\(property.name)'"
                            + (suggestion.isEmpty ? "; list its properties with gst-inspect-1.0 \(use.factory)" : suggestion),
                        at: property.nameLocation))
                continue
            }
            if let reason = catalog.checkProperty(factory: use.factory, property: property.name, value: property.value) {
                diagnostics.append(
                    Diagnostic(
                        "invalid value '\(property.value)' for \(use.factory) property '\(property.name)': \(reason)",
                        at: property.valueLocation))
            }
        }
    }

    /// Every element the spec needs that Sluice picks itself; `fallback` locates the ones
    /// whose stage has no location (e.g. `webrtcbin` when there is no `transport:`).
    package mutating func checkRequired(_ spec: PipelineSpec, fallback: SourceLocation) {
        for (factory, location) in DefaultElements.required(for: spec) where !catalog.isInstalled(factory) {
            reportMissing(factory, at: location ?? fallback, named: false)
        }
    }

    private mutating func reportMissing(_ factory: String, at location: SourceLocation, named: Bool) {
        guard reportedMissing.insert(factory).inserted else { return }
        if KnownElements.provider(of: factory) != nil || !named {
            diagnostics.append(
                Diagnostic(
                    KnownElements.missingHint(for: factory), at: location,
                    category: .missingElement))
            return
        }
        let candidates = Set(catalog.installedFactories()).union(KnownElements.allNames)
        let suggestion = Suggestions.didYouMean(factory, in: candidates.sorted())
        diagnostics.append(
            Diagnostic(
                "unknown element '\(factory)'" + (suggestion.isEmpty ? "; check the name with gst-inspect-1.0" : suggestion),
                at: location))
    }
}
