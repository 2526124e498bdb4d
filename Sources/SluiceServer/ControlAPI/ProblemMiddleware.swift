import Foundation
import HTTPTypes
import OpenAPIRuntime

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
        do {
            return try await next(request, body, metadata)
        } catch let error as ServerError {
            let (status, detail) = Self.classify(error)
            return Self.problem(status, detail)
        }
    }

    static func classify(_ error: ServerError) -> (HTTPResponse.Status, String) {
        switch error.underlyingError {
        case let e as DecodingError:
            return (.badRequest, "the request body does not match the schema: \(describe(e))")
        case is RequestBodyTooLarge:
            return (.contentTooLarge, "the request body is larger than \(ControlAPIHandler.maxBody) bytes")
        default:
            if error.httpStatus.kind == .clientError {
                return (error.httpStatus, "\(error.causeDescription)")
            }
            return (.internalServerError, "the server failed to handle \(error.operationID): \(error.causeDescription)")
        }
    }

    static func describe(_ e: DecodingError) -> String {
        func path(_ c: DecodingError.Context) -> String {
            let p = c.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            return p.isEmpty ? c.debugDescription : "\(p): \(c.debugDescription)"
        }
        switch e {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c): return path(c)
        case .keyNotFound(let key, let c): return "\(path(c)) (missing '\(key.stringValue)')"
        @unknown default: return "\(e)"
        }
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
