import GStreamer

/// Which Sluice this is, and what it runs with: `sluice --version` prints it, and a program
/// embedding Sluice can log it.
public struct SluiceVersion: Sendable, Equatable {
    /// Sluice's release, as CHANGELOG.md's newest entry names it.
    public static let release = "0.1.0"

    /// The release (`release`).
    public var release: String
    /// The git commit the program was built from (`+` after it: with changes not committed),
    /// or `unknown` when it was built outside a git checkout.
    public var commit: String
    /// The GStreamer version the process runs with (not the one it was built against).
    public var gstreamer: String
    /// The Swift compiler it was built with, to the minor version.
    public var swift: String

    /// This process's versions; `commit` comes from the program (the library cannot know it).
    public static func current(commit: String) -> SluiceVersion {
        SluiceVersion(release: release, commit: commit, gstreamer: Gst.version, swift: compiler)
    }

    /// One line per item, as `sluice --version` prints them.
    public var lines: [String] {
        ["sluice \(release)", "commit \(commit)", "GStreamer \(gstreamer)", "Swift \(swift)"]
    }

    /// The compiler, from the newest `#if compiler` it satisfies.
    package static var compiler: String {
        #if compiler(>=6.4)
            return "6.4 or later"
        #elseif compiler(>=6.3)
            return "6.3"
        #elseif compiler(>=6.2)
            return "6.2"
        #elseif compiler(>=6.1)
            return "6.1"
        #else
            return "6.0"
        #endif
    }
}
