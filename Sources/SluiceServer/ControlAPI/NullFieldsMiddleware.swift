import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Refuses (400) a JSON body that has `null` where the document types a value, which the
/// generated decoding would read as "not given": `{"enabled": false, "volume": null}` would
/// otherwise change the track as if `volume` were left out. No property of the control API's
/// bodies is nullable; a filter list (`replaceFilters`), whose entries are free-form like a
/// pipeline file's, is left to the pipeline file's own rules.
struct NullFieldsMiddleware: ServerMiddleware {
    /// Operations whose bodies may hold anything (their own validation reads them).
    static let freeForm: Set<String> = ["replaceFilters"]

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    )
        async throws -> (HTTPResponse, HTTPBody?)
    {
        guard let body, !Self.freeForm.contains(operationID),
            request.headerFields[.contentType]?.lowercased().hasPrefix("application/json") == true
        else { return try await next(request, body, metadata) }
        let bytes: [UInt8]
        do { bytes = try await [UInt8](collecting: body, upTo: ControlAPIHandler.maxBody) } catch {
            return ProblemMiddleware.problem(.contentTooLarge, "the request body is larger than \(ControlAPIHandler.maxBody) bytes")
        }
        if let json = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]), let path = Self.firstNull(in: json) {
            return ProblemMiddleware.problem(.badRequest, "\(path) is null: leave a property out to keep its value; null is not one")
        }
        return try await next(request, HTTPBody(bytes), metadata)
    }

    /// Where the first `null` is (`volume`, `parameters.block`), or nil for none.
    static func firstNull(in value: Any, at path: String = "") -> String? {
        switch value {
        case is NSNull: return path.isEmpty ? "the body" : path
        case let object as [String: Any]:
            for key in object.keys.sorted() {
                if let found = firstNull(in: object[key]!, at: path.isEmpty ? key : "\(path).\(key)") { return found }
            }
        case let array as [Any]:
            for (i, item) in array.enumerated() {
                if let found = firstNull(in: item, at: "\(path)[\(i)]") { return found }
            }
        default: break
        }
        return nil
    }
}
