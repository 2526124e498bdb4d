import Foundation

/// A recording the tests decoded to raw RGB (`… ! videoconvert ! video/x-raw,format=RGB !
/// filesink`): how many whole frames it holds, and the pixels of its last one.
public struct RGBRecording: Sendable {
    public let width: Int
    public let height: Int
    private let data: Data

    /// Decodes the media file at `path` with gst-launch-1.0 (decodebin → RGB) into `path`.rgb
    /// and reads it as frames of `width`×`height` (none when it does not decode).
    public static func decoding(_ path: String, width: Int, height: Int) throws -> RGBRecording {
        _ = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/gst-launch-1.0"),
            [
                "-q", "filesrc", "location=\(path)", "!", "decodebin", "!", "videoconvert", "!", "video/x-raw,format=RGB", "!", "filesink",
                "location=\(path).rgb"
            ],
            timeout: 60)
        return RGBRecording(path: path + ".rgb", width: width, height: height)
    }

    /// Reads the file at `path` (empty when there is none) as frames of `width`×`height`.
    public init(path: String, width: Int, height: Int) {
        self.width = width; self.height = height
        data = FileManager.default.contents(atPath: path) ?? Data()
    }

    public var frameBytes: Int { width * height * 3 }
    /// Whole frames in the file.
    public var frames: Int { data.count / frameBytes }
    /// True when the file is a whole number of frames, at least one.
    public var isWhole: Bool { data.count >= frameBytes && data.count % frameBytes == 0 }

    /// [R, G, B] at (x, y) of the last frame; the file holds at least one frame.
    public func lastPixel(_ x: Int, _ y: Int) -> [Int] {
        let i = data.endIndex - frameBytes + (y * width + x) * 3
        return [Int(data[i]), Int(data[i + 1]), Int(data[i + 2])]
    }

    /// [R, G, B] at (x, y) of frame `frame` (0-based; it must be in the file).
    public func pixel(frame: Int, _ x: Int, _ y: Int) -> [Int] {
        let i = data.startIndex + frame * frameBytes + (y * width + x) * 3
        return [Int(data[i]), Int(data[i + 1]), Int(data[i + 2])]
    }
}
