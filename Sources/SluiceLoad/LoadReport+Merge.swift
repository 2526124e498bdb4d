import SluiceRun
import SluiceMeasure
/// Why load reports could not be merged.
public enum LoadReportMergeError: Error, Equatable, CustomStringConvertible {
    /// No report was given.
    case noReports
    /// Client ids appear in more than one report (the same shard twice, or shards of two runs).
    case clientIDCollision(ids: [Int])

    /// What went wrong, for the command line.
    public var description: String {
        switch self {
        case .noReports:
            return "no load report to merge"
        case .clientIDCollision(let ids):
            let shown = ids.prefix(10).map(String.init).joined(separator: ", ") + (ids.count > 10 ? ", …" : "")
            return "cannot merge load reports: \(ids.count) client id(s) appear in more than one report (\(shown)); "
                + "were they shards of the same run, each given once?"
        }
    }
}

extension LoadReport {
    /// The reports of the shards of one run as one report, exactly as if one process had run
    /// every client: clients concatenated (ids must not collide), aggregates added (histograms
    /// merged, so the percentiles are those of all the values), timelines summed second by
    /// second (CPU and memory too: the shards are separate processes). Pipelines and targets
    /// that differ are listed; the planned clients add up; the duration is the longest.
    public static func merge(_ reports: [LoadReport]) throws -> LoadReport {
        guard var merged = reports.first else { throw LoadReportMergeError.noReports }
        var seen = Set<Int>(), collisions = Set<Int>()
        for r in reports {
            for c in r.clients where !seen.insert(c.id).inserted { collisions.insert(c.id) }
        }
        guard collisions.isEmpty else { throw LoadReportMergeError.clientIDCollision(ids: collisions.sorted()) }
        merged.pipeline = distinct(reports.map(\.pipeline))
        merged.target = distinct(reports.map(\.target))
        let roles = reports.compactMap(\.role)
        merged.role = roles.isEmpty ? nil : distinct(roles)
        let encoded = reports.compactMap(\.shared_encoder_frames)
        merged.shared_encoder_frames = encoded.isEmpty ? nil : encoded.reduce(0, +)
        merged.clients_planned = reports.reduce(0) { $0 + $1.clients_planned }
        merged.duration_s = reports.map(\.duration_s).max() ?? 0
        merged.shard = mergedShard(reports.map(\.shard))
        merged.clients = reports.flatMap(\.clients).sorted { $0.id < $1.id }
        for r in reports.dropFirst() { merged.overall.add(r.overall) }
        merged.groups = mergedGroups(reports.map(\.groups))
        merged.timeline = LoadTimeline.merge(reports.map(\.timeline))
        let uses = reports.compactMap(\.process)
        merged.process = uses.count == reports.count ? LoadProcessUse.sum(uses) : nil
        return merged
    }

    /// The values, each once, in the order first seen, joined by `, `.
    private static func distinct(_ values: [String]) -> String {
        var seen = Set<String>()
        return values.filter { seen.insert($0).inserted }.joined(separator: ", ")
    }

    /// Each group's aggregates added up across the reports, by name.
    private static func mergedGroups(_ lists: [[LoadAggregate]]) -> [LoadAggregate] {
        var byName: [String: LoadAggregate] = [:]
        for g in lists.joined() {
            let name = g.group ?? ""
            if byName[name] == nil { byName[name] = g } else { byName[name]!.add(g) }
        }
        return byName.keys.sorted().map { byName[$0]! }
    }

    /// nil when the shards are `1/N` … `N/N`, each once (the whole run); otherwise those given,
    /// in order, joined by `+`.
    package static func mergedShard(_ shards: [String?]) -> String? {
        let given = shards.compactMap { $0 }.flatMap { $0.split(separator: "+").map(String.init) }
        guard !given.isEmpty else { return nil }
        let parsed = given.compactMap { s -> ShardName? in
            let parts = s.split(separator: "/")
            guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]) else { return nil }
            return ShardName(index: i, of: n)
        }
        if parsed.count == given.count, let n = parsed.first?.of, parsed.allSatisfy({ $0.of == n }),
            Set(parsed.map(\.index)) == Set(1...max(1, n)), parsed.count == n
        {
            return nil
        }
        let ordered = parsed.count == given.count ? parsed.sorted { $0.index < $1.index }.map(\.text) : given
        return ordered.joined(separator: "+")
    }

    /// A shard's name, `index/of`.
    private struct ShardName {
        /// Its number, from 1.
        var index: Int
        /// How many shards the run has.
        var of: Int
        /// `index/of`.
        var text: String { "\(index)/\(of)" }
    }
}
