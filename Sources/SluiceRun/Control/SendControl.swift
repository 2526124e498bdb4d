import GStreamer

/// The handles the control API turns on one send branch: its encoder and its track gate.
///
/// The gate sits between the filters and the encoder: `videobalance` for video (contrast and
/// saturation 0 give black frames, as a disabled WebRTC video track sends) and `volume` for
/// audio (mute gives silence, as a disabled audio track sends). Both are passthrough while
/// the track is enabled at full volume, so they cost nothing until used.
package struct SendControl: Sendable {
    package let media: MediaKind
    package let codec: Codec
    package let gate: Element
    /// The first element of the encode stage (the encoder, or a `gst:` fragment's bin).
    package let encoder: Element?
    package let encoderFactory: String?
    /// Smaller pictures at low targets (`scale_below`, `fps_below`), if the file asks.
    package var mitigation: Mitigation? = nil

    /// A congestion controller's new target: the encoder's bitrate, and the picture size
    /// and rate when the file names thresholds.
    package func applyTarget(_ bitsPerSecond: Int) {
        try? setBitrate(bitsPerSecond)
        mitigation?.update(target: bitsPerSecond, nowNs: StageTimer.now())
    }

    /// The encoder property that sets the target bitrate, and its unit in bit/s.
    private var bitrateProperty: (name: String, unit: Int)? {
        switch encoderFactory {
        case "x264enc", "nvh264enc", "vaapih264enc", "msdkh264enc", "x265enc": return ("bitrate", 1000)
        case "vp8enc", "vp9enc": return ("target-bitrate", 1)
        case "openh264enc", "opusenc", "av1enc", "rav1enc", "svtav1enc": return ("bitrate", 1)
        default: return nil
        }
    }

    /// Sets the encoder's target bitrate; it applies from the next frames.
    package func setBitrate(_ bitsPerSecond: Int) throws(ControlError) {
        guard let encoder, let property = bitrateProperty else {
            throw ControlError(
                .conflict,
                "the send.\(media.rawValue) encoder (\(encoderFactory ?? "a gst fragment")) has no bitrate Sluice knows how to set; use one of x264enc, vp8enc, vp9enc, openh264enc, opusenc"
            )
        }
        let value = max(1, bitsPerSecond / property.unit)
        do { try encoder.set(property.name, fromString: "\(value)") } catch {
            throw ControlError(.invalid, "the encoder refused bitrate \(bitsPerSecond) bit/s: \(error.message)")
        }
    }

    /// The encoder's target bitrate in bit/s, if known.
    package var bitrate: Int? {
        guard let encoder, let property = bitrateProperty,
            let text = encoder.property(property.name)?.serialized, let value = Int(text)
        else { return nil }
        return value * property.unit
    }

    /// Asks the encoder for a keyframe (an upstream force-key-unit event, all headers).
    package func requestKeyframe() throws(ControlError) {
        guard media == .video else { throw ControlError(.invalid, "keyframes are a video matter; send.audio has none") }
        guard let pad = encoder?.staticPad("src"), pad.sendEvent(.forceKeyUnit(origin: KeyframeRequestLimiter.ownOrigin)) else {
            throw ControlError(.conflict, "the send.video encoder did not take the keyframe request")
        }
    }

    /// Enables or disables the track (black frames or silence while disabled).
    package func setEnabled(_ enabled: Bool) {
        if media == .video {
            try? gate.set("contrast", enabled ? 1.0 : 0.0)
            try? gate.set("saturation", enabled ? 1.0 : 0.0)
        } else {
            try? gate.set("mute", !enabled)
        }
    }

    package var enabled: Bool {
        media == .video ? (gate.get("contrast", as: Double.self) ?? 1) != 0 : !(gate.get("mute", as: Bool.self) ?? false)
    }

    /// Sets an audio track's volume (0 = silence, 1 = unchanged, up to 10).
    package func setVolume(_ volume: Double) throws(ControlError) {
        guard media == .audio else { throw ControlError(.invalid, "volume applies to send.audio, not send.video") }
        guard volume.isFinite, (0...10).contains(volume) else {
            throw ControlError(.invalid, "volume must be between 0 and 10 (1 leaves the level unchanged), not \(volume)")
        }
        try? gate.set("volume", volume)
    }

    package var volume: Double? { media == .audio ? gate.get("volume", as: Double.self) : nil }
}
