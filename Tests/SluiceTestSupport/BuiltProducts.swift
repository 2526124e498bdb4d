import Foundation

/// The executables this package builds, as the tests find them.
public enum BuiltProducts {
    /// The executable `name` (e.g. `sluice`) next to the test bundle, or in `.build/debug`
    /// of the package when the bundle is elsewhere.
    public static func executable(named name: String) -> URL {
        var directory = Bundle(for: Marker.self).bundleURL.deletingLastPathComponent()
        if !FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path) {
            directory = Repository.root.appendingPathComponent(".build/debug")
        }
        return directory.appendingPathComponent(name)
    }

    /// A class of this module, for `Bundle(for:)`: the test bundle it is linked into.
    private final class Marker {}
}
