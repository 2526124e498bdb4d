import Foundation
import GStreamer

extension CaptureSpec.Kind {
    /// An RTMP stream pulled from a server (rtmp2src): what OBS or ffmpeg publish to nginx-rtmp.
    public static func rtmp(url: String) -> CaptureSpec.Kind {
        CaptureSpec.Kind(name: "rtmp", settings: SourceURL.Settings(url: url))
    }
}

/// `kind: rtmp`: a stream played from an RTMP server (`rtmp://server/app/stream`), as OBS
/// and ffmpeg publish to nginx-rtmp or a media server. Its H.264 passes through with
/// `encode: none`; its AAC audio is decoded and encoded as Opus (WebRTC has no AAC). A
/// server that asks for a password gets it from the URL (`rtmp://user:${PASSWORD}@…`).
package struct RTMPCapture: ParsedCapture {
    package let name = "rtmp"
    package let reconnects = true
    package let sourceFactory = "rtmp2src"
    package let urlProperty = "location"

    package func keys(for media: MediaKind) -> [String] { ["url"] }

    package func decode(
        _ map: [SpecEntry], media: MediaKind, into capture: inout CaptureSpec, at location: SourceLocation,
        with decoder: inout SpecDecoder
    ) -> CaptureSpec.Kind? {
        let example = "rtmp://server/live/stream"
        guard let url = decoder.sourceURL(map, kind: "rtmp", schemes: ["rtmp", "rtmps"], example: example, at: location) else {
            return nil
        }
        guard let parts = URLComponents(string: url), parts.host?.isEmpty == false, parts.path.split(separator: "/").count >= 2 else {
            decoder.fail("'\(SourceURL.redacted(url))' names no application and stream; write e.g. \(example)", at: location)
            return nil
        }
        return .rtmp(url: url)
    }
}
