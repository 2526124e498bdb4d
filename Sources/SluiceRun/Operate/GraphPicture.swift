import Foundation
import GStreamer

/// Pictures of a built GStreamer graph: Graphviz dot from GStreamer itself, an SVG drawn from
/// it by Graphviz's `dot`, and a text tree for terminals.
public enum GraphPicture {
    /// `bin`'s graph in dot (GStreamer's `gst_debug_bin_to_dot_data`).
    public static func dot(of bin: Bin) -> String { bin.dot() }

    /// `bin` as an indented tree: each element with its factory, each linked source pad with
    /// where it goes, bins opened up.
    ///
    ///     sluice (pipeline)
    ///       videotestsrc0 (videotestsrc)  src → capsfilter0:sink
    public static func tree(of bin: Bin) -> String {
        var lines = ["\(bin.name) (\(bin.factoryName ?? "pipeline"))"]
        walk(bin, depth: 1, into: &lines)
        return lines.joined(separator: "\n") + "\n"
    }

    private static func walk(_ bin: Bin, depth: Int, into lines: inout [String]) {
        // A bin lists its children newest first: show them in the order they were added.
        for child in bin.children.reversed() {
            let links = child.pads.compactMap { pad -> String? in
                guard pad.direction == .src, let peer = pad.peer else { return nil }
                let owner = peer.parentElement?.name ?? "?"
                return "\(pad.name) → \(owner):\(peer.name)"
            }
            let pad = String(repeating: "  ", count: depth)
            lines.append(pad + "\(child.name) (\(child.factoryName ?? "bin"))" + (links.isEmpty ? "" : "  " + links.joined(separator: ", ")))
            if let sub = child.cast(to: Bin.self) { walk(sub, depth: depth + 1, into: &lines) }
        }
    }

    /// Draws `dot` text as SVG with Graphviz (`/usr/bin/dot`, Debian's `graphviz`).
    public static func svg(fromDot dot: String) throws(RunError) -> String {
        let tool = "/usr/bin/dot"
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            throw RunError("drawing SVG needs Graphviz's dot (\(tool)): apt-get install graphviz, or write .dot instead")
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = ["-Tsvg"]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        p.standardInput = input; p.standardOutput = output; p.standardError = errors
        do { try p.run() } catch { throw RunError("cannot start \(tool): \(error)") }
        // dot reads the whole graph before it writes anything, so writing first cannot block
        // on a full output pipe.
        input.fileHandleForWriting.write(Data(dot.utf8))
        try? input.fileHandleForWriting.close()
        let svg = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw RunError("Graphviz's dot failed (\(p.terminationStatus)): \(String(decoding: err.suffix(500), as: UTF8.self))")
        }
        return String(decoding: svg, as: UTF8.self)
    }
}
