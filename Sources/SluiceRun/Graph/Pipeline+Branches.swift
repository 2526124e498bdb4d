import GStreamer

extension Pipeline {
    /// Takes a branch off the tees it is fed from (`teePads`: the request pads it holds) and
    /// out of the pipeline: a viewer's, a load publisher's, or a shared branch no one uses.
    package func removeBranch(_ elements: [Element], teePads: [(tee: Element, pad: Pad)]) {
        for (tee, pad) in teePads {
            if let peer = pad.peer { pad.unlink(peer) }
            tee.releaseRequestPad(pad)
        }
        for e in elements {
            e.setState(.null)
            try? remove(e)
        }
    }
}
