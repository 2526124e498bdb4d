import Foundation
import SluiceTestSupport

/// A recorded file as programs nobody here wrote read it (ffprobe, gst-discoverer-1.0).
enum RecordingProbe {
    /// What ffprobe says of a file's first video stream: its frames, the first one's keyframe
    /// flag, the picture's size, the codec.
    struct Video: CustomStringConvertible {
        var frames = 0
        var firstIsKeyframe = false
        var width = 0
        var height = 0
        var codec = ""
        var description: String { "\(codec) \(width)x\(height), \(frames) frames, first a keyframe: \(firstIsKeyframe)" }
    }

    static func video(of path: String) throws -> Video {
        let r = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/ffprobe"),
            ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name,width,height:frame=key_frame", "-of", "csv=p=0", path],
            timeout: 60)
        var p = Video()
        for line in r.stdout.split(separator: "\n") {
            let fields = line.split(separator: ",")
            if fields.count == 3, let w = Int(fields[1]) {
                p.codec = String(fields[0]); p.width = w; p.height = Int(fields[2]) ?? 0
            } else if fields.count == 1, let key = Int(fields[0]) {
                if p.frames == 0 { p.firstIsKeyframe = key == 1 }
                p.frames += 1
            }
        }
        return p
    }

    /// Whether gst-discoverer-1.0 reads `path` without an error.
    static func discovers(_ path: String) throws -> (ok: Bool, text: String) {
        let r = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/gst-discoverer-1.0"), [path], timeout: 60)
        return (r.status == 0 && !r.stdout.contains("error was encountered"), r.stdout + r.stderr)
    }
}
