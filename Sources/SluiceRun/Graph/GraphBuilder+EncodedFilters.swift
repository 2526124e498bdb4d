import GStreamer
import SluiceFilterKit

/// Where `encoded_filters:` go in a branch. They see whole frames, as browsers' encoded
/// transforms do (H.264: see `EncodedFrame.bytes` for the format on each side).
extension GraphBuilder {
    /// The encoder chain with the send branch's encoded filters after the encoder: H.264 after
    /// the parser, as the AVC access units the payloader takes (h264parse reads every slice
    /// header, which an encrypted frame no longer has; `e2ee` and `sei` handle AVC and Annex
    /// B alike), other codecs before their parser when they have one, else at the end.
    /// Between encoder and payloader, so the GOP cache, `record:` and the payloader all get
    /// what the filters let through.
    /// The place is recorded (`encodedSendSections`) even without filters: `--watch` can put
    /// some there while the branch runs.
    package func withEncodedFilters(_ branch: SendBranchSpec, in encoding: [Element]) throws(RunError) -> [Element] {
        let at = Self.encodedFilterPlace(branch.encode.codec, in: encoding)
        let filters = branch.encodedFilters.isEmpty ? [] : try recordedEncodedFilters(branch.encodedFilters, .send, branch.media)
        if at <= encoding.count {
            let section = EncodedSendSection(
                head: encoding[at - 1], elements: filters, specs: branch.encodedFilters,
                payloaderParses: payloaderFactory(for: branch) != OpaquePayloaders.factory(for: branch.encode.codec, opaque: true),
                codec: branch.encode.codec, payloader: payloaderFactory(for: branch))
            state.withLock { $0.encodedSendSections[branch.media] = section }
        }
        return Array(encoding[..<at]) + filters + Array(encoding[at...])
    }

    /// Where in an encoder chain the encoded filters go (see `withEncodedFilters`): the index
    /// of the element they go before, at least 1 (after the encoder).
    static func encodedFilterPlace(_ codec: Codec, in encoding: [Element]) -> Int {
        let parser = DefaultElements.parser(for: codec)
        let beforeParser = codec == .h264 ? nil : encoding.firstIndex { parser != nil && $0.factoryName == parser }
        return max(1, beforeParser ?? encoding.count)
    }

    /// A simulcast layer's encoder chain with the branch's encoded filters, placed as in
    /// `withEncodedFilters`: one list per layer (each layer has its own encoder, and `e2ee`
    /// its own IV counter per list), recorded with the branch's so that a change of their
    /// settings reaches every layer.
    package func layerWithEncodedFilters(_ branch: SendBranchSpec, in encoding: [Element]) throws(RunError) -> [Element] {
        guard !branch.encodedFilters.isEmpty else { return encoding }
        let at = min(Self.encodedFilterPlace(branch.encode.codec, in: encoding), encoding.count)
        let filters = try recordedEncodedFilters(branch.encodedFilters, .send, branch.media)
        return Array(encoding[..<at]) + filters + Array(encoding[at...])
    }

    /// A passed-through capture's encoded filters, after its queue. Its H.264 arrives as the
    /// encoder's does after `h264parse` (`parserChain`: AVC access units, SPS and PPS before
    /// every IDR), so the filters see the same form either way.
    package func passthroughEncodedFilters(_ branch: SendBranchSpec) throws(RunError) -> [Element] {
        guard !branch.encodedFilters.isEmpty else { return [] }
        return try recordedEncodedFilters(branch.encodedFilters, .send, branch.media)
    }

    /// A receive branch's encoded filters, between the depayloader and the parser: H.264 as
    /// rtph264depay's Annex B access units (a caps filter asks for them), with every NAL unit
    /// the sender sent in-band (in AVC the depayloader would move SPS and PPS into the caps),
    /// as a browser's encoded transform gets them; the parser then sees what the filters let
    /// through (decrypted slices, for `e2ee`).
    package func receivedEncodedFilters(_ stream: ArrivingStream) throws(RunError) -> [Element] {
        let specs = stream.branch.encodedFilters
        guard !specs.isEmpty else { return [] }
        var out: [Element] = []
        if stream.codec == .h264 {
            out.append(
                try make("capsfilter", [("caps", "video/x-h264,stream-format=byte-stream,alignment=au")], at: specs.first?.location))
        }
        return out + (try recordedEncodedFilters(specs, .receive, stream.branch.media))
    }

    /// The filters' elements, recorded under their branch for the control API.
    private func recordedEncodedFilters(_ specs: [FilterSpec], _ side: BranchSide, _ media: MediaKind) throws(RunError) -> [Element] {
        let elements = try filterElements(specs, encoded: side == .send ? .send : .receive)
        state.withLock { $0.encodedFilterLists[BranchKey(side: side, media: media), default: []].append(EncodedFilterList(specs: specs, elements: elements)) }
        return elements
    }

    /// The branch's RTP payloader: GStreamer's for the codec, except VP8 and VP9 behind
    /// encoded filters, which may change what `rtpvp8pay` and `rtpvp9pay` would parse
    /// (`OpaquePayloaders`).
    package func payloaderFactory(for branch: SendBranchSpec) -> String {
        OpaquePayloaders.factory(for: branch.encode.codec, opaque: !branch.encodedFilters.isEmpty)
    }
}
