import Foundation

/// WHEP's video layer selection (draft-ietf-wish-whep, "Video Layer Selection extension"): a
/// viewer POSTs JSON to the URL its `201 Created` named with
/// `Link: <…/layer>; rel="urn:ietf:params:whep:ext:core:layer"`, e.g. `{"mediaId": "0",
/// "rid": "l"}` to be held on the simulcast layer `l`, or `{"mediaId": "0"}` to go back to
/// the server's own choice. `encodingId` is read as `rid` (Broadcast Box's players send it).
/// Spatial and temporal layer ids and the size limits are SVC's and refused: Sluice's layers
/// are simulcast encodings and renditions, named.
public enum WHEPLayerSelection: Equatable, Sendable {
    /// Hold the viewer on the layer of this rid (or rendition name).
    case layer(String)
    /// The server chooses again, by the viewer's bandwidth estimate.
    case automatic

    /// The Link relation a WHEP resource names its layer selection URL with.
    public static let linkRelation = "urn:ietf:params:whep:ext:core:layer"
    /// The most a selection's body may hold.
    public static let maxBodyBytes = 4096

    /// The `Link` header value for the layer selection URL `url`.
    public static func link(_ url: String) -> String { "<\(url)>; rel=\"\(linkRelation)\"" }

    /// Reads a selection request: its `Content-Type` and body. Errors are the HTTP answers:
    /// 415 for another content type, 400 for a body that is not a JSON object, a `rid` that
    /// is not a string of 1–64 characters, or a field of SVC's.
    public static func parse(contentType: String?, body: String) -> Result<WHEPLayerSelection, WHIP.HTTPError> {
        let type = contentType?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard type == "application/json" else {
            return .failure(WHIP.HTTPError(415, "a layer selection is JSON: send it with Content-Type: application/json"))
        }
        guard body.utf8.count <= maxBodyBytes,
            let object = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
        else {
            return .failure(WHIP.HTTPError(400, "a layer selection is a JSON object, e.g. {\"mediaId\": \"0\", \"rid\": \"l\"}"))
        }
        let svc = ["spatialLayerId", "temporalLayerId", "maxSpatialLayerId", "maxTemporalLayerId", "maxWidth", "maxHeight"]
        if let field = svc.first(where: { object[$0] != nil }) {
            return .failure(WHIP.HTTPError(400, "'\(field)' is not supported: choose a layer by its 'rid'"))
        }
        guard let value = object["rid"] ?? object["encodingId"] else { return .success(.automatic) }
        guard let rid = value as? String, (1...64).contains(rid.count) else {
            return .failure(WHIP.HTTPError(400, "'rid' is a layer's name, a string of 1 to 64 characters"))
        }
        return .success(.layer(rid))
    }
}
