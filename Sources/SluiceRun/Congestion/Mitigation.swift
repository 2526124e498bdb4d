import GStreamer
import Logging
import Synchronization

/// Makes the picture smaller when the bitrate target is low, as webrtcsink's mitigation
/// modes do: below `scale_below` the encoder gets half the width and height, below
/// `fps_below` also half the frame rate; each comes back when the target is 25% above its
/// threshold. A change costs a keyframe (the encoder starts over at the new size), so
/// changes are at least `holdNs` apart.
///
/// It acts through a `capsfilter` after `videoscale ! videorate` in front of the encoder:
/// `video/x-raw` (everything passes) or a size and rate; the elements renegotiate and the
/// encoder reconfigures itself. The receiver's decoder follows the new keyframe.
package final class Mitigation: Sendable {
    package struct Level: Sendable, Equatable {
        package var downscaled = false
        package var fpsReduced = false
    }

    package static let holdNs: UInt64 = 2_000_000_000
    package static let restoreFactor = 1.25
    package static let logger = Logger(label: "sluice.congestion")

    private let capsfilter: Element
    private let width: Int, height: Int, fps: Int
    private let scaleBelow: Int?, fpsBelow: Int?
    private let state = Mutex<(level: Level, changedNs: UInt64?)>((Level(), nil))

    /// `width`, `height` and `fps` are the capture's; thresholds in bit/s.
    package init(capsfilter: Element, width: Int, height: Int, fps: Int, scaleBelow: Int?, fpsBelow: Int?) {
        self.capsfilter = capsfilter; self.width = width; self.height = height; self.fps = fps
        self.scaleBelow = scaleBelow; self.fpsBelow = fpsBelow
    }

    package var level: Level { state.withLock { $0.level } }

    /// The level a target calls for, given the current one (hysteresis around each threshold).
    package static func level(for target: Int, current: Level, scaleBelow: Int?, fpsBelow: Int?) -> Level {
        func on(_ threshold: Int?, _ now: Bool) -> Bool {
            guard let threshold else { return false }
            return now ? Double(target) < Double(threshold) * restoreFactor : target < threshold
        }
        return Level(downscaled: on(scaleBelow, current.downscaled), fpsReduced: on(fpsBelow, current.fpsReduced))
    }

    /// The caps for a level: unconstrained at full quality.
    package static func caps(_ level: Level, width: Int, height: Int, fps: Int) -> String {
        guard level.downscaled || level.fpsReduced else { return "video/x-raw" }
        var caps = "video/x-raw"
        if level.downscaled {
            // Even sizes: 4:2:0 chroma and the encoders need them.
            caps += ",width=(int)\(max(2, width / 2 / 2 * 2)),height=(int)\(max(2, height / 2 / 2 * 2)),pixel-aspect-ratio=(fraction)1/1"
        }
        if level.fpsReduced { caps += ",framerate=(fraction)\(max(1, fps / 2))/1" }
        return caps
    }

    /// Takes a new target (bit/s) at `nowNs` (monotonic); changes the caps when the level moves.
    package func update(target: Int, nowNs: UInt64) {
        let change: Level? = state.withLock { s in
            let wanted = Self.level(for: target, current: s.level, scaleBelow: scaleBelow, fpsBelow: fpsBelow)
            guard wanted != s.level else { return nil }
            if let last = s.changedNs, nowNs &- last < Self.holdNs { return nil }
            s.level = wanted
            s.changedNs = nowNs
            return wanted
        }
        guard let change else { return }
        let caps = Self.caps(change, width: width, height: height, fps: fps)
        do {
            try capsfilter.set("caps", fromString: caps)
            Self.logger.info("video mitigation: \(caps == "video/x-raw" ? "full picture" : caps) at a target of \(target / 1000) kbit/s")
        } catch {
            Self.logger.warning("video mitigation: cannot set \(caps): \(error.message)")
        }
    }
}
