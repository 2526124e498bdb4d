import Foundation
import GStreamer

extension CaptureSpec.Kind {
    /// v4l2src on `device` (video only).
    public static func camera(device: String) -> CaptureSpec.Kind {
        CaptureSpec.Kind(name: "camera", settings: CameraCapture.Settings(device: device))
    }
}

/// `kind: camera`: a V4L2 camera.
package struct CameraCapture: Capture {
    package let name = "camera"

    package struct Settings: KindSettings, Equatable {
        package var device: String
    }

    package func refusal(for media: MediaKind) -> String? {
        media == .audio ? "camera capture is video-only; for audio use kind test or file, or a gst fragment such as `gst: pulsesrc`" : nil
    }

    package func keys(for media: MediaKind) -> [String] { media == .video ? ["device"] : [] }

    package func decode(
        _ map: [SpecEntry], media: MediaKind, into capture: inout CaptureSpec, at location: SourceLocation,
        with decoder: inout SpecDecoder
    ) -> CaptureSpec.Kind? {
        var device = "/dev/video0"
        if let e = map.entry("device"), let v = decoder.nonEmptyText(e) { device = v }
        return .camera(device: device)
    }

    package func requiredElements(for media: MediaKind) -> [String] { ["v4l2src"] }

    package func build(_ cap: CaptureSpec, media: MediaKind, rawCaps: String, with b: GraphBuilder) throws(RunError) -> [Element] {
        let device = cap.kind.settings(as: Settings.self)?.device ?? "/dev/video0"
        guard FileManager.default.fileExists(atPath: device) else {
            throw RunError(
                "camera device \(device) does not exist: connect a camera, set capture.device to one "
                    + "that exists (ls /dev/video*), or use capture.kind: test", at: cap.location)
        }
        let chain =
            [try b.make("v4l2src", [("device", device)], at: cap.location)]
            + (try b.normalizer(video: true, caps: rawCaps, at: cap.location))
        try b.add(chain)
        return chain
    }
}
