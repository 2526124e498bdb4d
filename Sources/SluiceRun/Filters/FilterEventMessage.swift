import GStreamer

/// A Swift filter's event (`FilterContext.emit`) as it travels on the bus: an element
/// message `sluice-filter-event` with `filter`, `event` and the numeric fields.
package struct FilterEventMessage: Sendable {
    package static let name = "sluice-filter-event"
    package var filter: String
    package var event: String
    package var fields: [String: Double]

    /// The message's structure.
    package var structure: Structure {
        let s = Structure(name: Self.name)
        s.set("filter", filter)
        s.set("event", event)
        for (k, v) in fields { s.set(k, v) }
        return s
    }

    /// Reads one from a bus message's structure; nil for any other message.
    package init?(_ s: Structure?) {
        guard let s, s.name == Self.name, let filter = s.get("filter", as: String.self),
            let event = s.get("event", as: String.self)
        else { return nil }
        var fields: [String: Double] = [:]
        for name in s.fieldNames where name != "filter" && name != "event" {
            if let v = s.get(name, as: Double.self) { fields[name] = v }
        }
        self.init(filter: filter, event: event, fields: fields)
    }

    package init(filter: String, event: String, fields: [String: Double]) {
        self.filter = filter; self.event = event; self.fields = fields
    }
}
