import GStreamer
import Synchronization

/// A room's mosaic and mix are aggregators over a live backdrop (black picture, silence) with
/// `ignore-inactive-pads`, so a publisher whose pad exists before its media flows does not hold
/// the others back. GStreamer 1.22's aggregators end their stream if, at their first timeout,
/// every pad is inactive: on a loaded machine the backdrop's first buffer can come after that
/// timeout, and the mix (or mosaic) then ended at once, silent for the whole run. So the
/// property is set only once the backdrop's first buffer has been taken in.
extension GraphBuilder {
    /// Sets `ignore-inactive-pads` on `aggregator` when `backdrop` (the element feeding its
    /// backdrop pad) pushes its second buffer: by then the first has reached the aggregator's
    /// pad, which therefore never counts as inactive.
    package func ignoreInactivePadsOnceFed(_ aggregator: Element, backdrop: Element, at location: SourceLocation?) throws(RunError) {
        guard let out = backdrop.staticPad("src") else { throw RunError("\(backdrop) has no output pad", at: location) }
        let buffers = Atomic<Int>(0)
        out.addProbe { (_: borrowing Pad.ProbeInfo) in
            guard buffers.add(1, ordering: .relaxed).newValue >= 2 else { return .ok }
            try? aggregator.set("ignore-inactive-pads", fromString: "true")
            return .remove
        }
    }
}
