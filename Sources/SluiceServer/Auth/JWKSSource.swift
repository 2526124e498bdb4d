import Foundation
import Logging

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where `sluice serve --jwks` reads its key set: a file, or an `http(s)://` URL fetched at
/// start and again every `refresh` seconds (identity providers rotate keys; a new `kid`
/// appears in the set before tokens use it). A failed refresh keeps the keys in use and is
/// logged.
public struct JWKSSource: Sendable {
    /// The file path or URL.
    public var location: String
    /// Seconds between reloads.
    public var refresh: Double

    /// A source at `location`, reloaded every `refresh` seconds.
    public init(_ location: String, refresh: Double = 300) {
        self.location = location
        self.refresh = refresh
    }

    /// Whether the location is a URL rather than a file.
    public var isURL: Bool { location.hasPrefix("http://") || location.hasPrefix("https://") }

    /// The key set's text.
    public func read() async throws(JWKSError) -> String {
        guard isURL else {
            do { return try String(contentsOfFile: location, encoding: .utf8) } catch {
                throw JWKSError("cannot read the key set \(location): \(error.localizedDescription)")
            }
        }
        guard let url = URL(string: location) else { throw JWKSError("--jwks \(location) is not a URL") }
        var request = URLRequest(url: url, timeoutInterval: 10)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let result: (Data, URLResponse)
        do { result = try await URLSession.shared.data(for: request) } catch {
            throw JWKSError("cannot fetch the key set \(location): \(error.localizedDescription)")
        }
        let status = (result.1 as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else { throw JWKSError("fetching the key set \(location) answered \(status)") }
        guard result.0.count <= 1 << 20 else { throw JWKSError("the key set at \(location) is larger than 1 MB") }
        return String(decoding: result.0, as: UTF8.self)
    }

    /// Reloads `verifier` every `refresh` seconds until cancelled.
    public func keepFresh(_ verifier: JWTVerifier, logger: Logger) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(refresh))
            if Task.isCancelled { return }
            do {
                try await verifier.load(read())
            } catch {
                logger.warning("JWKS refresh failed; the previous keys stay in use: \(error.description)")
            }
        }
    }
}
