import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The client side of WHIP and WHEP: POST a complete offer, keep the session URL, DELETE it
/// at the end.
public struct WHIPClient: Sendable {
    /// The WHIP or WHEP endpoint offers are POSTed to.
    public let endpoint: URL
    /// The bearer token sent with each request (`Authorization: Bearer`), if any.
    public let token: String?

    /// What went wrong, in terms a user can act on.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What failed, with what to check.
        public var description: String
        /// The HTTP status the server answered with, when it answered (nil: no answer at all,
        /// or an answer that was not what WHIP/WHEP asks for).
        public var status: Int?

        /// A failure described by `description`, with the server's status if it answered.
        public init(description: String, status: Int? = nil) {
            self.description = description
            self.status = status
        }
    }

    /// A client of `endpoint`, an http(s) URL; throws for anything else.
    public init(endpoint: String, token: String?) throws(Failure) {
        guard let url = URL(string: endpoint), let scheme = url.scheme, ["http", "https"].contains(scheme) else {
            throw Failure(description: "'\(endpoint)' is not an http(s) URL")
        }
        self.endpoint = url
        self.token = token
    }

    /// Sends `offer`; returns the answer and the session URL (`Location`).
    public func post(offer: String, timeout: Double = 10) async throws(Failure) -> (answer: String, session: URL) {
        var request = URLRequest(url: endpoint, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue(WHIP.sdpType, forHTTPHeaderField: "Content-Type")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        request.httpBody = Data(offer.utf8)
        let (data, response) = try await send(request)
        let body = String(decoding: data, as: UTF8.self)
        guard response.statusCode == 201 else {
            throw Failure(
                description: "\(endpoint) answered \(response.statusCode): \(body.trimmingCharacters(in: .whitespacesAndNewlines))",
                status: response.statusCode)
        }
        guard let location = response.value(forHTTPHeaderField: "Location"),
            let session = URL(string: location, relativeTo: endpoint)?.absoluteURL
        else {
            throw Failure(description: "\(endpoint) answered 201 without a Location header", status: 201)
        }
        if let problem = SDPCheck.problem(in: body) { throw Failure(description: "\(endpoint) answered with bad SDP: \(problem)", status: 201) }
        return (body, session)
    }

    /// Ends the session (best effort: the server may already be gone).
    public func delete(session: URL, timeout: Double = 5) async {
        var request = URLRequest(url: session, timeoutInterval: timeout)
        request.httpMethod = "DELETE"
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        _ = try? await send(request)
    }

    private func send(_ request: URLRequest) async throws(Failure) -> (Data, HTTPURLResponse) {
        do {
            let (data, response) = try await URLSession.shared.data(for: request)
            guard let http = response as? HTTPURLResponse else { throw Failure(description: "not an HTTP response") }
            return (data, http)
        } catch let e as Failure {
            throw e
        } catch {
            throw Failure(description: "cannot reach \(request.url?.absoluteString ?? "the endpoint"): \(error.localizedDescription)")
        }
    }
}
