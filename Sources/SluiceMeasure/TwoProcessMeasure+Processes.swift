import Foundation
import SluiceRun

extension TwoProcessMeasure {
    /// The path of a system tool (`ip`, `tc`).
    package static func tool(_ name: String) throws -> String {
        for dir in ["/usr/sbin", "/sbin", "/usr/bin", "/bin"] where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") {
            return "\(dir)/\(name)"
        }
        throw Failure(description: "'\(name)' is not installed: apt-get install iproute2")
    }

    /// The running program's own path (the halves and the relay are this same program).
    package static func executable() throws -> String {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        throw Failure(description: "cannot find this program's own path")
    }

    /// Runs a command to completion; throws with its stderr if it fails.
    @discardableResult
    package static func exec(_ tool: String, _ args: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        let err = Pipe(), out = Pipe()
        p.standardError = err
        p.standardOutput = out
        try p.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let message = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw Failure(
                description: "\(([tool] + args).joined(separator: " ")) failed: "
                    + String(decoding: message, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Starts a child; its stdout goes to ours when `forward`, its stderr always does.
    package static func start(_ tool: String, _ args: [String], forward: Bool) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        p.standardOutput = forward ? FileHandle.standardOutput : FileHandle.nullDevice
        p.standardError = FileHandle.standardError
        try p.run()
        return p
    }
}
