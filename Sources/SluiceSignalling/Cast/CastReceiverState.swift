import Foundation

/// The receiver side of CASTV2 as pure logic: senders' virtual connections, heartbeats, the
/// receiver namespace (status, launching the Default Media Receiver, stopping it, volume) and
/// the media namespace (load, queue, play, pause, seek, stop, status), with MEDIA_STATUS and
/// RECEIVER_STATUS sent to every sender connected. The player itself is outside: this state
/// says what it must do (`Action.command`) and is told where it stands (`update`).
public struct CastReceiverState: Sendable {
    /// What to do after a message: answer one sender, command the player, close a connection.
    public enum Action: Sendable, Equatable {
        /// Send this message on TCP connection `connection`.
        case send(connection: Int, Extensions_Api_CastChannel_CastMessage)
        /// Tell the player to do this.
        case command(CastPlayerCommand)
        /// Close TCP connection `connection`, for `reason`.
        case close(connection: Int, reason: String)
    }

    /// A queue item of the media session.
    public struct Item: Sendable, Equatable {
        /// The item's id in the queue.
        public var itemId: Int
        /// The sender's MediaInformation object (`contentId`, `contentType`, …).
        public var media: JSONValue
        /// Whether the item plays as soon as it is current.
        public var autoplay: Bool
        /// Where the item starts, in seconds.
        public var startTime: Double
        /// The URL to play (`media.contentId`), empty when missing.
        public var contentID: String { media["contentId"]?.string ?? "" }
    }

    private struct VirtualConnection: Hashable {
        var connection: Int
        var source: String
        var destination: String
    }

    /// The receiver's friendly name, reported in RECEIVER_STATUS.
    public let name: String
    /// Returns why a content URL may not be played (nil: it may).
    private let refuse: @Sendable (String) -> String?
    private var connections: Set<VirtualConnection> = []
    private var sessionID: String?
    private var transportID: String?
    private var volume = (level: 1.0, muted: false)
    private var mediaSessionID = 0
    var items: [Item] = []
    var current: Int?
    private var nextItemID = 1
    var player = CastPlayerSnapshot()
    /// Requests answered with an error, by reason (for the summary and tests).
    public private(set) var refusals: [String: Int] = [:]

    /// At most this many virtual connections per TCP connection, and queue items.
    public static let maxVirtualConnections = 16
    /// The most items a media queue holds.
    public static let maxItems = 100
    /// Pause, seek, stream volume and mute, queue next (64) and previous (128), and the
    /// bits the Default Media Receiver reports.
    static let supportedMediaCommands: Int64 = 274_447 | 64 | 128

    /// A receiver called `name`; `refuse` says why a content URL may not be played (nil: it may).
    public init(name: String, refuse: @escaping @Sendable (String) -> String?) {
        self.name = name
        self.refuse = refuse
    }

    /// The running app's session, if one was launched.
    public var session: String? { sessionID }
    /// The media queue, in play order.
    public var queue: [Item] { items }
    /// The item playing or loaded, if any.
    public var currentItem: Item? { current.flatMap { i in items.first { $0.itemId == i } } }
    /// The number of TCP connections with at least one virtual connection.
    public var connectedSenders: Int { Set(connections.map(\.connection)).count }

    // MARK: Input

    /// A message from the sender on TCP connection `connection`.
    public mutating func handle(_ m: Extensions_Api_CastChannel_CastMessage, connection: Int) -> [Action] {
        let ns = m.namespace
        if ns == CastNamespace.deviceAuth { return [] } // answered by the server (binary)
        guard m.payloadType == .string, let json = JSONValue(parsing: m.payloadUtf8), json.object != nil,
            let type = json["type"]?.string
        else {
            return invalid(m, connection: connection, requestID: nil, reason: "INVALID_PARAMS")
        }
        let requestID = json["requestId"]?.int.map(Int.init) ?? 0
        switch ns {
        case CastNamespace.connection:
            let vc = VirtualConnection(connection: connection, source: m.sourceID, destination: m.destinationID)
            if type == "CONNECT" {
                guard connections.filter({ $0.connection == connection }).count < Self.maxVirtualConnections else {
                    return [.close(connection: connection, reason: "more than \(Self.maxVirtualConnections) virtual connections")]
                }
                connections.insert(vc)
            } else if type == "CLOSE" {
                connections.remove(vc)
            }
            return []
        case CastNamespace.heartbeat:
            return type == "PING" ? [reply(m, connection, ["type": "PONG"])] : []
        case CastNamespace.receiver:
            return receiver(type, json, m, connection: connection, requestID: requestID)
        case CastNamespace.media:
            guard m.destinationID == transportID else {
                return invalid(m, connection: connection, requestID: requestID, reason: "INVALID_MEDIA_SESSION_ID")
            }
            return media(type, json, m, connection: connection, requestID: requestID)
        default:
            return invalid(m, connection: connection, requestID: requestID, reason: "UNKNOWN_NAMESPACE")
        }
    }

    /// A TCP connection ended: forget its virtual connections.
    public mutating func disconnected(_ connection: Int) {
        connections = connections.filter { $0.connection != connection }
    }

    /// The player moved (started, paused, ended…): every sender hears it. An item that
    /// finished starts the next one in the queue.
    public mutating func update(_ snapshot: CastPlayerSnapshot) -> [Action] {
        let was = player
        player = snapshot
        var actions: [Action] = []
        if snapshot.playerState == "IDLE", snapshot.idleReason == "FINISHED", was.playerState != "IDLE",
            let i = current, let index = items.firstIndex(where: { $0.itemId == i }), index + 1 < items.count
        {
            let next = items[index + 1]
            current = next.itemId
            player = CastPlayerSnapshot(playerState: "BUFFERING")
            actions.append(.command(.load(url: next.contentID, startTime: next.startTime, autoplay: true)))
        }
        guard player.playerState != was.playerState || player.idleReason != was.idleReason || !actions.isEmpty else { return actions }
        return actions + mediaStatus(requestID: 0, to: nil)
    }

    /// Where the player is now: its position and duration, which move without events (its
    /// state changes come through `update`, in order, so that none is missed).
    public mutating func refresh(_ snapshot: CastPlayerSnapshot) {
        player.currentTime = snapshot.currentTime
        player.duration = snapshot.duration ?? player.duration
    }

    // MARK: Receiver namespace

    private mutating func receiver(
        _ type: String, _ json: JSONValue, _ m: Extensions_Api_CastChannel_CastMessage,
        connection: Int, requestID: Int
    ) -> [Action] {
        switch type {
        case "GET_STATUS":
            return [reply(m, connection, receiverStatus(requestID))]
        case "GET_APP_AVAILABILITY":
            let ids = json["appId"]?.array?.compactMap(\.string).prefix(32) ?? []
            var availability: [String: JSONValue] = [:]
            for id in ids { availability[id] = id == CastNamespace.defaultMediaReceiver ? "APP_AVAILABLE" : "APP_UNAVAILABLE" }
            return [
                reply(
                    m, connection,
                    [
                        "type": "GET_APP_AVAILABILITY", "requestId": .int(Int64(requestID)),
                        "responseType": "GET_APP_AVAILABILITY", "availability": .object(availability)
                    ])
            ]
        case "LAUNCH":
            guard json["appId"]?.string == CastNamespace.defaultMediaReceiver else {
                refusals["NOT_FOUND", default: 0] += 1
                return [reply(m, connection, ["type": "LAUNCH_ERROR", "requestId": .int(Int64(requestID)), "reason": "NOT_FOUND"])]
            }
            var actions: [Action] = []
            if sessionID == nil {
                let id = UUID().uuidString.lowercased()
                sessionID = id
                transportID = "web-\(id.prefix(8))"
            }
            actions += receiverStatusToAll(requestID: requestID, requester: (connection, m.sourceID))
            return actions
        case "STOP":
            guard sessionID != nil else { return [reply(m, connection, receiverStatus(requestID))] }
            let stopped = stopApp()
            return stopped + receiverStatusToAll(requestID: requestID, requester: (connection, m.sourceID))
        case "SET_VOLUME":
            if let level = json["volume"]?["level"].flatMap(Self.number) { volume.level = min(1, max(0, level)) }
            if let muted = json["volume"]?["muted"]?.bool { volume.muted = muted }
            var actions: [Action] = [.command(.volume(level: volume.level, muted: volume.muted))]
            actions += receiverStatusToAll(requestID: requestID, requester: (connection, m.sourceID))
            if transportID != nil, current != nil { actions += mediaStatus(requestID: 0, to: nil) }
            return actions
        default:
            return invalid(m, connection: connection, requestID: requestID, reason: "INVALID_COMMAND")
        }
    }

    private mutating func stopApp() -> [Action] {
        let stopping = current != nil
        sessionID = nil
        transportID = nil
        items = []
        current = nil
        player = CastPlayerSnapshot()
        connections = connections.filter { $0.destination == CastNamespace.platform }
        return stopping ? [.command(.stop)] : []
    }

    private func receiverStatus(_ requestID: Int) -> JSONValue {
        var status: [String: JSONValue] = [
            "volume": ["level": .number(volume.level), "muted": .bool(volume.muted), "controlType": "attenuation", "stepInterval": .number(0.05)],
            "isActiveInput": true, "isStandBy": false
        ]
        if let sessionID, let transportID {
            status["applications"] = [
                [
                    "appId": .string(CastNamespace.defaultMediaReceiver), "displayName": "Default Media Receiver",
                    "sessionId": .string(sessionID), "transportId": .string(transportID),
                    "statusText": .string(currentItem.map { "Casting: \($0.media["metadata"]?["title"]?.string ?? $0.contentID)" } ?? "Ready To Cast"),
                    "isIdleScreen": .bool(currentItem == nil), "launchedFromCloud": false,
                    "namespaces": [["name": .string(CastNamespace.media)]]
                ]
            ]
        }
        return ["type": "RECEIVER_STATUS", "requestId": .int(Int64(requestID)), "status": .object(status)]
    }

    /// RECEIVER_STATUS to every sender connected to the platform: the requester's requestId to it, 0 to the others.
    private func receiverStatusToAll(requestID: Int, requester: (Int, String)) -> [Action] {
        var actions: [Action] = []
        for vc in connections where vc.destination == CastNamespace.platform {
            let id = vc.connection == requester.0 && vc.source == requester.1 ? requestID : 0
            actions.append(
                .send(
                    connection: vc.connection,
                    CastFrame.message(
                        from: CastNamespace.platform, to: vc.source,
                        namespace: CastNamespace.receiver, json: receiverStatus(id))))
        }
        if !connections.contains(where: { $0.connection == requester.0 && $0.source == requester.1 && $0.destination == CastNamespace.platform }) {
            actions.append(
                .send(
                    connection: requester.0,
                    CastFrame.message(
                        from: CastNamespace.platform, to: requester.1,
                        namespace: CastNamespace.receiver, json: receiverStatus(requestID))))
        }
        return actions
    }

    // MARK: Media namespace

    /// One item a LOAD or QUEUE_LOAD asks for, before it has an item id.
    private struct LoadEntry {
        var media: JSONValue
        var autoplay: Bool
        var startTime: Double
    }

    /// What a LOAD or QUEUE_LOAD asks for: the new queue's items and the index of the one to play.
    private struct LoadRequest {
        var entries: [LoadEntry]
        var start: Int
    }

    /// A media-namespace request, sent to the command's handler.
    private mutating func media(
        _ type: String, _ json: JSONValue, _ m: Extensions_Api_CastChannel_CastMessage,
        connection: Int, requestID: Int
    ) -> [Action] {
        switch type {
        case "GET_STATUS":
            return mediaStatus(requestID: requestID, to: (connection, m.sourceID), only: true)
        case "LOAD", "QUEUE_LOAD":
            return load(type, json, m, connection: connection, requestID: requestID)
        case "QUEUE_INSERT":
            return queueInsert(json, m, connection: connection, requestID: requestID)
        case "QUEUE_UPDATE", "QUEUE_NEXT", "QUEUE_PREV", "QUEUE_REMOVE":
            return queueChange(type, json, m, connection: connection, requestID: requestID)
        case "PLAY", "PAUSE", "SEEK", "STOP":
            return playback(type, json, m, connection: connection, requestID: requestID)
        default:
            return invalid(m, connection: connection, requestID: requestID, reason: "INVALID_COMMAND")
        }
    }

    /// LOAD (one `media`) or QUEUE_LOAD (`items`, `startIndex`): every item's URL is checked,
    /// then the queue is replaced and its start item loaded.
    private mutating func load(
        _ type: String, _ json: JSONValue, _ m: Extensions_Api_CastChannel_CastMessage,
        connection: Int, requestID: Int
    ) -> [Action] {
        guard let request = Self.loadRequest(type, json), !request.entries.isEmpty, request.entries.count <= Self.maxItems,
            (0..<request.entries.count).contains(request.start)
        else {
            return invalid(m, connection: connection, requestID: requestID, reason: "INVALID_PARAMS")
        }
        for entry in request.entries {
            if let why = whyNotPlayable(entry.media) { return loadFailed(m, connection: connection, requestID: requestID, why: why) }
        }
        return replaceQueue(request) + mediaStatus(requestID: requestID, to: (connection, m.sourceID))
    }

    /// The items and start index a LOAD or QUEUE_LOAD names (nil: a LOAD without a `media` mapping).
    private static func loadRequest(_ type: String, _ json: JSONValue) -> LoadRequest? {
        if type == "LOAD" {
            guard let media = json["media"], media.object != nil else { return nil }
            return LoadRequest(
                entries: [
                    LoadEntry(
                        media: media, autoplay: json["autoplay"]?.bool ?? true,
                        startTime: json["currentTime"].flatMap(Self.number) ?? 0)
                ],
                start: 0)
        }
        let entries = (json["items"]?.array ?? []).map {
            LoadEntry(
                media: $0["media"] ?? .null, autoplay: $0["autoplay"]?.bool ?? true,
                startTime: $0["startTime"].flatMap(Self.number) ?? 0)
        }
        return LoadRequest(entries: entries, start: Int(json["startIndex"]?.int ?? 0))
    }

    /// Why an item's media may not be played: it has no content URL, or the URL is refused (nil: it may).
    private func whyNotPlayable(_ media: JSONValue) -> String? {
        guard let url = media["contentId"]?.string ?? media["contentUrl"]?.string else { return "no contentId" }
        return refuse(url)
    }

    /// Replaces the queue with the request's items in a new media session and loads the start
    /// item (stopping what played before).
    private mutating func replaceQueue(_ request: LoadRequest) -> [Action] {
        let hadMedia = current != nil
        items = request.entries.map { entry in
            defer { nextItemID += 1 }
            return Item(itemId: nextItemID, media: entry.media, autoplay: entry.autoplay, startTime: entry.startTime)
        }
        mediaSessionID += 1
        let first = items[request.start]
        current = first.itemId
        player = CastPlayerSnapshot(playerState: "BUFFERING", currentTime: first.startTime)
        var actions: [Action] = hadMedia ? [.command(.stop)] : []
        actions.append(.command(.load(url: first.contentID, startTime: first.startTime, autoplay: first.autoplay)))
        return actions
    }

    /// QUEUE_INSERT: `items` added before `insertBefore` (or at the end) of the playing queue.
    private mutating func queueInsert(
        _ json: JSONValue, _ m: Extensions_Api_CastChannel_CastMessage,
        connection: Int, requestID: Int
    ) -> [Action] {
        guard current != nil else { return invalid(m, connection: connection, requestID: requestID, reason: "INVALID_MEDIA_SESSION_ID") }
        let new = json["items"]?.array ?? []
        guard !new.isEmpty, items.count + new.count <= Self.maxItems else {
            return invalid(m, connection: connection, requestID: requestID, reason: "INVALID_PARAMS")
        }
        var inserted: [Item] = []
        for entry in new {
            guard let media = entry["media"], let url = media["contentId"]?.string ?? media["contentUrl"]?.string else {
                return invalid(m, connection: connection, requestID: requestID, reason: "INVALID_PARAMS")
            }
            if let why = refuse(url) { return loadFailed(m, connection: connection, requestID: requestID, why: why) }
            inserted.append(
                Item(
                    itemId: nextItemID, media: media, autoplay: entry["autoplay"]?.bool ?? true,
                    startTime: entry["startTime"].flatMap(Self.number) ?? 0))
            nextItemID += 1
        }
        if let before = json["insertBefore"]?.int, let at = items.firstIndex(where: { $0.itemId == Int(before) }) {
            items.insert(contentsOf: inserted, at: at)
        } else {
            items += inserted
        }
        return mediaStatus(requestID: requestID, to: (connection, m.sourceID))
    }

    /// PLAY, PAUSE, SEEK (`currentTime`, `resumeState`) and STOP of the current media session.
    private mutating func playback(
        _ type: String, _ json: JSONValue, _ m: Extensions_Api_CastChannel_CastMessage,
        connection: Int, requestID: Int
    ) -> [Action] {
        guard current != nil, json["mediaSessionId"]?.int.map(Int.init) == mediaSessionID else {
            return invalid(m, connection: connection, requestID: requestID, reason: "INVALID_MEDIA_SESSION_ID")
        }
        var actions: [Action]
        switch type {
        case "PLAY": actions = [.command(.play)]; player.playerState = "PLAYING"
        case "PAUSE": actions = [.command(.pause)]; player.playerState = "PAUSED"
        case "SEEK":
            guard let t = json["currentTime"].flatMap(Self.number), t >= 0 else {
                return invalid(m, connection: connection, requestID: requestID, reason: "INVALID_PARAMS")
            }
            actions = [.command(.seek(t))]
            player.currentTime = t
            if json["resumeState"]?.string == "PLAYBACK_START" { actions.append(.command(.play)); player.playerState = "PLAYING" }
            if json["resumeState"]?.string == "PLAYBACK_PAUSE" { actions.append(.command(.pause)); player.playerState = "PAUSED" }
        default:
            actions = [.command(.stop)]
            current = nil
            items = []
            player = CastPlayerSnapshot(playerState: "IDLE", idleReason: "CANCELLED")
        }
        return actions + mediaStatus(requestID: requestID, to: (connection, m.sourceID))
    }

    private func mediaStatusJSON(_ requestID: Int) -> JSONValue {
        var entries: [JSONValue] = []
        if let item = currentItem {
            var media = item.media.object ?? [:]
            if let d = player.duration { media["duration"] = .number(d) }
            if media["streamType"] == nil { media["streamType"] = "BUFFERED" }
            var s: [String: JSONValue] = [
                "mediaSessionId": .int(Int64(mediaSessionID)), "playbackRate": 1, "playerState": .string(player.playerState),
                "currentTime": .number(player.currentTime), "supportedMediaCommands": .int(Self.supportedMediaCommands),
                "volume": ["level": .number(volume.level), "muted": .bool(volume.muted)],
                "media": .object(media), "currentItemId": .int(Int64(item.itemId)), "repeatMode": "REPEAT_OFF",
                "items": .array(items.map { ["itemId": .int(Int64($0.itemId)), "media": $0.media, "autoplay": .bool($0.autoplay)] })
            ]
            if let r = player.idleReason, player.playerState == "IDLE" { s["idleReason"] = .string(r) }
            entries.append(.object(s))
        } else if player.playerState == "IDLE", let r = player.idleReason {
            entries.append([
                "mediaSessionId": .int(Int64(mediaSessionID)), "playerState": "IDLE", "idleReason": .string(r),
                "currentTime": 0, "playbackRate": 1, "supportedMediaCommands": .int(Self.supportedMediaCommands),
                "volume": ["level": .number(volume.level), "muted": .bool(volume.muted)]
            ])
        }
        return ["type": "MEDIA_STATUS", "requestId": .int(Int64(requestID)), "status": .array(entries)]
    }

    /// MEDIA_STATUS to every sender connected to the app (requester: its requestId; `only`: just to it).
    func mediaStatus(requestID: Int, to requester: (Int, String)?, only: Bool = false) -> [Action] {
        guard let transportID else { return [] }
        var actions: [Action] = []
        var targets = only ? [] : connections.filter { $0.destination == transportID }.map { ($0.connection, $0.source) }
        if let requester, !targets.contains(where: { $0 == requester }) { targets.append(requester) }
        for (conn, source) in targets.sorted(by: { ($0.0, $0.1) < ($1.0, $1.1) }) {
            let id = requester.map { $0 == (conn, source) } == true ? requestID : 0
            actions.append(
                .send(
                    connection: conn,
                    CastFrame.message(
                        from: transportID, to: source, namespace: CastNamespace.media,
                        json: mediaStatusJSON(id))))
        }
        return actions
    }

    // MARK: Replies

    private func reply(_ m: Extensions_Api_CastChannel_CastMessage, _ connection: Int, _ json: JSONValue) -> Action {
        .send(connection: connection, CastFrame.message(from: m.destinationID, to: m.sourceID, namespace: m.namespace, json: json))
    }

    mutating func invalid(_ m: Extensions_Api_CastChannel_CastMessage, connection: Int, requestID: Int?, reason: String) -> [Action] {
        refusals[reason, default: 0] += 1
        return [reply(m, connection, ["type": "INVALID_REQUEST", "requestId": .int(Int64(requestID ?? 0)), "reason": .string(reason)])]
    }

    private mutating func loadFailed(_ m: Extensions_Api_CastChannel_CastMessage, connection: Int, requestID: Int, why: String) -> [Action] {
        refusals["LOAD_FAILED", default: 0] += 1
        return [
            reply(
                m, connection,
                [
                    "type": "LOAD_FAILED", "requestId": .int(Int64(requestID)), "itemId": .int(Int64(nextItemID)),
                    "detailedErrorCode": 104, "reason": .string(String(why.prefix(200)))
                ])
        ]
    }

    static func number(_ v: JSONValue) -> Double? {
        switch v {
        case .number(let d): d.isFinite ? d : nil
        case .int(let i): Double(i)
        default: nil
        }
    }
}
