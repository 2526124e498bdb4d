import Foundation

/// The `load:` section (`LoadSpec`): what `sluice load` makes of the file's client.
extension SpecDecoder {
    package static let loadKeys = ["clients", "ramp", "duration", "decode", "churn", "groups"]
    package static let loadGroupKeys = ["name", "share", "netem", "encoded_filters", "transport"]
    /// How many groups may have `netem`: group k lives in 10.97.k.0/24 and 10.98.k.0/24.
    package static let maxNetemGroups = 254

    /// `spec`: the file's other sections, which a group's encoded filters are checked against;
    /// `transport`: the file's transport section, which a group's `transport` keys replace.
    package mutating func decodeLoad(_ entry: SpecEntry, for spec: PipelineSpec? = nil, transport: SpecEntry? = nil) -> LoadSpec {
        var load = LoadSpec()
        load.location = entry.keyLocation
        guard let map = mapping(entry) else { return load }
        checkKeys(map, allowed: Self.loadKeys, context: "in load")
        if let e = map.entry("clients"), let n = integer(e, range: 1...100_000) { load.clients = n }
        if let e = map.entry("ramp"), let rate = decodeRamp(e) { load.rampPerSecond = rate }
        if let e = map.entry("duration"), let text = text(e) {
            if let s = SpecScalars.durationSeconds(text), s > 0, s <= 86_400 {
                load.durationSeconds = s
            } else {
                fail("invalid duration '\(text)'; write the seconds each client stays, e.g. 60 or 90s (at most a day)", at: e.value.location)
            }
        }
        if let e = map.entry("decode"), let d: LoadSpec.Decode = choice(e, what: "decode choice") { load.decode = d }
        if let e = map.entry("churn"), let share = decodeShare(e, what: "churn", example: "10%") {
            load.churnPerMinute = share
        }
        if let e = map.entry("groups") { load.groups = decodeLoadGroups(e, for: spec, transport: transport) }
        return load
    }

    /// `ramp`: new clients per second, `20/s` or `20`.
    package mutating func decodeRamp(_ entry: SpecEntry) -> Double? {
        guard let text = text(entry) else { return nil }
        guard let rate = LoadSpec.ramp(from: text) else {
            fail("invalid ramp '\(text)'; write new clients per second, more than 0 and at most 1000, e.g. 20/s", at: entry.value.location)
            return nil
        }
        return rate
    }

    /// A share of the crowd: `10%` or `0.1`, 0...1.
    package mutating func decodeShare(_ entry: SpecEntry, what: String, example: String) -> Double? {
        guard let text = text(entry) else { return nil }
        let share: Double? =
            text.hasSuffix("%") ? SpecScalars.number(String(text.dropLast())).map { $0 / 100 } : SpecScalars.number(text)
        guard let share, share >= 0, share <= 1 else {
            fail("invalid \(what) '\(text)'; write a share of the crowd between 0% and 100%, e.g. \(example)", at: entry.value.location)
            return nil
        }
        return share
    }

    /// `groups`: a list of `{name, share, netem, encoded_filters, transport}`; the shares must add up to 100%.
    package mutating func decodeLoadGroups(_ entry: SpecEntry, for spec: PipelineSpec? = nil, transport: SpecEntry? = nil) -> [LoadGroup] {
        guard let items = list(entry) else { return [] }
        var groups: [LoadGroup] = []
        for (i, item) in items.enumerated() {
            guard let map = mapping(SpecEntry(key: "groups", keyLocation: item.location, value: item)) else { continue }
            checkKeys(map, allowed: Self.loadGroupKeys, context: "in a load group")
            var group = LoadGroup(name: "g\(i + 1)", share: 0, location: item.location)
            if let e = map.entry("name"), let name = nonEmptyText(e) { group.name = name }
            if let e = map.entry("share"), let share = decodeShare(e, what: "share", example: "20%") {
                group.share = share
                if share == 0 { fail("a load group's share must be more than 0%; remove the group instead", at: e.value.location) }
            } else if map.entry("share") == nil {
                fail("a load group needs a share of the crowd, e.g. `share: 20%`", at: item.location)
            }
            if let e = map.entry("netem"), let text = nonEmptyText(e) {
                do throws(Impairment.ParseError) {
                    _ = try Impairment.parse(text)
                    group.netem = text
                } catch {
                    fail("a load group's netem: \(error.description)", at: e.value.location)
                }
            }
            if let e = map.entry("encoded_filters") { group.encodedFilters = decodeGroupEncodedFilters(e, group: group.name, for: spec) }
            if let e = map.entry("transport") { group.transport = decodeGroupTransport(e, over: transport) }
            groups.append(group)
        }
        let total = groups.reduce(0) { $0 + $1.share }
        if !groups.isEmpty, groups.allSatisfy({ $0.share > 0 }), abs(total - 1) > 0.001 {
            fail(String(format: "the load groups' shares add up to %.0f%%; make them add up to 100%%", total * 100), at: entry.keyLocation)
        }
        // Group k's namespaces are 10.97.k.0/24 and 10.98.k.0/24.
        if groups.filter({ $0.netem != nil }).count > Self.maxNetemGroups {
            fail("at most \(Self.maxNetemGroups) load groups may have netem (each has address blocks of its own); merge some", at: entry.keyLocation)
        }
        if Set(groups.map(\.name)).count != groups.count {
            fail("two load groups have the same name; give each a name of its own", at: entry.keyLocation)
        }
        return groups
    }

    /// A group's `transport`: the file's transport section with these keys in place of its own
    /// (the rest kept), decoded as a whole. The kind stays the file's: the crowd is one kind
    /// of client.
    package mutating func decodeGroupTransport(_ entry: SpecEntry, over file: SpecEntry?) -> TransportSpec? {
        guard let own = mapping(entry) else { return nil }
        if let kind = own.entry("kind") {
            fail("a load group keeps the file's transport kind; set its other keys (e.g. `transport: {substream: 0}`)", at: kind.keyLocation)
            return nil
        }
        let base = file?.value.entries ?? []
        let merged = base.filter { b in !own.contains { $0.key == b.key } } + own
        let before = diagnostics.count
        let transport = decodeTransport(
            SpecEntry(key: "transport", keyLocation: entry.keyLocation, value: SpecNode(.mapping(merged), at: entry.value.location)))
        // What is wrong in the file's own keys was said once already, at the file's transport.
        let said = diagnostics[..<before]
        diagnostics = Array(said) + diagnostics[before...].filter { !said.contains($0) }
        return transport
    }
}
