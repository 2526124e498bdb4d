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

    /// The mean absolute difference per byte between frame `frame` and frame `other` of
    /// `recording` (same size; both must be in their files): 0 for identical pictures.
    public func meanDifference(frame: Int, to recording: RGBRecording, frame other: Int) -> Double {
        let a = data.startIndex + frame * frameBytes, b = recording.data.startIndex + other * frameBytes
        var sum = 0
        for i in 0..<frameBytes { sum += abs(Int(data[a + i]) - Int(recording.data[b + i])) }
        return Double(sum) / Double(frameBytes)
    }

    /// What a frame shows, named from three pixels of its middle row: a colour (`red`,
    /// `green`, `blue`, `white`, `black`), `bars` (SMPTE colour bars: white, green and blue
    /// from left to right), `mixed` or `other`.
    public func picture(frame: Int) -> String {
        let names = [0.07, 0.5, 0.93].map { Self.colourName(pixel(frame: frame, Int(Double(width) * $0), height / 2)) }
        if names == ["white", "green", "blue"] { return "bars" }
        return Set(names).count == 1 ? names[0] : "mixed"
    }

    /// The recording as runs of frames showing one thing, in order: [("red", 120), ("bars", 33), …].
    public var pictureRuns: [(picture: String, frames: Int)] {
        var runs: [(picture: String, frames: Int)] = []
        for frame in 0..<frames {
            let name = picture(frame: frame)
            if runs.last?.picture == name { runs[runs.count - 1].frames += 1 } else { runs.append((name, 1)) }
        }
        return runs
    }

    /// The pictures shown for at least `frames` frames in a row, in order (short runs, such
    /// as a frame blended at a switch, left out; repeats merged).
    public func pictureSequence(atLeast frames: Int = 3) -> [String] {
        PictureTimeline(runs: pictureRuns.map { PictureTimeline.Run(picture: $0.picture, atMs: 0, frames: $0.frames) })
            .sequence(atLeast: frames)
    }

    /// `red`, `green`, `blue`, `white`, `black` or `other` for an [R, G, B] pixel.
    public static func colourName(_ rgb: [Int]) -> String {
        let names: [(String, [Bool])] = [
            ("red", [true, false, false]), ("green", [false, true, false]), ("blue", [false, false, true]),
            ("white", [true, true, true]), ("black", [false, false, false])
        ]
        for (name, want) in names where zip(rgb, want).allSatisfy({ $1 ? $0 > 180 : $0 < 70 }) { return name }
        return "other"
    }
}
