import Foundation

/// Reads a pipeline file into a validated `PipelineSpec`.
///
/// Steps: parse the YAML (keeping every node's position), substitute `${VAR}` and
/// `${VAR:-default}` in values, apply `--set path=value` overrides, decode and check every
/// key, type, range and combination, and — when a catalog is given — check that the named
/// and the default elements are installed and that properties and gst fragments are valid.
///
/// All problems are reported together, as `FILE:LINE:COL: message` diagnostics.
///
/// With the `loopback` transport, a medium that is sent but has no `receive` branch gets a
/// default one (`ReceiveBranchSpec(media:)`: automatic decoding, no filters, a `stats` sink)
/// located at the send branch's key, so the spec always describes both ends.
///
/// `--set` values are not `${VAR}`-substituted (the shell has already expanded them).
public struct PipelineLoader: Sendable {
    /// Variables for `${VAR}` substitution.
    public let environment: [String: String]
    /// Installed GStreamer elements; nil skips element checks.
    public let catalog: (any ElementCatalog)?
    /// Known Swift filters and sources, and the loader for `plugins:`; nil skips their checks.
    public let filters: (any SwiftFilterCatalog)?

    /// - Parameters:
    ///   - environment: variables for `${VAR}` substitution.
    ///   - catalog: installed GStreamer elements; nil skips element checks.
    ///   - filters: Swift filters and sources; nil skips their checks.
    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        catalog: (any ElementCatalog)? = nil, filters: (any SwiftFilterCatalog)? = nil
    ) {
        self.environment = environment
        self.catalog = catalog
        self.filters = filters
    }

    /// Reads, substitutes, overrides, decodes and validates the file at `path`.
    ///
    /// - Parameters:
    ///   - path: the pipeline file.
    ///   - overrides: `--set` arguments, `dotted.path=value`, applied in order.
    /// - Throws: `PipelineFileError` with every diagnostic found, sorted by file position
    ///   (overrides last). An unreadable file gives one diagnostic, `FILE: cannot read file: ...`.
    public func load(path: String, overrides: [String] = []) throws(PipelineFileError) -> PipelineSpec {
        let text: String
        switch Self.read(path) {
        case .success(let contents): text = contents
        case .failure(let reason):
            throw PipelineFileError([Diagnostic("cannot read file: \(reason)", at: SourceLocation(file: path))])
        }
        return try load(yaml: text, file: path, overrides: overrides)
    }

    /// Checks the file at `path` as `load` does, except that an unset `${VAR}` (a password
    /// taken from the environment) is not an error: its text stays as written, and a warning
    /// says the variable must be set when the file runs. Returns those warnings, and those of
    /// `warnings(for:)` (`sluice validate`).
    public func check(path: String, overrides: [String] = []) throws(PipelineFileError) -> [Diagnostic] {
        let text: String
        switch Self.read(path) {
        case .success(let contents): text = contents
        case .failure(let reason):
            throw PipelineFileError([Diagnostic("cannot read file: \(reason)", at: SourceLocation(file: path))])
        }
        var warnings: [Diagnostic]? = []
        let spec = try load(yaml: text, file: path, overrides: overrides, unsetWarnings: &warnings)
        return (warnings ?? []) + self.warnings(for: spec)
    }

    /// Like `load(path:overrides:)` for text already in memory; `file` names it in
    /// diagnostics and provides the default `name`.
    public func load(yaml: String, file: String, overrides: [String] = []) throws(PipelineFileError) -> PipelineSpec {
        var none: [Diagnostic]?
        return try load(yaml: yaml, file: file, overrides: overrides, unsetWarnings: &none)
    }

    /// `unsetWarnings`: nil makes an unset variable an error; otherwise it collects warnings.
    private func load(
        yaml: String, file: String, overrides: [String],
        unsetWarnings: inout [Diagnostic]?
    ) throws(PipelineFileError) -> PipelineSpec {
        var diagnostics: [Diagnostic] = []
        var parsedOverrides: [SpecOverrides.Override] = []
        for argument in overrides {
            switch SpecOverrides.parse(argument) {
            case .success(let override): parsedOverrides.append(override)
            case .failure(let error): diagnostics.append(error.diagnostic)
            }
        }

        let (parsed, readDiagnostics) = SpecYAMLReader.read(yaml, file: file)
        diagnostics += readDiagnostics
        let start = SourceLocation(file: file, line: 1, column: 1)
        guard var root = parsed else {
            if readDiagnostics.isEmpty {
                diagnostics.append(
                    Diagnostic(
                        "the file is empty; a pipeline file needs at least a send section, e.g. `send: {video: {capture: {kind: test}}}`",
                        at: start))
            }
            throw sorted(diagnostics, overrides: overrides, file: file)
        }

        EnvSubstitution.apply(to: &root, environment: environment, diagnostics: &diagnostics, unsetWarnings: &unsetWarnings)
        if root.entries != nil {
            diagnostics += SpecOverrides.apply(parsedOverrides, to: &root)
        }
        return try decode(root: root, file: file, start: start, overrides: overrides, earlier: diagnostics)
    }

    /// Decodes and validates a file's tree; `earlier`: problems already found (reading,
    /// substitution, overrides), reported with those of decoding.
    func decode(
        root: SpecNode, file: String, start: SourceLocation, overrides: [String], earlier: [Diagnostic] = []
    ) throws(PipelineFileError) -> PipelineSpec {
        var diagnostics = earlier
        var decoder = SpecDecoder(file: file, swiftCatalog: filters)
        let spec = decoder.decode(root: root)
        diagnostics += decoder.diagnostics

        if let catalog {
            var validator = SpecValidator(catalog: catalog)
            validator.check(elements: decoder.elements, fragments: decoder.fragments)
            if let spec, diagnostics.isEmpty {
                validator.checkRequired(spec, fallback: SourceLocation(file: file))
            }
            diagnostics += validator.diagnostics
        }
        if diagnostics.isEmpty, let spec { return spec }
        if diagnostics.isEmpty {
            // Not expected: decoding failed without saying why. Never return a partial spec.
            diagnostics.append(Diagnostic("the file could not be read as a pipeline", at: start))
        }
        throw sorted(diagnostics, overrides: overrides, file: file)
    }

    /// A `filters:` list on its own (the control API's filter swap): YAML or JSON text whose
    /// root is the list, checked as the same list in a pipeline file would be.
    public func loadFilters(yaml: String, file: String, media: MediaKind) throws(PipelineFileError) -> [FilterSpec] {
        var (parsed, diagnostics) = SpecYAMLReader.read(yaml, file: file)
        let start = SourceLocation(file: file, line: 1, column: 1)
        // No `${VAR}` substitution: text from the network must not read the server's environment.
        guard let root = parsed else {
            if diagnostics.isEmpty { diagnostics.append(Diagnostic("the filter list is empty; write [] to remove every filter", at: start)) }
            throw sorted(diagnostics, overrides: [], file: file)
        }
        var decoder = SpecDecoder(file: file, swiftCatalog: filters)
        let list = decoder.decodeFilters(SpecEntry(key: "filters", keyLocation: start, value: root), media: media)
        diagnostics += decoder.diagnostics
        if let catalog {
            var validator = SpecValidator(catalog: catalog)
            validator.check(elements: decoder.elements, fragments: decoder.fragments)
            diagnostics += validator.diagnostics
        }
        guard diagnostics.isEmpty else { throw sorted(diagnostics, overrides: [], file: file) }
        return list
    }

    /// File diagnostics by position, then override diagnostics in argument order.
    private func sorted(_ diagnostics: [Diagnostic], overrides: [String], file: String) -> PipelineFileError {
        var overrideIndex: [String: Int] = [:]
        for (index, argument) in overrides.enumerated() where overrideIndex[SpecOverrides.fileName(for: argument)] == nil {
            overrideIndex[SpecOverrides.fileName(for: argument)] = index
        }
        func key(_ d: Diagnostic) -> (Int, Int, Int) {
            guard let location = d.location else { return (-1, 0, 0) }
            if location.file == file { return (0, location.line, location.column) }
            return (1 + (overrideIndex[location.file] ?? overrides.count), location.line, location.column)
        }
        let ordered = diagnostics.enumerated().sorted { a, b in
            let ka = key(a.element), kb = key(b.element)
            return ka != kb ? ka < kb : a.offset < b.offset
        }.map(\.element)
        return PipelineFileError(ordered)
    }

    /// The file's text, or why it cannot be read.
    private static func read(_ path: String) -> Result<String, ReadFailure> {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return .failure(ReadFailure("no such file"))
        }
        if isDirectory.boolValue { return .failure(ReadFailure("it is a directory")) }
        guard FileManager.default.isReadableFile(atPath: path) else {
            return .failure(ReadFailure("permission denied"))
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            return .failure(ReadFailure(error.localizedDescription))
        }
        guard let text = String(data: data, encoding: .utf8) else {
            return .failure(ReadFailure("it is not UTF-8 text"))
        }
        return .success(text)
    }

    private struct ReadFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
