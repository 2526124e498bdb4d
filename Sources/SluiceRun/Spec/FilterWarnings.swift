import SluiceFilterKit

extension PipelineLoader {
    /// What deserves a warning in a valid file: a Swift filter of the send video branch whose
    /// settings do not fit the picture it gets (a `pixelate` region reaching outside the
    /// capture's size, which the filter clips). `check(path:overrides:)` returns these with its
    /// other warnings; `sluice run` prints them before it starts. Filters after a GStreamer
    /// element or fragment are not checked: that element may have scaled the picture.
    public func warnings(for spec: PipelineSpec) -> [Diagnostic] {
        guard let catalog = filters, let video = spec.send?.video else { return [] }
        var out: [Diagnostic] = []
        for filter in video.filters {
            guard case .swift(let name, let settings, _) = filter.kind else { break }
            let given = Dictionary(settings.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
            guard let parameters = catalog.filterParameters(name),
                let configuration = try? FilterConfiguration(given, parameters: parameters)
            else { continue }
            for message in catalog.filterWarnings(name, configuration, width: video.capture.width, height: video.capture.height) {
                out.append(Diagnostic("warning: filter '\(name)': \(message)", at: filter.location))
            }
        }
        return out
    }
}
