import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The client side of the camera API: `POST <device>:executeCommand` with
/// GenerateWebRtcStream, ExtendWebRtcStream and StopWebRtcStream.
public struct CameraClient: Sendable {
    /// The device URL, e.g. `http://127.0.0.1:8443/enterprises/p/devices/cam1`.
    public let device: URL
    /// The bearer token sent with each request (`Authorization: Bearer`), if any.
    public let token: String?

    /// A failure, with the API's own error text when it sent one.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What failed, with the API's message.
        public var description: String
        /// The API's status word (`NOT_FOUND`, `INVALID_ARGUMENT`, …), if it answered with one.
        public var status: String?
    }

    /// A live media session.
    public struct Stream: Sendable, Equatable {
        /// The session id, for extend and stop.
        public var mediaSessionId: String
        /// When the stream ends unless extended.
        public var expiresAt: Date
        /// The answer (GenerateWebRtcStream only).
        public var answerSdp: String?
    }

    /// `device` may end in `:executeCommand`; it is added otherwise.
    public init(device: String, token: String?) throws(Failure) {
        let base = device.hasSuffix(":executeCommand") ? String(device.dropLast(":executeCommand".count)) : device
        guard let url = URL(string: base), let scheme = url.scheme, ["http", "https"].contains(scheme),
            url.path.contains("/devices/")
        else {
            throw Failure(description: "'\(device)' is not a device URL (http(s)://HOST/enterprises/PROJECT/devices/NAME)")
        }
        self.device = url
        self.token = token
    }

    /// GenerateWebRtcStream: sends the complete offer, returns the answer and the session.
    public func generate(offer: String) async throws(Failure) -> Stream {
        let r = try await execute(CameraAPI.generate, ["offerSdp": offer])
        guard let answer = r["answerSdp"] as? String else { throw Failure(description: "the camera's answer has no answerSdp") }
        if let problem = SDPCheck.problem(in: answer) { throw Failure(description: "the camera answered with bad SDP: \(problem)") }
        var stream = try Self.stream(r)
        stream.answerSdp = answer
        return stream
    }

    /// ExtendWebRtcStream: returns the new expiry.
    public func extend(_ id: String) async throws(Failure) -> Stream {
        try Self.stream(try await execute(CameraAPI.extend, ["mediaSessionId": id]))
    }

    /// StopWebRtcStream (best effort on exit; the error is returned for callers that care).
    @discardableResult
    public func stop(_ id: String) async -> Failure? {
        do { _ = try await execute(CameraAPI.stop, ["mediaSessionId": id]); return nil } catch { return error }
    }

    private static func stream(_ r: [String: Any]) throws(Failure) -> Stream {
        guard let id = r["mediaSessionId"] as? String, let t = r["expiresAt"] as? String else {
            throw Failure(description: "the camera's results lack mediaSessionId or expiresAt")
        }
        guard let date = CameraAPI.date(from: t) else { throw Failure(description: "the camera's expiresAt '\(t)' is not RFC 3339") }
        return Stream(mediaSessionId: id, expiresAt: date)
    }

    /// POSTs one command; returns `results` (empty for Stop).
    private func execute(_ command: String, _ params: [String: String], timeout: Double = 10) async throws(Failure) -> [String: Any] {
        let url = URL(string: device.absoluteString + ":executeCommand")!
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        request.httpBody = try? JSONSerialization.data(withJSONObject: ["command": command, "params": params])
        let data: Data, http: HTTPURLResponse
        do {
            let (d, response) = try await URLSession.shared.data(for: request)
            guard let h = response as? HTTPURLResponse else { throw Failure(description: "not an HTTP response") }
            data = d; http = h
        } catch let e as Failure {
            throw e
        } catch {
            throw Failure(description: "cannot reach \(url.absoluteString): \(error.localizedDescription)")
        }
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        guard http.statusCode == 200 else {
            if let e = object?["error"] as? [String: Any] {
                let status = e["status"] as? String
                throw Failure(
                    description: "\(command.split(separator: ".").last ?? "") failed: \(http.statusCode) \(status ?? ""): \(e["message"] as? String ?? "")",
                    status: status)
            }
            throw Failure(description: "\(url.absoluteString) answered \(http.statusCode): \(String(decoding: data.prefix(300), as: UTF8.self))")
        }
        guard let object else { throw Failure(description: "\(url.absoluteString) answered 200 without a JSON object") }
        return object["results"] as? [String: Any] ?? [:]
    }
}
