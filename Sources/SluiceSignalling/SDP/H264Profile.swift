/// An H.264 profile and level, as `profile-level-id` writes them (RFC 6184 §8.1: three bytes
/// in hex, `profile_idc`, the constraint flags, `level_idc`) and as GStreamer's caps name them
/// (`profile=high, level=4`).
///
/// Used to choose, in a viewer's offer, a payload type whose decoder can take a stream Sluice
/// does not encode itself (a camera's H.264 passed through), and to say which profile a
/// refused viewer would have needed.
public struct H264Profile: Sendable, Equatable, CustomStringConvertible {
    /// `profile_idc`: 66 Baseline, 77 Main, 88 Extended, 100 High, 110 High 10, 122 High 4:2:2,
    /// 244 High 4:4:4 Predictive.
    public var profileIDC: UInt8
    /// The constraint flags byte (`constraint_set0_flag` is its top bit).
    public var constraints: UInt8
    /// `level_idc`: ten times the level (31 is level 3.1; 11 with `constraint_set3` is 1b).
    public var levelIDC: UInt8

    /// The profile families a decoder is offered for, from the simplest.
    public enum Family: Int, Sendable, Comparable, CustomStringConvertible {
        /// Annex A's profiles, from the simplest; High covers its constrained and
        /// progressive variants.
        case constrainedBaseline, baseline, main, extended, high, high10, high422, high444

        /// The profile's name as H.264 Annex A gives it.
        public var description: String {
            switch self {
            case .constrainedBaseline: "Constrained Baseline"
            case .baseline: "Baseline"
            case .main: "Main"
            case .extended: "Extended"
            case .high: "High"
            case .high10: "High 10"
            case .high422: "High 4:2:2"
            case .high444: "High 4:4:4"
            }
        }

        /// Simpler first, as listed.
        public static func < (a: Family, b: Family) -> Bool { a.rawValue < b.rawValue }
    }

    /// What Sluice's own H.264 encoders make: Constrained Baseline, level 3.1 (`42e01f`).
    public static let sluiceEncoded = H264Profile(profileIDC: 66, constraints: 0xe0, levelIDC: 31)

    /// A profile from its three bytes.
    public init(profileIDC: UInt8, constraints: UInt8, levelIDC: UInt8) {
        self.profileIDC = profileIDC; self.constraints = constraints; self.levelIDC = levelIDC
    }

    /// Reads `profile-level-id` (six hex digits); nil if it is not that.
    public init?(profileLevelID: String) {
        guard profileLevelID.count == 6, profileLevelID.allSatisfy(\.isHexDigit), let value = UInt32(profileLevelID, radix: 16) else { return nil }
        self.init(profileIDC: UInt8(value >> 16), constraints: UInt8((value >> 8) & 0xff), levelIDC: UInt8(value & 0xff))
    }

    /// Reads GStreamer's caps fields (`h264parse`): `profile` such as `constrained-baseline`,
    /// `main`, `high`, `constrained-high`, `progressive-high`, `high-10`, and `level` such as
    /// `3.1` or `1b` (level 3.1 if absent). Nil for a profile this does not know.
    public init?(gstProfile: String, level: String?) {
        let byName: [String: (UInt8, UInt8)] = [
            "constrained-baseline": (66, 0xc0), "baseline": (66, 0), "main": (77, 0), "extended": (88, 0),
            "high": (100, 0), "progressive-high": (100, 0x08), "constrained-high": (100, 0x0c),
            "high-10": (110, 0), "high-10-intra": (110, 0x10), "high-4:2:2": (122, 0), "high-4:2:2-intra": (122, 0x10),
            "high-4:4:4": (244, 0), "high-4:4:4-intra": (244, 0x10)
        ]
        guard let (idc, flags) = byName[gstProfile] else { return nil }
        var levelIDC: UInt8 = 31, extra: UInt8 = 0
        if let level {
            if level == "1b" {
                levelIDC = 11; if idc == 66 || idc == 77 { extra = 0x10 }
            } else if let value = Double(level), value > 0, value < 10 {
                levelIDC = UInt8((value * 10).rounded())
            }
        }
        self.init(profileIDC: idc, constraints: flags | extra, levelIDC: levelIDC)
    }

    /// The six hex digits of `profile-level-id`.
    public var profileLevelID: String {
        [profileIDC, constraints, levelIDC].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// The family, with the constraint flags read as RFC 6184 Table 5 does: Baseline, Main
    /// or Extended with the flags that forbid what Constrained Baseline leaves out is
    /// Constrained Baseline. Nil for a `profile_idc` outside Annex A's.
    public var family: Family? {
        let set0 = constraints & 0x80 != 0, set1 = constraints & 0x40 != 0
        switch profileIDC {
        case 66: return set1 ? .constrainedBaseline : .baseline
        case 77: return set0 ? .constrainedBaseline : .main
        case 88: return set0 && set1 ? .constrainedBaseline : .extended
        case 100: return .high
        case 110: return .high10
        case 122: return .high422
        case 244: return .high444
        default: return nil
        }
    }

    /// The level as people write it: `3.1`, `4`, `1b`.
    public var level: String {
        if levelIDC == 11 && constraints & 0x10 != 0 && (profileIDC == 66 || profileIDC == 77) { return "1b" }
        if levelIDC == 9 { return "1b" }
        return levelIDC % 10 == 0 ? "\(levelIDC / 10)" : "\(levelIDC / 10).\(levelIDC % 10)"
    }

    /// `High 4 (640028)`.
    public var description: String { "\(family?.description ?? "profile \(profileIDC)") \(level) (\(profileLevelID))" }

    /// Whether a decoder offered for this profile decodes a stream of `stream`'s profile.
    ///
    /// By profile only: the level a receiver declares is where its decoder is known to keep
    /// up, and a stream passed through cannot change its level, so levels are not compared
    /// (browsers decode past their declared level). Each family decodes Constrained Baseline
    /// and itself; Main, High and the High profiles above it decode Main; High's decoder
    /// decodes every High variant (`constrained-high`, `progressive-high`); High 10, 4:2:2 and
    /// 4:4:4 decode the High profiles below them (Annex A's profile hierarchy). Baseline
    /// (with FMO or ASO) needs Baseline or Extended, and Extended its own profile.
    public func decodes(_ stream: H264Profile) -> Bool {
        guard let mine = family, let theirs = stream.family else { return false }
        switch theirs {
        case .constrainedBaseline: return true
        case .baseline: return mine == .baseline || mine == .extended
        case .extended: return mine == .extended
        case .main: return mine == .main || mine >= .high
        case .high, .high10, .high422, .high444: return mine >= theirs
        }
    }
}
