import SluiceRun

/// The two halves of a call over a Unix socket, built in Swift (no YAML): the offering side
/// sends a solid colour, the answering side receives it and keeps its last frames as small
/// RGB pictures. Sluice checks them as it checks files; a mistake is reported at the line here.
public enum CallPipeline {
    /// The offering side: `color` (0xRRGGBB) in VP8, 320×240 at 30 fps.
    public static func sender(socket: String, color: UInt32) -> PipelineCode {
        PipelineCode(
            name: "embed-sender",
            transport: unix(socket: socket, role: "offer"),
            send: SendCode(
                video: SendBranchCode(
                    capture: CaptureCode(
                        kind: "solid", width: 320, height: 240, fps: 30,
                        settings: [PipelineSetting("color", .text("0x" + String(color, radix: 16)))]),
                    encode: EncodeCode(codec: .vp8, bitrate: 500))))
    }

    /// The answering side: each decoded frame, scaled to 32×24 RGB, goes to
    /// `frames/frame-NNNNN.rgb` (the last five are kept).
    public static func receiver(socket: String, frames: String) -> PipelineCode {
        PipelineCode(
            name: "embed-receiver",
            transport: unix(socket: socket, role: "answer"),
            receive: ReceiveCode(
                video: ReceiveBranchCode(
                    sink: .gst(
                        "videoconvert ! videoscale ! video/x-raw,format=RGB,width=32,height=24"
                            + " ! multifilesink location=\(frames)/frame-%05d.rgb max-files=5"))))
    }

    private static func unix(socket: String, role: String) -> TransportCode {
        TransportCode(
            kind: "unix", ice: ICECode(addresses: ["127.0.0.1"]),
            settings: [PipelineSetting("socket", .text(socket)), PipelineSetting("role", .text(role))])
    }
}
