import Foundation
import PackagePlugin

/// Writes `BuildInfo.swift` into the target: the git commit the package is built from, so
/// `sluice --version` can say it. The file is rewritten only when the commit changes (or the
/// tree's changes come or go), so a build without a new commit recompiles nothing.
@main
struct BuildInfo: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "generated")
        let script = """
            mkdir -p "$1"
            commit=$(git -C "$2" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
            if [ "$commit" != unknown ] && [ -n "$(git -C "$2" status --porcelain --untracked-files=no 2>/dev/null)" ]; then commit="$commit+"; fi
            line="let buildCommit = \\"$commit\\""
            [ "$(cat "$1/BuildInfo.swift" 2>/dev/null)" = "$line" ] || printf '%s\\n' "$line" > "$1/BuildInfo.swift"
            """
        return [
            .prebuildCommand(
                displayName: "Build info (git commit)",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "sh", output.path, context.package.directoryURL.path],
                outputFilesDirectory: output)
        ]
    }
}
