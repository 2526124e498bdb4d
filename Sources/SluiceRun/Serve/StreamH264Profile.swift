import GStreamer
import SluiceSignalling

extension ViewerSet.Output {
    /// The H.264 profile of what flows into this output's tee, from its caps: `h264parse`'s
    /// `profile` and `level` for an encoded stream, `profile-level-id` for RTP (a relay).
    /// Nil before caps have arrived, or for another codec; a viewer is then matched as for
    /// Sluice's own Constrained Baseline.
    package var h264Profile: H264Profile? {
        guard codec == .h264, let structure = tee.staticPad("sink")?.currentCaps?.structure(at: 0) else { return nil }
        if structure.name == "application/x-rtp" {
            return structure.get("profile-level-id", as: String.self).flatMap { H264Profile(profileLevelID: $0) }
        }
        guard let profile = structure.get("profile", as: String.self) else { return nil }
        return H264Profile(gstProfile: profile, level: structure.get("level", as: String.self))
    }
}
