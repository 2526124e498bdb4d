import Foundation
import SluiceSignalling

/// What `sluice serve --advertise NAME` announces on the local network: a DNS-SD instance of
/// `_sluice._tcp` at the server's port, whose TXT record lists the served streams and their
/// codecs (`streams=cam,door`, `codecs=h264,opus`, `path=/whep/`, `v=1`), and the addresses
/// viewers reach it on.
public enum LANAdvertisement {
    /// The DNS-SD service type advertised, `_sluice._tcp`.
    public static let serviceType = "_sluice._tcp"

    /// The instance for `name`, served on `host:port` (`0.0.0.0`: every IPv4 address of the
    /// machine but loopback, or loopback when it has no other).
    public static func instance(name: String, host: String, port: Int, streams: [PipelineSpec]) -> ServiceInstance {
        let label = name.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }.prefix(40)
        let hostName = "\(String(label))-\(String(UInt16.random(in: 0...UInt16.max), radix: 16)).local"
        var codecs: [String] = []
        for s in streams {
            for c in [s.send?.video?.encode.codec.rawValue, s.send?.audio?.encode.codec.rawValue].compactMap({ $0 }) where !codecs.contains(c) {
                codecs.append(c)
            }
        }
        return ServiceInstance(
            name: String(name.prefix(63)), type: serviceType, host: hostName, port: UInt16(clamping: port),
            addresses: addresses(for: host),
            txt: [
                "v": "1", "path": "/whep/", "streams": streams.map(\.name).joined(separator: ","),
                "codecs": codecs.joined(separator: ",")
            ])
    }

    package static func addresses(for host: String) -> [String] {
        guard host == "0.0.0.0" || host.isEmpty else { return [host] }
        var found: [String] = []
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return ["127.0.0.1"] }
        defer { freeifaddrs(list) }
        var p: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = p {
            if let addr = entry.pointee.ifa_addr, addr.pointee.sa_family == sa_family_t(AF_INET) {
                var text = [CChar](repeating: 0, count: 64)
                addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                    var a = sin.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &a, &text, 64)
                }
                let s = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if !s.hasPrefix("127."), !found.contains(s) { found.append(s) }
            }
            p = entry.pointee.ifa_next
        }
        return found.isEmpty ? ["127.0.0.1"] : found
    }
}
