import SluiceFilterKit
import SluiceFramestamp
import SluiceGrayscale
import SluiceInvert
import SluiceMotion
import SluicePixelate
import SluiceScene
import SluiceText

/// The frame filters and sources that ship with Sluice.
public enum BuiltInPlugins {
    // `nonisolated(unsafe)`: immutable arrays of metatypes of classes without static mutable
    // state; `FrameFilter`/`FrameSource` do not refine `SendableMetatype`, so the compiler
    // cannot see that on its own.
    public nonisolated(unsafe) static let filters: [any FrameFilter.Type] = [
        Grayscale.self, Invert.self, Pixelate.self, MotionDetector.self,
        FramestampWriter.self, FramestampReader.self, TextOverlay.self
    ]
    public nonisolated(unsafe) static let sources: [any FrameSource.Type] = [
        MovingScene.self
    ]
}
