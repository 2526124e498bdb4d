import Foundation
import HTTPTypes
import OpenAPIRuntime
import Sluice

/// Words what the generated code refuses (a body that is not the schema's JSON, a missing
/// parameter, a wrong content type) as problem+json with the right 4xx, instead of the
/// runtime's bare 500 for a decoding error.
struct ProblemMiddleware: ServerMiddleware {
    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    )
        async throws -> (HTTPResponse, HTTPBody?)
    {
        // A JSON body is kept, so a decoding error can name what the body had instead (it is
        // parsed only then).
        var body = body, sent: [UInt8]?
        if let given = body, request.headerFields[.contentType]?.lowercased().hasPrefix("application/json") == true {
            let bytes: [UInt8]
            do { bytes = try await [UInt8](collecting: given, upTo: ControlAPIHandler.maxBody) } catch {
                return Self.problem(.contentTooLarge, "the request body is larger than \(ControlAPIHandler.maxBody) bytes")
            }
            sent = bytes
            body = HTTPBody(bytes)
        }
        do {
            return try await next(request, body, metadata)
        } catch let error as ServerError {
            let json = sent.flatMap { try? JSONSerialization.jsonObject(with: Data($0), options: [.fragmentsAllowed]) }
            let (status, detail) = Self.classify(error, body: json)
            return Self.problem(status, detail)
        }
    }

    static func classify(_ error: ServerError, body: Any? = nil) -> (HTTPResponse.Status, String) {
        switch error.underlyingError {
        case let e as DecodingError:
            return (.badRequest, "the request body does not match the schema: \(describe(e, body: body))")
        case is RequestBodyTooLarge:
            return (.contentTooLarge, "the request body is larger than \(ControlAPIHandler.maxBody) bytes")
        default:
            if error.httpStatus.kind == .clientError {
                return (error.httpStatus, "\(error.causeDescription)")
            }
            return (.internalServerError, "the server failed to handle \(error.operationID): \(error.causeDescription)")
        }
    }

    /// The decoding error in the words of a file error: which field, and, for a missing one,
    /// the field the body has instead when it is a likely typo (`{"bitrat_kbps": 300}`:
    /// "'bitrate_kbps' is missing; the body has 'bitrat_kbps': did you mean 'bitrate_kbps'
    /// (in kbit/s, as in pipeline files)?") or the name without its unit (`{"bitrate": 300000}`).
    static func describe(_ e: DecodingError, body: Any? = nil) -> String {
        func place(_ path: [any CodingKey]) -> String {
            path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        }
        switch e {
        case .keyNotFound(let key, let c):
            let name = key.stringValue, given = keys(of: body, at: c.codingPath)
            let near = Suggestions.closest(to: name, in: given) ?? withoutUnit(name, in: given)
            let unit = units.first { name.hasSuffix("_\($0.key)") }.map { " (in \($0.value))" } ?? ""
            return "'\(place(c.codingPath + [key]))' is missing"
                + (near.map { "; the body has '\($0)': did you mean '\(name)'\(unit)?" } ?? "")
        case .dataCorrupted(let c) where c.debugDescription.hasPrefix("Additional properties are disabled"):
            return "'\(place(c.codingPath))' is not a field of this request"
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c):
            return c.codingPath.isEmpty ? c.debugDescription : "'\(place(c.codingPath))': \(c.debugDescription)"
        @unknown default: return "\(e)"
        }
    }

    /// The units the API's field names end with (`bitrate_kbps`), in words.
    static let units = ["kbps": "kbit/s, as in pipeline files"]

    /// The given key that is `name` without its unit suffix (`bitrate` for `bitrate_kbps`,
    /// the field's name before it said its unit).
    static func withoutUnit(_ name: String, in given: [String]) -> String? {
        guard let unit = units.keys.first(where: { name.hasSuffix("_\($0)") }) else { return nil }
        let bare = String(name.dropLast(unit.count + 1))
        return given.first { $0.lowercased() == bare.lowercased() }
    }

    /// The keys of the JSON object at `path` in `body` (none when it is not an object there).
    static func keys(of body: Any?, at path: [any CodingKey]) -> [String] {
        var value = body
        for key in path {
            if let index = key.intValue, let array = value as? [Any], array.indices.contains(index) {
                value = array[index]
            } else {
                value = (value as? [String: Any])?[key.stringValue]
            }
        }
        return (value as? [String: Any]).map { Array($0.keys) } ?? []
    }

    static func problem(_ status: HTTPResponse.Status, _ detail: String) -> (HTTPResponse, HTTPBody?) {
        let data = Problem.body(status, detail)
        var response = HTTPResponse(status: status)
        response.headerFields[.contentType] = "application/problem+json"
        return (response, HTTPBody(data))
    }
}

/// A request body over `ControlAPIHandler.maxBody` bytes (answered 413).
struct RequestBodyTooLarge: Error {}
