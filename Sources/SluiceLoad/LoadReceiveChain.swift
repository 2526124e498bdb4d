import GStreamer
import SluiceRun
import SluiceMeasure

/// What a load client builds behind each stream its webrtcbin exposes. Video: depayloader
/// and parser, whose frames are counted (with keyframes and bytes) into the client's
/// `FrameTrack`; a decoding client then decodes and reads framestamps (`framestamp-read`,
/// named `c<ID>-read` so its events find their client). Audio: each RTP packet's sequence
/// number and timestamp are counted into the client's `ClientAudio`; a decoding client then
/// depayloads, decodes and reads audio stamps (`audiostamp-read`, named `c<ID>-aread`); the
/// others' audio goes to a fakesink.
package struct LoadReceiveChain {
    /// The stream on one of the client's pads.
    package struct Arrival {
        package var media: MediaKind
        package var codec: Codec
    }

    /// The element whose events carry a client's glass-to-glass delays.
    package static func readerName(client: Int) -> String { "c\(client)-read" }

    /// The element whose events carry a client's mouth-to-ear delays.
    package static func audioReaderName(client: Int) -> String { "c\(client)-aread" }

    /// The client a reader's name belongs to (`c12-read` → 12).
    package static func client(ofReader name: String) -> Int? {
        guard name.hasPrefix("c"), name.hasSuffix("-read") else { return nil }
        return Int(name.dropFirst().dropLast(5))
    }

    /// The client an audio reader's name belongs to (`c12-aread` → 12).
    package static func client(ofAudioReader name: String) -> Int? {
        guard name.hasPrefix("c"), name.hasSuffix("-aread") else { return nil }
        return Int(name.dropFirst().dropLast(6))
    }

    /// The medium and codec on `pad` (nil: not audio or video, or a codec Sluice does not know).
    package static func arrival(on pad: Pad) -> Arrival? {
        guard let caps = pad.currentCaps ?? pad.queryCaps(), let s = caps.structure(at: 0),
            let media = MediaKind(rawValue: s.get("media", as: String.self) ?? "")
        else { return nil }
        let encodingName = (s.get("encoding-name", as: String.self) ?? "").uppercased()
        guard let codec = Codec.allCases.first(where: { $0.encodingName == encodingName }) else { return nil }
        return Arrival(media: media, codec: codec)
    }

    /// Makes the file's receive-side encoded filters for a stream (`LoadEncodedFilters`).
    package typealias EncodedFilters = (Arrival) throws(RunError) -> [Element]

    /// The elements for `arrival`, unlinked: the counted element (whose src pad carries
    /// whole encoded frames) and the whole chain in order. With `prefix`, each is named
    /// `<prefix>-<medium>-<factory>` (a pipeline shared by many clients tells them apart).
    /// `encoded`: the encoded filters go right after the depayloader (so frames they drop are
    /// neither counted nor decoded); sound that is not decoded is not depayloaded, and has none.
    package static func elements(
        for arrival: Arrival, client: Int, decodes: Bool, prefix: String? = nil, encoded: [Element] = []
    ) throws(GstError) -> (counted: Element?, chain: [Element]) {
        let make = { (factory: String) throws(GstError) -> Element in
            try Element.make(factory, name: prefix.map { "\($0)-\(arrival.media.rawValue)-\(factory)" })
        }
        let sink = try make("fakesink")
        try sink.set("sync", false)
        try sink.set("async", false)
        try sink.set("enable-last-sample", false)
        guard arrival.media == .video else {
            guard decodes, let reader = FilterRegistry.shared.audioFilter(named: MeasurePlan.audioReader) else { return (nil, [sink]) }
            let chain =
                [try make(DefaultElements.depayloader(for: arrival.codec))] + encoded + [
                    try make(DefaultElements.decoder(for: arrival.codec)),
                    try make("audioconvert"), try Element.make(reader.elementName, name: audioReaderName(client: client))
                ]
            return (nil, chain + [sink])
        }
        let depay = try make(DefaultElements.depayloader(for: arrival.codec))
        try depay.set("request-keyframe", true)
        var chain = [depay] + encoded
        if let parser = DefaultElements.parser(for: arrival.codec) { chain.append(try make(parser)) }
        let counted = chain[chain.count - 1]
        if decodes {
            let decoder = try make(DefaultElements.decoder(for: arrival.codec))
            if !encoded.isEmpty { GraphBuilder.asksForKeyframesOnMissingData(decoder) }
            chain.append(decoder)
            chain.append(try make("videoconvert"))
            if FilterRegistry.shared.filter(named: MeasurePlan.reader) != nil {
                chain.append(try Element.make("sluice-" + MeasurePlan.reader, name: readerName(client: client)))
            }
        }
        return (counted, chain + [sink])
    }

    /// Builds the chain for the stream on `pad` (a webrtcbin's new src pad) into `pipeline`,
    /// links it, counts its frames into `record`, and returns what it added (nil: not a stream
    /// Sluice reads). Throws the reason, with the medium and codec, when it cannot.
    package static func attach(
        _ pad: Pad, into pipeline: Pipeline, client: Int, decodes: Bool, prefix: String? = nil,
        record: LoadFrameRecorder, encodedFilters: EncodedFilters? = nil
    ) throws(RunError) -> [Element]? {
        guard pad.direction == .src, let arrival = arrival(on: pad) else { return nil }
        let encoded = arrival.media == .audio && !decodes ? [] : try encodedFilters?(arrival) ?? []
        var added: [Element] = []
        do {
            let (counted, chain) = try elements(for: arrival, client: client, decodes: decodes, prefix: prefix, encoded: encoded)
            try pipeline.add(chain)
            added = chain
            for (a, b) in zip(chain, chain.dropFirst()) { try a.link(b) }
            if let src = counted?.staticPad("src") { LoadFrameCount.install(on: src, record: record) }
            if arrival.media == .audio, let entrance = chain[0].staticPad("sink") {
                LoadAudioCount.install(on: entrance, record: record.audioPacket)
                if decodes, chain.count > 1, let reader = chain[chain.count - 2].staticPad("sink") {
                    LoadAudioCount.installDecoded(on: reader, record: record.decodedAudio)
                }
            }
            for e in chain.reversed() { _ = e.syncStateWithParent() }
            guard let entrance = chain[0].staticPad("sink") else { return added }
            try pad.link(entrance)
            return added
        } catch {
            for e in added {
                e.setState(.null)
                try? pipeline.remove(e)
            }
            throw RunError("cannot receive \(arrival.media.rawValue) (\(arrival.codec.rawValue)): \(error.message)")
        }
    }
}
