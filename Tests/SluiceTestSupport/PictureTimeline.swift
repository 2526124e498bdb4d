/// What a viewer's picture showed over time, as the test peers report it (`aiortc_peer.py
/// whep-play --pictures`, `browser_check.py --watch`): runs of [name, ms after the first
/// frame, frames], a name being a colour, `bars`, `mixed` or `other`.
public struct PictureTimeline: Sendable {
    /// One run of frames showing the same thing.
    public struct Run: Sendable, CustomStringConvertible {
        /// What the frames show.
        public var picture: String
        /// When the run began, in milliseconds after the first frame.
        public var atMs: Int
        /// How many frames it lasted.
        public var frames: Int
        public var description: String { "\(picture)@\(atMs)ms×\(frames)" }
        /// A run of `frames` frames showing `picture` from `atMs`.
        public init(picture: String, atMs: Int, frames: Int) { self.picture = picture; self.atMs = atMs; self.frames = frames }
    }

    /// The runs, in order.
    public let runs: [Run]

    /// A timeline of `runs`.
    public init(runs: [Run]) { self.runs = runs }

    /// Reads the JSON value `json` ([[name, ms, frames], …]); entries of another shape are left out.
    public init(_ json: Any?) {
        runs = (json as? [[Any]] ?? []).compactMap { entry in
            guard entry.count == 3, let name = entry[0] as? String, let at = entry[1] as? Int, let frames = entry[2] as? Int else {
                return nil
            }
            return Run(picture: name, atMs: at, frames: frames)
        }
    }

    /// What was shown for at least `frames` frames in a row, in order, repeats merged.
    public func sequence(atLeast frames: Int = 3) -> [String] {
        runs.filter { $0.frames >= frames }.map(\.picture).reduce(into: [String]()) { out, name in
            if out.last != name { out.append(name) }
        }
    }
}
