import GStreamer
import Logging
import Synchronization

/// The sender's congestion control for a simulcast publication (`encode.adaptive_layers`):
/// one estimate for all its layers, and only the layers that estimate carries are sent.
///
/// Every layer's packets carry the transport-wide sequence number (the layers' `rtpfunnel`
/// numbers them in one space), so the server's TWCC feedback describes the whole
/// publication; `CongestionControl` reads it where the funnel's output meets webrtcbin.
/// The layers are allocated from the bottom up, as libwebrtc's simulcast allocator does:
/// the smallest layer always goes, and each larger one only with all those below it. So the
/// choices are "every layer", "all but the top one", …, "the smallest alone", and their
/// rates (what the layers send, measured, summed) are the rungs of a `RenditionChoice`,
/// which decides as it does for a served viewer: down at once when the estimate falls below
/// 80% of what is sent, up when a larger choice fits with room, and a try of the next one
/// when the estimate has stayed above what arrives (it cannot show much more than the path
/// carried), undone if the estimate then falls.
///
/// A layer switched off has its raw frames dropped before its encoder (`Gate`: the encoder
/// idles, its RTP stops, and servers move its viewers to another layer); switched on again,
/// its encoder is asked for a keyframe first, so the server's viewers can switch onto it.
package final class SimulcastLayerSwitch: Sendable {
    /// A layer's gate before its encoder: closed, the layer's raw frames are dropped. It
    /// also measures what the layer sends (the bytes entering its payloader). A layer the
    /// peer does not take (`refuse`) stays closed for good.
    package final class Gate: Sendable {
        package let isOpen = Atomic<Bool>(true)
        /// Whether the peer takes the layer: `PeerTaking` raw values.
        private let peer = Atomic<UInt8>(PeerTaking.takes.rawValue)
        /// Times the layer was switched off, and on again.
        package let offs = Atomic<Int>(0)
        package let ons = Atomic<Int>(0)
        private let measured = Atomic<Bool>(false)
        /// The encoded bytes the layer has sent so far (its count at the payloader's input).
        private let sentBytes = Mutex<(@Sendable () -> Int)?>(nil)
        private let window = Mutex(RateWindow())
        /// What it sent, bit/s, when it was last switched off.
        private let lastRate = Mutex<Int?>(nil)

        package init() {}

        /// Times switched off and on, once measured (nil for a layer no estimate switches).
        package var counts: (off: Int, on: Int)? {
            measured.load(ordering: .relaxed) ? (offs.load(ordering: .relaxed), ons.load(ordering: .relaxed)) : nil
        }

        /// True once the peer's description left the layer out.
        package var isRefused: Bool { peer.load(ordering: .relaxed) == PeerTaking.refuses.rawValue }

        /// Drops what crosses `pad` (the layer queue's output) while closed, or while the
        /// peer has not taken the layer.
        package func install(on pad: Pad) {
            pad.addProbe { [self] (_: borrowing Pad.ProbeInfo) in
                isOpen.load(ordering: .relaxed) && peer.load(ordering: .relaxed) == PeerTaking.takes.rawValue ? .ok : .drop
            }
        }

        /// Measures what the layer sends from `sentBytes` (the encoded bytes it has sent so
        /// far), for `encode.adaptive_layers`.
        package func measure(sentBytes: @escaping @Sendable () -> Int) {
            self.sentBytes.withLock { $0 = sentBytes }
            measured.store(true, ordering: .relaxed)
        }

        /// Whether the peer takes the layer.
        package enum PeerTaking: UInt8 {
            /// It does (or its description is not checked): the layer goes while open.
            case takes
            /// Its description is not known yet: nothing goes, so a peer that takes one
            /// stream never sees a packet of another.
            case unknown
            /// It does not: the layer is never sent.
            case refuses
        }

        /// Records whether the peer takes the layer.
        package func peer(_ taking: PeerTaking) {
            peer.store(taking.rawValue, ordering: .relaxed)
        }

        /// What the layer sends, bit/s: measured over the last seconds while it is on (a
        /// still picture encodes far below its configured bitrate, and the estimate cannot
        /// rise much above what is sent), what it sent when last on while it is off or just
        /// back on, nil while it has never been measured.
        package func rate(nowNs: UInt64) -> Int? {
            guard isOpen.load(ordering: .relaxed) else { return lastRate.withLock { $0 } }
            let measured = window.withLock { w -> Double? in
                w.add(bytes: sentBytes.withLock { $0 }?() ?? 0, nowNs: nowNs)
                return w.bitsPerSecond
            }
            return measured.map { Int($0) } ?? lastRate.withLock { $0 }
        }

        /// Opens or closes the gate (the caller has checked it changes).
        fileprivate func set(open: Bool, nowNs: UInt64) {
            if open {
                window.withLock { $0 = RateWindow() }
                ons.add(1, ordering: .relaxed)
            } else {
                let measured = rate(nowNs: nowNs)
                lastRate.withLock { $0 = measured ?? $0 }
                offs.add(1, ordering: .relaxed)
            }
            isOpen.store(open, ordering: .relaxed)
        }
    }

    private let layers: [SimulcastLayerOutput]
    /// The layers' configured bitrates, bit/s, best first.
    private let configured: [Int]
    private let choice: Mutex<RenditionChoice>
    private static let logger = Logger(label: "sluice.simulcast")

    /// Switches `layers` (best first, as built) starting with all of them on.
    package init(layers: [SimulcastLayerOutput]) {
        self.layers = layers
        configured = layers.map { $0.layer.bitrateKbps * 1000 }
        choice = Mutex(RenditionChoice(count: layers.count, start: 0))
    }

    /// What each choice sends, bit/s: choice `k` is layers `k…` (best first), so choice 0 is
    /// every layer and the last the smallest alone. Each layer counts what it sends
    /// (`Gate.rate`); nil until every layer has been measured (its first second).
    package func choiceRates(nowNs: UInt64) -> [Int]? {
        var rates: [Int] = []
        for layer in layers {
            if layer.gate.isRefused {
                rates.append(0)
                continue
            }
            guard let rate = layer.gate.rate(nowNs: nowNs) else { return nil }
            rates.append(rate)
        }
        return rates.indices.map { rates[$0...].reduce(0, +) }
    }

    /// The estimator's limits: from half the smallest layer's configured rate to a quarter
    /// above every layer's, starting at every layer's (all are sent from the start).
    package var limits: BitrateLimits {
        let all = configured.reduce(0, +)
        return BitrateLimits(min: (configured.last ?? 0) / 2, start: all, max: all * 5 / 4)
    }

    /// Layers sent now (from the smallest up).
    package var layersOn: Int { layers.count - choice.withLock { $0.current } }

    /// One reading of the estimate: switches layers on or off as the choice moves, and
    /// returns what the estimator should know (a larger choice is expected at once: its
    /// encoders start with the next frame).
    package func update(with reading: CongestionControl.Reading) -> CongestionControl.RateChange? {
        // The peer took one layer (or none of the others): there is nothing to switch.
        guard layers.count(where: { !$0.gate.isRefused }) > 1, let rates = choiceRates(nowNs: reading.nowNs) else { return nil }
        let (move, from) = choice.withLock { c -> (RenditionChoice.Move, Int) in
            let from = c.current
            let move = c.update(
                estimate: reading.target, rates: rates, received: reading.received, increasing: reading.state == .increase,
                nowNs: reading.nowNs)
            if case .to(let to, _) = move, to < from { c.arrived(nowNs: reading.nowNs) }
            return (move, from)
        }
        switch move {
        case .stay, .probe, .stopProbing: // a publisher's choice does not probe (`probesFirst` false)
            return nil
        case .to(let to, let probing):
            apply(to, from: from, rates, reading, why: probing ? "a try" : "the estimate")
            return to < from ? .expect(rates[to]) : nil
        case .back(let to):
            apply(to, from: from, rates, reading, why: "a failed try")
            return .recover(rates[to])
        }
    }

    /// Opens the gates of layers `choice…` (asking each newly opened one for a keyframe
    /// first) and closes the others.
    private func apply(_ choice: Int, from: Int, _ rates: [Int], _ reading: CongestionControl.Reading, why: String) {
        for (index, layer) in layers.enumerated() {
            let on = index >= choice
            guard !layer.gate.isRefused, layer.gate.isOpen.load(ordering: .relaxed) != on else { continue }
            if on { layer.entrance.pushEvent(.forceKeyUnit()) }
            layer.gate.set(open: on, nowNs: reading.nowNs)
        }
        let names = layers[choice...].filter { !$0.gate.isRefused }.map(\.layer.rid).joined(separator: ",")
        Self.logger.info(
            "simulcast: sending \(names) (\(why))",
            metadata: ["estimate_bps": "\(reading.target)", "sent_bps": "\(rates[choice])", "was_bps": "\(rates[from])"])
    }
}
