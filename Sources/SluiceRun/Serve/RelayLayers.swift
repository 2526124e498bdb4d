import GStreamer
import Logging
import SluiceSignalling
import Synchronization

/// The simulcast layers of a relayed WHIP publisher (`SimulcastOffer`): webrtcbin 1.22 gives
/// each of the publisher's SSRCs a pad of its own, and the relay forwards each through a
/// depayloader to a tee, as it does a single stream. This table learns which layer a pad
/// carries, from the RTP stream id extension of its packets, and how large its picture is,
/// from its first keyframe; the layers then become the rungs a viewer's `RenditionSwitch`
/// chooses between, largest first, without anything decoded or encoded again.
///
/// Layers are ready to serve once every announced layer has shown its picture size, or
/// `settleNs` after the first did: a layer the publisher announces but never sends is
/// never offered. A layer whose packets come without a keyframe is asked for one (a PLI to
/// the publisher) until it shows its size: a publisher's first keyframes can go before its
/// DTLS is up, and it sends the next only when its interval comes or it is asked; a layer
/// sized after the others were served would reach later viewers only.
package final class RelayLayers: Sendable {
    package let offer: SimulcastOffer
    private struct Layer {
        var ssrc: UInt32
        var rid: String?
        var output: RenditionOutput
        var width = 0, height = 0
    }
    private struct State {
        var layers: [UInt32: Layer] = [:]
        var firstSizedNs: UInt64?
    }
    private let state = Mutex(State())
    /// How long after the first layer's size the others may take to show theirs.
    package static let settleNs: UInt64 = 2_000_000_000

    /// How often, and for how long after a layer's first packet, a layer without its size
    /// is asked for a keyframe.
    package static let askEveryNs: UInt64 = 300_000_000
    package static let askForNs: UInt64 = 10_000_000_000
    private static let logger = Logger(label: "sluice.relay")

    package init(offer: SimulcastOffer) { self.offer = offer }

    /// Adds the layer arriving on `pad` (the publisher's webrtcbin, RTP) and forwarded to
    /// `tee` (encoded frames): its stream id is read from `pad`'s packets, its size from the
    /// first keyframe entering `tee`.
    package func watch(pad: Pad, ssrc: UInt32, tee: Element, codec: Codec) {
        let output = RenditionOutput(
            rendition: Rendition(name: "ssrc-\(ssrc)", width: 0, height: 0, bitrateKbps: 0), index: 0, tee: tee, encoder: nil,
            keyframeRequests: nil)
        output.meter.count(at: tee)
        state.withLock { $0.layers[ssrc] = Layer(ssrc: ssrc, output: output) }
        askForKeyframeUntilSized(ssrc: ssrc)
        if let id = offer.ridExtensionID {
            // Packets to look in before giving up (browsers tag every packet until acknowledged).
            let left = RelayCounter(200)
            pad.addProbe { [weak self] (info: borrowing Pad.ProbeInfo) in
                guard let self, left.take() else { return .remove }
                guard let rid = info.buffer?.withBytes({ RTPPacketReading.streamID(id, in: $0) }) ?? nil else { return .ok }
                self.state.withLock { $0.layers[ssrc]?.rid = rid }
                return .remove
            }
        }
        tee.staticPad("sink")?.addProbe { [weak self] (info: borrowing Pad.ProbeInfo) in
            guard let self else { return .remove }
            guard let buffer = info.buffer, !buffer.isDeltaUnit else { return .ok }
            let size = codec == .vp8 ? buffer.withBytes { RTPPacketReading.vp8KeyframeSize($0) } ?? nil : Self.size(of: info.currentCaps)
            guard let size else { return .ok }
            self.state.withLock { s in
                s.layers[ssrc]?.width = size.width
                s.layers[ssrc]?.height = size.height
                if s.firstSizedNs == nil { s.firstSizedNs = StageTimer.now() }
            }
            return .remove
        }
    }

    /// Asks layer `ssrc` for a keyframe upstream of its tee (its depayloader passes the request
    /// to webrtcbin, which sends the publisher a PLI) every `askEveryNs` until it has its size,
    /// for `askForNs` at most, or until the relay is gone.
    private func askForKeyframeUntilSized(ssrc: UInt32) {
        let started = StageTimer.now()
        Task.detached { [weak self] in
            while StageTimer.now() &- started < Self.askForNs {
                try? await Task.sleep(for: .nanoseconds(Self.askEveryNs))
                guard let self, let unsized = self.state.withLock({ $0.layers[ssrc] }), unsized.width == 0 else { return }
                Self.logger.debug("relay: layer \(unsized.rid ?? "ssrc-\(ssrc)") shows no keyframe yet; asking the publisher for one")
                _ = unsized.output.tee.staticPad("sink")?.pushEvent(.forceKeyUnit())
            }
        }
    }

    private static func size(of caps: Caps?) -> (width: Int, height: Int)? {
        guard let s = caps?.structure(at: 0), let w = s.get("width", as: Int32.self), let h = s.get("height", as: Int32.self), w > 0, h > 0
        else { return nil }
        return (Int(w), Int(h))
    }

    /// The layers to serve, largest picture first (nil until they are ready). Each rung is
    /// named by its stream id (or `ssrc-<n>` without one) and has its picture size.
    package func ranked(nowNs: UInt64 = StageTimer.now()) -> [RenditionOutput]? {
        let layers = state.withLock { s -> [Layer]? in
            let sized = s.layers.values.filter { $0.width > 0 }
            guard let first = s.firstSizedNs else { return nil }
            let announced = offer.rids.count
            guard sized.count >= announced || nowNs &- first >= Self.settleNs else { return nil }
            return sized.sorted { ($0.width * $0.height, $1.ssrc) > ($1.width * $1.height, $0.ssrc) }
        }
        let names = self.names
        return layers?.enumerated().map { index, layer in
            layer.output.named(names[layer.ssrc] ?? "ssrc-\(layer.ssrc)", width: layer.width, height: layer.height, index: index)
        }
    }

    /// The stream ids of the layers seen so far, with their SSRCs and picture sizes, largest first.
    package var seen: [(rid: String, ssrc: UInt32, width: Int, height: Int)] {
        let names = self.names
        return state.withLock { s in
            s.layers.values.sorted { ($0.width * $0.height, $1.ssrc) > ($1.width * $1.height, $0.ssrc) }
                .map { (names[$0.ssrc] ?? "ssrc-\($0.ssrc)", $0.ssrc, $0.width, $0.height) }
        }
    }

    private var names: [UInt32: String] {
        Self.names(rids: state.withLock { $0.layers.mapValues(\.rid) }, announced: offer.rids)
    }

    /// What each layer (by SSRC) is called: the stream id its packets showed; for the one
    /// layer whose packets showed none, once every announced layer is there, the one
    /// announced stream id no other layer has (a browser stops writing a layer's stream id
    /// once the receiver's reports acknowledge it, so a layer whose packets were looked at
    /// late shows none: seen in Chromium's smallest layer on a loaded machine); otherwise
    /// `ssrc-<n>`.
    package static func names(rids: [UInt32: String?], announced: [String]) -> [UInt32: String] {
        var names = rids.reduce(into: [UInt32: String]()) { out, layer in out[layer.key] = layer.value ?? "ssrc-\(layer.key)" }
        let unnamed = rids.filter { $0.value == nil }.map(\.key)
        let unclaimed = Set(announced).subtracting(rids.values.compactMap { $0 })
        if rids.count == announced.count, unnamed.count == 1, unclaimed.count == 1, let ssrc = unnamed.first {
            names[ssrc] = unclaimed.first
        }
        return names
    }
}
