import Foundation
import Synchronization

/// Names each segment of one recording as splitmuxsink starts it (its `format-location`
/// signal), makes the segment's directory, and deletes the segments older than `keep`.
///
/// Deletion touches only files whose whole path fits the template for this pipeline's name
/// (`SegmentTemplate.names`), under the template's fixed directory: a recording never
/// deletes a file it could not have written.
package final class SegmentNamer: Sendable {
    package let template: SegmentTemplate
    package let pipelineName: String
    /// Segments older than this many seconds (by modification time) are deleted; nil keeps all.
    package let keepSeconds: Double?
    private let state = Mutex(Written())

    /// What this recording wrote and deleted.
    package struct Written: Sendable, Equatable {
        package var segments: [String] = []
        package var deleted: [String] = []
    }

    package init(template: SegmentTemplate, pipelineName: String, keepSeconds: Double?) {
        self.template = template; self.pipelineName = pipelineName; self.keepSeconds = keepSeconds
    }

    /// The segments written so far and the old ones deleted.
    package var written: Written { state.withLock { $0 } }

    /// The path of segment `index`, starting now; a name already taken gets `-1`, `-2`, …
    /// before its extension.
    package func next(index: Int, now: Date = Date()) -> String {
        var path = template.path(name: pipelineName, index: index, at: now)
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        if FileManager.default.fileExists(atPath: path) { path = Self.untaken(path) }
        let deleted = keepSeconds.map { prune(olderThan: now.addingTimeInterval(-$0), sparing: path) } ?? []
        state.withLock {
            $0.segments.append(path)
            $0.deleted += deleted
        }
        return path
    }

    /// After the recording stopped: a segment that was named but got no data before the end
    /// (the stop came between its name and its first frame) is an empty file; it is deleted
    /// and left out of `written`.
    package func finish() {
        state.withLock { w in
            w.segments.removeAll { path in
                let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
                guard size == 0 else { return false }
                try? FileManager.default.removeItem(atPath: path)
                return true
            }
        }
    }

    private static func untaken(_ path: String) -> String {
        let ext = (path as NSString).pathExtension
        let stem = ext.isEmpty ? path : String(path.dropLast(ext.count + 1))
        var n = 1
        while FileManager.default.fileExists(atPath: "\(stem)-\(n)" + (ext.isEmpty ? "" : ".\(ext)")) { n += 1 }
        return "\(stem)-\(n)" + (ext.isEmpty ? "" : ".\(ext)")
    }

    /// Deletes the segments this template names that were last written before `cutoff`.
    package func prune(olderThan cutoff: Date, sparing current: String) -> [String] {
        let (directory, depth) = template.fixedDirectory
        var deleted: [String] = []
        let matcher = template.matcher(name: pipelineName)
        for path in Self.files(under: directory, depth: depth) where path != current && matcher.names(path) {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                attributes[.type] as? FileAttributeType == .typeRegular,
                let modified = attributes[.modificationDate] as? Date, modified < cutoff
            else { continue }
            if (try? FileManager.default.removeItem(atPath: path)) != nil { deleted.append(path) }
        }
        return deleted.sorted()
    }

    /// The paths of entries under `directory`, at most `depth` levels down, spelled as the
    /// template spells them (no `./` for the current directory).
    package static func files(under directory: String, depth: Int) -> [String] {
        guard depth > 0, let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        var out: [String] = []
        for name in names {
            let path = directory == "." ? name : directory == "/" ? "/" + name : directory + "/" + name
            if depth == 1 { out.append(path) } else { out += files(under: path, depth: depth - 1) }
        }
        return out
    }
}
