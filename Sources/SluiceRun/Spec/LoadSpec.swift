/// The `load:` section of a pipeline file: how many clients `sluice load` starts from the
/// file's client description, how fast, for how long, and which of them decode. Command-line
/// options (`--clients`, `--ramp`, `--duration`, `--decode`) override it.
public struct LoadSpec: Sendable, Equatable {
    /// Which clients decode what they receive (and so read framestamps).
    public enum Decode: String, Sendable, CaseIterable {
        /// Every client decodes.
        case all
        /// Every tenth client decodes (clients 0, 10, 20, …); the rest count without decoding.
        case some
        /// No client decodes: each depacketizes, counts frames and keyframes and checks the RTP.
        case none

        /// Whether client `id` decodes under this choice.
        public func decodes(client id: Int) -> Bool {
            switch self {
            case .all: true
            case .some: id % 10 == 0
            case .none: false
            }
        }
    }

    /// Clients in the whole crowd (all shards together).
    public var clients = 10
    /// New clients started per second.
    public var rampPerSecond: Double = 10
    /// Seconds each client stays once it has connected.
    public var durationSeconds: Double = 30
    /// Which clients decode.
    public var decode = Decode.none
    /// Share of the crowd (0...1) that leaves and is replaced each minute.
    public var churnPerMinute: Double = 0
    /// Parts of the crowd with their own conditions; empty: one group.
    public var groups: [LoadGroup] = []
    /// Where the section is in the file (nil: defaults or the command line).
    public var location: SourceLocation?

    /// The groups whose clients run behind an impaired link of their own, in file order.
    public var netemGroups: [LoadGroup] { groups.filter { $0.netem != nil } }

    /// The defaults: 10 clients, 10 per second, 30 s each, none decoding, no churn, one group.
    public init() {}

    /// The group of client `id`: groups take consecutive runs of the crowd by their shares.
    public func group(ofClient id: Int) -> LoadGroup? {
        guard !groups.isEmpty else { return nil }
        var end = 0.0
        for g in groups {
            end += g.share * Double(clients)
            if Double(id) < end.rounded() { return g }
        }
        return groups.last
    }
}

/// One part of a load crowd (`load.groups`).
public struct LoadGroup: Sendable, Equatable {
    /// The group's name in reports (`name:`, or `g1`, `g2`, … by position).
    public var name: String
    /// Its share of the crowd, 0...1.
    public var share: Double
    /// Network conditions between its clients and the service, in netem words (`delay 60ms
    /// loss 2%`), if any: the group then runs in a network namespace of its own behind
    /// Sluice's impairing relay (`LoadNetemGroups`).
    public var netem: String?
    /// Encoded-frame filters of the group's own, by medium (`encoded_filters: {video: [...]}`):
    /// its publishers' and call members' frames go through them after the send section's own
    /// (on a branch of the group's, shared by its clients), its viewers' right after the
    /// depayloader, before the file's `receive.*.encoded_filters`. `faults` for one part of
    /// the crowd, or another key.
    public var encodedFilters: [MediaKind: [FilterSpec]] = [:]
    /// The transport its clients use, when the group sets keys of its own (`transport:
    /// {substream: 0}`: a Janus VideoRoom's smallest layer; `transport: {endpoint: …?layer=l}`):
    /// the file's transport with those keys replaced. nil: the file's.
    public var transport: TransportSpec?
    /// Where the group is in the file.
    public var location: SourceLocation?

    /// A group from its parts.
    public init(name: String, share: Double, netem: String? = nil, location: SourceLocation? = nil) {
        self.name = name; self.share = share; self.netem = netem; self.location = location
    }
}

extension LoadSpec {
    /// New clients per second from `20/s` or `20` (more than 0, at most 1000); nil otherwise.
    public static func ramp(from text: String) -> Double? {
        let number = text.hasSuffix("/s") ? String(text.dropLast(2)) : text
        guard let rate = SpecScalars.number(number), rate > 0, rate <= 1000 else { return nil }
        return rate
    }
}
