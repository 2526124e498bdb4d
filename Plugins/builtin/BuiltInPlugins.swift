import SluiceAudioStamp
import SluiceE2EE
import SluiceFaults
import SluiceSEI
import SluiceFilterKit
import SluiceFramestamp
import SluiceGain
import SluiceGrayscale
import SluiceInvert
import SluiceLevel
import SluiceMotion
import SluicePixelate
import SluiceScene
import SluiceText
import SluiceTone

/// The frame filters, audio filters, encoded-frame filters and sources that ship with Sluice.
public enum BuiltInPlugins {
    // `nonisolated(unsafe)`: immutable arrays of metatypes of classes without static mutable
    // state; `FrameFilter`/`AudioFilter`/`FrameSource`/`AudioSource` do not refine `SendableMetatype`, so the compiler
    // cannot see that on its own.
    public nonisolated(unsafe) static let filters: [any FrameFilter.Type] = [
        Grayscale.self, Invert.self, Pixelate.self, MotionDetector.self,
        FramestampWriter.self, FramestampReader.self, TextOverlay.self
    ]
    public nonisolated(unsafe) static let audioFilters: [any AudioFilter.Type] = [
        Gain.self, Level.self, AudioStampWriter.self, AudioStampReader.self
    ]
    public nonisolated(unsafe) static let encodedFilters: [any EncodedFrameFilter.Type] = [Faults.self, E2EE.self, SEI.self]
    public nonisolated(unsafe) static let audioSources: [any AudioSource.Type] = [Tone.self]
    public nonisolated(unsafe) static let sources: [any FrameSource.Type] = [
        MovingScene.self
    ]
}
