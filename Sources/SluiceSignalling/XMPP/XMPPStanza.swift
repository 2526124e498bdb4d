/// Building and reading the stanzas every XMPP exchange needs: IQ results and errors
/// (RFC 6120 §8.3), error conditions.
public enum XMPPStanza {
    /// The defined condition of an `<error>` (stanza or stream): `item-not-found`, …
    public static func condition(of stanza: XML.Element) -> String? {
        let error = stanza.name == "error" ? stanza : stanza.child("error")
        guard let error else { return nil }
        return error.children.first { $0.name != "text" && ($0.namespace == XMPPNamespace.stanzas || $0.namespace == XMPPNamespace.streams) }?.name
            ?? error.children.first { $0.name != "text" }?.name
    }

    /// Any application-specific child of an `<error>` (e.g. Jingle's `unknown-session`).
    public static func applicationCondition(of stanza: XML.Element) -> String? {
        guard let error = stanza.child("error") else { return nil }
        return error.children.first { $0.name != "text" && $0.namespace != XMPPNamespace.stanzas }?.name
    }

    /// The error's human-readable text, if the sender gave one.
    public static func errorText(of stanza: XML.Element) -> String? {
        stanza.child("error")?.child("text").map(\.text)
    }

    /// An IQ of `type` (`get`, `set`) to `to` carrying `payload`.
    public static func iq(_ type: String, to: String, id: String? = nil, payload: XML.Element) -> XML.Element {
        var attributes = [("type", type), ("to", to)]
        if let id { attributes.append(("id", id)) }
        return XML.Element("iq", namespace: XMPPNamespace.client, attributes: attributes, children: [payload])
    }

    /// The `result` answering `request`.
    public static func result(for request: XML.Element) -> XML.Element {
        var attributes = [("type", "result")]
        if let from = request[attribute: "from"] { attributes.append(("to", from)) }
        if let id = request[attribute: "id"] { attributes.append(("id", id)) }
        return XML.Element("iq", namespace: XMPPNamespace.client, attributes: attributes)
    }

    /// The `error` answering `request`: a defined `condition` of `type` (`cancel`, `modify`,
    /// `auth`, `wait`), an optional application condition and text.
    public static func error(
        for request: XML.Element, type: String, condition: String,
        application: XML.Element? = nil, text: String? = nil
    ) -> XML.Element {
        var attributes = [("type", "error")]
        if let from = request[attribute: "from"] { attributes.append(("to", from)) }
        if let id = request[attribute: "id"] { attributes.append(("id", id)) }
        var children = [XML.Element(condition, namespace: XMPPNamespace.stanzas)]
        if let text { children.append(XML.Element("text", namespace: XMPPNamespace.stanzas, text: text)) }
        if let application { children.append(application) }
        return XML.Element(
            "iq", namespace: XMPPNamespace.client, attributes: attributes,
            children: [XML.Element("error", namespace: XMPPNamespace.client, attributes: [("type", type)], children: children)])
    }
}
