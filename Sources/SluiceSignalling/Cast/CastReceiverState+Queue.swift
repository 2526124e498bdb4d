import Foundation

/// Moving through the media session's queue.
extension CastReceiverState {
    /// QUEUE_UPDATE (`jump` ±N, `currentItemId`, `currentTime`, `items`' autoplay), QUEUE_NEXT,
    /// QUEUE_PREV (pychromecast sends QUEUE_UPDATE with jump ±1) and QUEUE_REMOVE (`itemIds`,
    /// not the playing item). A jump off either end of the queue is INVALID_PARAMS, nothing moves.
    mutating func queueChange(
        _ type: String, _ json: JSONValue, _ m: Extensions_Api_CastChannel_CastMessage,
        connection: Int, requestID: Int
    ) -> [Action] {
        guard let playing = current, let index = items.firstIndex(where: { $0.itemId == playing }) else {
            return invalid(m, connection: connection, requestID: requestID, reason: "INVALID_MEDIA_SESSION_ID")
        }
        let requester = (connection, m.sourceID)
        if type == "QUEUE_REMOVE" {
            let ids = Set((json["itemIds"]?.array ?? []).prefix(Self.maxItems).compactMap { $0.int.map(Int.init) })
            guard !ids.isEmpty, !ids.contains(playing) else {
                return invalid(m, connection: connection, requestID: requestID, reason: "INVALID_PARAMS")
            }
            items.removeAll { ids.contains($0.itemId) }
            return mediaStatus(requestID: requestID, to: requester)
        }
        var target: Int?
        switch type {
        case "QUEUE_NEXT": target = index + 1
        case "QUEUE_PREV": target = index - 1
        default:
            if let jump = json["jump"]?.int {
                guard jump.magnitude <= UInt64(Self.maxItems) else {
                    return invalid(m, connection: connection, requestID: requestID, reason: "INVALID_PARAMS")
                }
                target = index + Int(jump)
            } else if let id = json["currentItemId"]?.int {
                target = items.firstIndex { Int64($0.itemId) == id } ?? -1
            }
            for change in (json["items"]?.array ?? []).prefix(Self.maxItems) {
                guard let id = change["itemId"]?.int, let i = items.firstIndex(where: { Int64($0.itemId) == id }) else { continue }
                if let autoplay = change["autoplay"]?.bool { items[i].autoplay = autoplay }
                if let start = change["startTime"].flatMap(Self.number), start >= 0 { items[i].startTime = start }
            }
        }
        guard let target else { return mediaStatus(requestID: requestID, to: requester) }
        guard items.indices.contains(target) else {
            return invalid(m, connection: connection, requestID: requestID, reason: "INVALID_PARAMS")
        }
        let next = items[target]
        let start = json["currentTime"].flatMap(Self.number).flatMap { $0 >= 0 ? $0 : nil } ?? next.startTime
        current = next.itemId
        player = CastPlayerSnapshot(playerState: "BUFFERING", currentTime: start)
        return [.command(.stop), .command(.load(url: next.contentID, startTime: start, autoplay: true))]
            + mediaStatus(requestID: requestID, to: requester)
    }
}
