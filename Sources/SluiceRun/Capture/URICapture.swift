import GStreamer

extension CaptureSpec.Kind {
    /// A stream or file at a URL (urisourcebin): HLS playlists, HTTP and file URLs.
    public static func uri(url: String) -> CaptureSpec.Kind {
        CaptureSpec.Kind(name: "uri", settings: SourceURL.Settings(url: url))
    }
}

/// `kind: uri`: what a URL serves, read by urisourcebin: an HLS playlist (hlsdemux), an
/// MPEG-TS, MP4 or Matroska file over HTTP, or a `file://` URL. Unlike `kind: file` it can
/// pass the stream's H.264, VP8, VP9 or Opus through with `encode: none`. Such a source is not
/// live, so clocksync paces it to the pipeline clock.
package struct URICapture: ParsedCapture {
    package let name = "uri"
    package let sourceFactory = "urisourcebin"
    package let urlProperty = "uri"

    package func keys(for media: MediaKind) -> [String] { ["url"] }

    package func decode(
        _ map: [SpecEntry], media: MediaKind, into capture: inout CaptureSpec, at location: SourceLocation,
        with decoder: inout SpecDecoder
    ) -> CaptureSpec.Kind? {
        let example = "http://server/live/index.m3u8"
        return decoder.sourceURL(map, kind: "uri", schemes: ["http", "https", "file"], example: example, at: location).map { .uri(url: $0) }
    }

    /// Served files are not live: clocksync paces them.
    package func isLive(_ capture: CaptureSpec) -> Bool { false }
}
