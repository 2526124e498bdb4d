import GStreamer

/// `kind: whep`, `whip` and `camera`: the HTTP endpoint and the bearer token sent to it.
public struct EndpointSettings: KindSettings, Equatable {
    /// The endpoint's URL (camera: the device URL).
    public var endpoint: String
    /// Bearer token sent to the endpoint.
    public var token: String?
    /// Settings for `endpoint`, with an optional bearer `token`.
    public init(endpoint: String, token: String? = nil) { self.endpoint = endpoint; self.token = token }
    /// The endpoint.
    public var serviceURL: String? { endpoint }
}

extension SpecDecoder {
    /// `endpoint` and `token` of an HTTP kind (whep, whip, camera).
    package mutating func decodeEndpointSettings(
        _ map: [SpecEntry], kind: TransportKind, example: String,
        at location: SourceLocation
    ) -> EndpointSettings? {
        let token = decodeToken(map)
        return decodeEndpoint(map, kind: kind, example: example, at: location).map { EndpointSettings(endpoint: $0, token: token) }
    }
}

extension TransportContext {
    /// The endpoint settings of an HTTP kind (whep, whip, camera); empty if decoding found none.
    package var endpointSettings: EndpointSettings {
        spec.transport.settings(as: EndpointSettings.self) ?? EndpointSettings(endpoint: "")
    }
}
