import Foundation

/// Where the package's own files are, for tests that read them (pipeline files, interop
/// peers, scripts) or run from them.
public enum Repository {
    /// The package root (…/Tests/SluiceTestSupport/Repository.swift → …).
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The absolute path of `relative` below the package root.
    public static func path(_ relative: String) -> String {
        root.appendingPathComponent(relative).path
    }

    /// The Python of the virtual environment `Scripts/install.sh` makes (`.venv`): selenium,
    /// aiortc, slixmpp and the other peers' packages are installed there.
    public static var python: String { path(".venv/bin/python") }
}
