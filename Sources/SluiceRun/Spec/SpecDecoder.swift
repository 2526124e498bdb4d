import Foundation

/// An element the file names (or whose properties it sets), kept with the positions needed
/// to blame it once the element catalog is consulted.
package struct SpecElementUse: Sendable {
    package var factory: String
    /// Position of the factory name (or, for an encoder Sluice picks, of the `encode:` key).
    package var location: SourceLocation
    /// False for an element Sluice picks itself (only its properties are checked here; whether
    /// it is installed is checked with `DefaultElements.required(for:)`).
    package var named: Bool
    package var properties: [SpecPropertyUse]
}

/// A `name: value` property with the positions of both.
package struct SpecPropertyUse: Sendable {
    package var name: String
    package var nameLocation: SourceLocation
    package var value: String
    package var valueLocation: SourceLocation
}

/// A raw gst-launch fragment and the position of its scalar.
package struct SpecFragmentUse: Sendable {
    package var text: String
    package var location: SourceLocation
}

/// Decodes a `SpecNode` tree into a `PipelineSpec`, collecting every problem as a
/// `Diagnostic` rather than stopping at the first. Each section decoder returns a best-effort
/// value (defaults where the file is wrong) so later checks still run; the spec is only
/// returned to callers when there are no diagnostics.
///
/// Locations: every model value with a `location` gets the position of the key that
/// introduced it (`video:` for a branch, `capture:` for a capture, a property's name for a
/// property). A value filled in by default gets the location of the section it defaults
/// within (e.g. a default `encode` gets its branch's location).
public struct SpecDecoder {
    package let file: String
    package var diagnostics: [Diagnostic] = []
    package var elements: [SpecElementUse] = []
    package var fragments: [SpecFragmentUse] = []
    /// Known Swift filters and sources (and the plugin loader); nil leaves their names and
    /// settings unchecked.
    package var swiftCatalog: (any SwiftFilterCatalog)?

    package init(file: String, swiftCatalog: (any SwiftFilterCatalog)? = nil) {
        self.file = file
        self.swiftCatalog = swiftCatalog
    }

    /// Reports a problem of the file at `location` (decoding goes on, so a file's problems are reported together).
    public mutating func fail(_ message: String, at location: SourceLocation) {
        diagnostics.append(Diagnostic(message, at: location))
    }

    // MARK: - Root

    package static let rootKeys = ["version", "name", "description", "plugins", "transport", "send", "receive", "load"]

    package mutating func decode(root: SpecNode) -> PipelineSpec? {
        guard let entries = root.entries else {
            fail(
                "expected a mapping of sections (send, receive, transport, ...) at the top level, got \(root.kindDescription); start the file with e.g. `send:`",
                at: SourceLocation(file: file, line: 1, column: 1))
            return nil
        }
        checkKeys(entries, allowed: Self.rootKeys, context: "at the top level")

        if let entry = entries.entry("version"), let version = integer(entry, range: 0...Int.max), version != 1 {
            fail(
                "unsupported version \(version); this Sluice reads version 1 (write `version: 1` or leave it out)",
                at: entry.value.location)
        }
        var name = Self.defaultName(for: file)
        if let entry = entries.entry("name"), let text = text(entry) { name = text }
        var description: String?
        if let entry = entries.entry("description"), !entry.value.isNull { description = text(entry) }

        // Plugins first: they define filters that the sections below may use.
        let plugins = entries.entry("plugins").map { decodePlugins($0) } ?? []
        let transport = decodeTransport(entries.entry("transport"))
        let sendEntry = entries.entry("send"), receiveEntry = entries.entry("receive")
        let send = sendEntry.map { decodeSend($0) }
        let receive = receiveEntry.map { decodeReceive($0, transport: transport) }
        var spec = combine(
            root: entries, transport: transport, send: send, receive: receive,
            name: name, description: description)
        spec?.plugins = plugins
        if let entry = entries.entry("load") {
            let sections = spec
            spec?.load = decodeLoad(entry, for: sections, transport: entries.entry("transport"))
        }
        return spec
    }

    /// The file's base name without extension (`pipelines/loopback.yaml` → `loopback`).
    package static func defaultName(for file: String) -> String {
        let base = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        return base.isEmpty ? "pipeline" : base
    }

    // MARK: - Combination rules

    /// What decoding one side (`send` or `receive`) produced: the spec and which media keys
    /// were present (even if their branch had errors, so one mistake is reported once).
    package struct Side<Branch> {
        package var key: SpecEntry
        package var video: Branch?
        package var audio: Branch?
        package var present: [MediaKind: SourceLocation] = [:]
        /// `receive.playout` (the receive side only).
        package var playout: ReceivePlayout = .arrival
    }

    /// Applies the rules that involve several sections: at least one branch; the transport
    /// kind's section rules (`Transport.sections`), then its own (`Transport.complete`:
    /// loopback adds a default receive branch for a send branch the file gives none); the
    /// abilities a branch asks of the kind (mosaic, mix, renditions).
    private mutating func combine(
        root: [SpecEntry], transport: TransportSpec,
        send: Side<SendBranchSpec>?, receive: Side<ReceiveBranchSpec>?,
        name: String, description: String?
    ) -> PipelineSpec? {
        var draft = SpecDraft(
            transport: transport, send: send, receive: receive,
            fileStart: SourceLocation(file: file, line: 1, column: 1))
        if draft.sendPresent.isEmpty, draft.receivePresent.isEmpty { failNoBranch(draft) }
        if let kind = transport.kind.transport {
            applySectionRules(kind, to: draft)
            kind.complete(&draft, with: &self)
        }
        checkAbilities(draft)
        guard diagnostics.isEmpty else { return nil }
        let sendSpec = send.map { SendSpec(video: $0.video, audio: $0.audio) }
        let receiveSpec: ReceiveSpec? =
            (draft.receiveVideo == nil && draft.receiveAudio == nil && receive == nil)
            ? nil : ReceiveSpec(video: draft.receiveVideo, audio: draft.receiveAudio, playout: receive?.playout ?? .arrival)
        return PipelineSpec(
            file: file, name: name, description: description, transport: transport,
            send: sendSpec, receive: receiveSpec)
    }

    private mutating func failNoBranch(_ draft: SpecDraft) {
        if let send = draft.send {
            fail(
                "send has no video or audio branch; add one, e.g. `video: {capture: {kind: test}}`",
                at: send.key.keyLocation)
        } else if let receive = draft.receive {
            fail(
                "receive has no video or audio branch, and there is no send section; add `send:` with a video or audio branch",
                at: receive.key.keyLocation)
        } else {
            fail("the file has no send or receive section; add e.g. `send: {video: {capture: {kind: test}}}`", at: draft.fileStart)
        }
    }

    /// `Transport.sections`: a section the kind forbids, one it needs, or either.
    private mutating func applySectionRules(_ kind: any Transport, to draft: SpecDraft) {
        let rules = kind.sections, name = "transport kind '\(kind.kind)'"
        let at = draft.transport.location ?? draft.fileStart
        let noReceive = draft.receivePresent.isEmpty && draft.receive == nil
        switch rules.send {
        case .forbidden(let why): if let send = draft.send { fail("\(name) \(why)", at: send.key.keyLocation) }
        case .required(let what): if draft.send == nil { fail("\(name) \(what)", at: at) }
        case .optional: break
        }
        switch rules.receive {
        case .forbidden(let why): if let receive = draft.receive { fail("\(name) \(why)", at: receive.key.keyLocation) }
        case .required(let what): if noReceive { fail("\(name) \(what)", at: at) }
        case .optional: break
        }
        if let either = rules.eitherNeeded, draft.send == nil, noReceive { fail("\(name) \(either)", at: at) }
    }

    /// Branch features that need a kind with the matching ability.
    private mutating func checkAbilities(_ draft: SpecDraft) {
        let abilities = draft.transport.kind.transport?.abilities ?? []
        if !abilities.contains(.roomStreams) {
            let kinds = TransportRegistry.kindsPhrase { $0.abilities.contains(.roomStreams) }
            if let at = draft.receiveVideo?.mosaic?.location {
                fail("'mosaic' composes the publishers of a room into one picture: it needs \(kinds)", at: at)
            }
            if let at = draft.receiveAudio?.mix {
                fail("'mix' mixes the publishers of a room into one sound: it needs \(kinds)", at: at)
            }
        }
        if !abilities.contains(.renditions), let rung = draft.send?.video?.encode.renditions.first, let at = rung.location {
            let kinds = TransportRegistry.all.filter { $0.abilities.contains(.renditions) }.map { "'\($0.kind)'" }
            fail(
                "renditions are served to WHEP viewers, each moved between them by its own estimate: set transport kind \(KindRegistry<any Transport>.list(kinds)) "
                    + "(sluice serve), or send one stream with encode 'bitrate' (a {min, start, max} range adapts it)", at: at)
        }
        if !abilities.contains(.simulcast), let at = draft.send?.video?.encode.simulcast.first?.location {
            let kinds = TransportRegistry.kindsPhrase { $0.abilities.contains(.simulcast) }
            fail(
                "simulcast layers go to a server that forwards each viewer one of them (or to a peer in a room, which gets "
                    + "the layers it takes): it needs \(kinds); this transport carries one stream (remove 'simulcast')", at: at)
        }
        if !abilities.contains(.renditions), let at = draft.send?.video?.encode.gopCache {
            fail(
                "'gop_cache' starts each WHEP viewer that joins from the stream's latest keyframe: set transport kind 'server' "
                    + "(sluice serve); a single peer gets its keyframe when it connects", at: at)
        }
        if !abilities.contains(.renditions), let at = draft.send?.video?.encode.transcodeForViewers {
            fail(
                "'passthrough: auto' serves each WHEP viewer the source or, if its decoder cannot take the source's profile, "
                    + "the source encoded again: set transport kind 'server' (sluice serve), or use 'passthrough: true'", at: at)
        }
    }

    /// The receive branch loopback adds for a send branch the file gives no receiver:
    /// automatic decoding, no filters, a `stats` sink, located at the send branch.
    package static func defaultReceiveBranch(for send: SendBranchSpec) -> ReceiveBranchSpec {
        ReceiveBranchSpec(
            media: send.media, sink: SinkSpec(kind: .stats, location: send.location),
            location: send.location)
    }

    /// In loopback, a receive branch that restricts `codecs` must accept what is sent.
    package mutating func checkLoopbackCodecs(send: Side<SendBranchSpec>?, receive: [ReceiveBranchSpec]) {
        for branch in receive where !branch.codecs.isEmpty {
            let sent = branch.media == .video ? send?.video : send?.audio
            guard let sent, !branch.codecs.contains(sent.encode.codec) else { continue }
            fail(
                "receive.\(branch.media) accepts \(branch.codecs.map(\.rawValue).joined(separator: ", ")) but send.\(branch.media) sends \(sent.encode.codec.rawValue); add \(sent.encode.codec.rawValue) to codecs or change send.\(branch.media).encode.codec",
                at: codecsLocations[branch.media] ?? branch.location ?? SourceLocation(file: file, line: 1, column: 1))
        }
    }

    /// Where each receive branch's `codecs:` value is, for the loopback codec check.
    package var codecsLocations: [MediaKind: SourceLocation] = [:]

    // MARK: - Keys

    /// Reports every key of `entries` not in `allowed`, at the key, with `hint(key)` or a
    /// did-you-mean (or the list of valid keys when nothing is close).
    package mutating func checkKeys(
        _ entries: [SpecEntry], allowed: [String], context: String,
        hint: (String) -> String? = { _ in nil }
    ) {
        for entry in entries where !allowed.contains(entry.key) {
            var message = "unknown key '\(entry.key)' \(context)"
            if let hint = hint(entry.key) {
                message += "; " + hint
            } else {
                let suggestion = Suggestions.didYouMean(entry.key, in: allowed)
                message += suggestion.isEmpty ? "; valid keys are \(allowed.joined(separator: ", "))" : suggestion
            }
            fail(message, at: entry.keyLocation)
        }
    }

    // MARK: - Typed values

    /// The entries of a mapping value; a null value is an empty mapping.
    public mutating func mapping(_ entry: SpecEntry) -> [SpecEntry]? {
        switch entry.value.content {
        case .mapping(let entries): return entries
        case .scalar(_, isNull: true): return []
        case .reported: return nil
        case .scalar, .sequence:
            fail(
                "expected a mapping for '\(entry.key)', got \(entry.value.kindDescription); write its keys indented below `\(entry.key):`",
                at: entry.value.location)
            return nil
        }
    }

    /// `list(entry)` holding `counts` items: fewer fails with `tooFew` at the entry, more
    /// with `tooMany` (and the count) at the first item too many.
    package mutating func list(
        _ entry: SpecEntry, counts: ClosedRange<Int>, tooFew: String, tooMany: String
    ) -> [SpecNode]? {
        guard let items = list(entry) else { return nil }
        guard items.count >= counts.lowerBound else {
            fail(tooFew, at: entry.value.location)
            return nil
        }
        guard items.count <= counts.upperBound else {
            fail("\(tooMany), got \(items.count)", at: items[counts.upperBound].location)
            return nil
        }
        return items
    }

    /// The items of a list value; a single scalar is a one-item list, null an empty one.
    public mutating func list(_ entry: SpecEntry) -> [SpecNode]? {
        switch entry.value.content {
        case .sequence(let items): return items
        case .scalar(_, isNull: true): return []
        case .scalar: return [entry.value]
        case .reported: return nil
        case .mapping:
            fail(
                "expected a list for '\(entry.key)', got a mapping; write `\(entry.key): [a, b]` or one `- item` per line",
                at: entry.value.location)
            return nil
        }
    }

    /// A scalar's text (for a value named `name`, in messages).
    public mutating func text(_ node: SpecNode, name: String) -> String? {
        switch node.content {
        case .scalar(let text, let isNull):
            if isNull {
                fail("missing value for '\(name)'; give it a value or remove the key", at: node.location)
                return nil
            }
            return text
        case .reported:
            return nil
        case .mapping, .sequence:
            fail("expected a single value for '\(name)', got \(node.kindDescription)", at: node.location)
            return nil
        }
    }

    /// A scalar's text; nil after reporting a list, a mapping or nothing.
    public mutating func text(_ entry: SpecEntry) -> String? { text(entry.value, name: entry.key) }

    /// A non-empty text value.
    public mutating func nonEmptyText(_ entry: SpecEntry) -> String? {
        guard let text = text(entry) else { return nil }
        if text.trimmingCharacters(in: .whitespaces).isEmpty {
            fail("'\(entry.key)' is empty; give it a value or remove the key", at: entry.value.location)
            return nil
        }
        return text
    }

    /// An integer within `range`; nil after reporting anything else.
    public mutating func integer(_ node: SpecNode, name: String, range: ClosedRange<Int>) -> Int? {
        guard let text = text(node, name: name) else { return nil }
        switch SpecScalars.integer(text) {
        case .value(let value):
            if range.contains(value) { return value }
            fail("'\(name)' must be \(Self.describe(range)), got \(value)", at: node.location)
        case .tooLarge:
            fail("'\(name)' must be \(Self.describe(range)), got \(text)", at: node.location)
        case .notAnInteger:
            fail("expected an integer for '\(name)', got '\(text)'", at: node.location)
        }
        return nil
    }

    /// An integer within `range`; nil after reporting anything else.
    public mutating func integer(_ entry: SpecEntry, range: ClosedRange<Int>) -> Int? {
        integer(entry.value, name: entry.key, range: range)
    }

    package static func describe(_ range: ClosedRange<Int>) -> String {
        if range.upperBound == Int.max { return "at least \(range.lowerBound)" }
        return "between \(range.lowerBound) and \(range.upperBound)"
    }

    /// A number; nil after reporting anything else.
    public mutating func number(_ entry: SpecEntry) -> Double? {
        guard let text = text(entry) else { return nil }
        guard let value = SpecScalars.number(text) else {
            fail("expected a number for '\(entry.key)', got '\(text)'", at: entry.value.location)
            return nil
        }
        return value
    }

    /// A `true`/`false` value; nil after reporting anything else.
    public mutating func bool(_ entry: SpecEntry) -> Bool? {
        guard let text = text(entry) else { return nil }
        guard let value = SpecScalars.bool(text) else {
            fail("expected true or false for '\(entry.key)', got '\(text)'", at: entry.value.location)
            return nil
        }
        return value
    }

    /// One of a fixed set of words, e.g. a codec; `what` names the set in the message:
    /// `unknown codec 'vp7'; expected one of vp8, vp9, h264, opus`.
    public mutating func word(_ node: SpecNode, name: String, what: String, choices: [String]) -> String? {
        guard let text = text(node, name: name) else { return nil }
        if choices.contains(text) { return text }
        fail(
            "unknown \(what) '\(text)'; expected one of \(choices.joined(separator: ", "))"
                + Suggestions.didYouMean(text, in: choices), at: node.location)
        return nil
    }

    package mutating func choice<E: RawRepresentable & CaseIterable>(
        _ entry: SpecEntry, what: String,
        as type: E.Type = E.self
    ) -> E? where E.RawValue == String {
        word(entry.value, name: entry.key, what: what, choices: E.allCases.map(\.rawValue))
            .flatMap(E.init(rawValue:))
    }

    // MARK: - Properties and elements

    /// A `properties:` mapping: every value a scalar, kept as written.
    package mutating func properties(_ entry: SpecEntry) -> (specs: [Property], uses: [SpecPropertyUse]) {
        guard let entries = mapping(entry) else { return ([], []) }
        var specs: [Property] = [], uses: [SpecPropertyUse] = []
        for property in entries {
            guard case .scalar(let value, let isNull) = property.value.content else {
                if case .reported = property.value.content { continue }
                fail(
                    "property '\(property.key)' needs a single value such as 5 or horizontal-flip, got \(property.value.kindDescription)",
                    at: property.value.location)
                continue
            }
            if isNull {
                fail(
                    "missing value for property '\(property.key)'; give it a value or remove it",
                    at: property.value.location)
                continue
            }
            specs.append(Property(name: property.key, value: value, location: property.keyLocation))
            uses.append(
                SpecPropertyUse(
                    name: property.key, nameLocation: property.keyLocation,
                    value: value, valueLocation: property.value.location))
        }
        return (specs, uses)
    }

    /// An element factory name (`element: videoflip`).
    package mutating func factoryName(_ entry: SpecEntry) -> String? {
        guard let name = nonEmptyText(entry) else { return nil }
        let valid = name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_-.+".unicodeScalars.contains($0))
        }
        guard valid else {
            fail(
                "'\(name)' is not an element name; put properties under `properties:`, or use `gst:` for a launch fragment",
                at: entry.value.location)
            return nil
        }
        return name
    }

    /// A gst-launch fragment, remembered for the catalog check.
    package mutating func fragment(_ entry: SpecEntry) -> String? {
        guard let text = nonEmptyText(entry) else { return nil }
        fragments.append(SpecFragmentUse(text: text, location: entry.value.location))
        return text
    }
}
