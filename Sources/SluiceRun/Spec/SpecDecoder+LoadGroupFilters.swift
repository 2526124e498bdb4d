import Foundation

/// A load group's `encoded_filters:` (`LoadGroup.encodedFilters`).
extension SpecDecoder {
    /// `encoded_filters: {video: [...], audio: [...]}` in a load group: the same lists as a
    /// branch's `encoded_filters:`, checked against the codecs the file sends or receives in
    /// that medium.
    package mutating func decodeGroupEncodedFilters(_ entry: SpecEntry, group: String, for spec: PipelineSpec?) -> [MediaKind: [FilterSpec]] {
        guard let map = mapping(entry) else { return [:] }
        checkKeys(map, allowed: MediaKind.allCases.map(\.rawValue), context: "in a load group's encoded_filters")
        var lists: [MediaKind: [FilterSpec]] = [:]
        for media in MediaKind.allCases {
            guard let e = map.entry(media.rawValue) else { continue }
            let filters = decodeFilters(e, media: media, encoded: true)
            guard !filters.isEmpty else { continue }
            lists[media] = filters
            guard let spec else { continue }
            let send = spec.sendBranches.first { $0.media == media }
            let receive = spec.receiveBranches.first { $0.media == media }
            if let send {
                checkEncodedFilterCodecs(
                    filters, codecs: [send.encode.codec], branch: "load group '\(group)': send.\(media) encodes \(send.encode.codec.rawValue)",
                    advice: "encode with a codec it handles")
            } else if let receive {
                let codecs = receive.codecs.isEmpty ? Codec.allCases.filter { $0.media == media } : receive.codecs
                checkEncodedFilterCodecs(
                    filters, codecs: codecs, branch: "load group '\(group)': receive.\(media) accepts \(codecs.map(\.rawValue).joined(separator: ", "))",
                    advice: "list the codecs it handles in `receive.\(media).codecs`")
            } else {
                fail(
                    "load group '\(group)' has encoded filters for \(media), but the file neither sends nor receives \(media); remove them, or add \(media) to `send:` or `receive:`",
                    at: e.keyLocation)
            }
        }
        return lists
    }
}
