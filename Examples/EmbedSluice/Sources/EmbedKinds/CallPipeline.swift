/// The two halves of a call over a Unix socket: the offering side sends a solid colour, the
/// answering side receives it and keeps its last frames as small RGB pictures.
public enum CallPipeline {
    /// The offering side's file: `color` (0xRRGGBB) in VP8, 320×240 at 30 fps.
    public static func sender(socket: String, color: UInt32) -> String {
        """
        version: 1
        name: embed-sender
        transport:
          kind: unix
          socket: \(socket)
          role: offer
          ice: { addresses: [127.0.0.1] }
        send:
          video:
            capture: { kind: solid, color: "0x\(String(color, radix: 16))", width: 320, height: 240, fps: 30 }
            encode: { codec: vp8, bitrate: 500 }
        """
    }

    /// The answering side's file: each decoded frame, scaled to 32×24 RGB, goes to
    /// `frames/frame-NNNNN.rgb` (the last five are kept).
    public static func receiver(socket: String, frames: String) -> String {
        """
        version: 1
        name: embed-receiver
        transport:
          kind: unix
          socket: \(socket)
          role: answer
          ice: { addresses: [127.0.0.1] }
        receive:
          video:
            sink: { gst: "videoconvert ! videoscale ! video/x-raw,format=RGB,width=32,height=24 ! multifilesink location=\(frames)/frame-%05d.rgb max-files=5" }
        """
    }
}
