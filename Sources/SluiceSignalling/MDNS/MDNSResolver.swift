#if canImport(Glibc)
    import Glibc
#endif
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// Resolves `.local` names with multicast DNS (RFC 6762): a query for the name's A record
/// to 224.0.0.251:5353, from port 5353 when it is free to share (as other responders on the
/// host use it) or any port otherwise (a "legacy" query, answered by unicast), asked again
/// after 250 ms and 1 s. The first answer is kept for its TTL (at most 2 minutes).
///
/// One lookup opens its own socket for its duration: no background listener, nothing to
/// stop. A malformed packet is ignored; a flood of answers ends the lookup no later than its
/// timeout.
public final class MDNSResolver: Sendable {
    /// The resolver Sluice uses, sharing one cache.
    public static let shared = MDNSResolver()
    static let logger = Logger(label: "sluice.mdns")
    /// The mDNS IPv4 multicast group.
    public static let group = "224.0.0.251"
    /// The mDNS port.
    public static let port = 5353

    private struct Cached { var address: String; var until: ContinuousClock.Instant }
    private let cache = Mutex<[String: Cached]>([:])

    /// A resolver with its own, empty cache.
    public init() {}

    /// The IPv4 address `name` has on the local network, or nil when nobody answers within
    /// `timeout`.
    public func resolve(_ name: String, timeout: Duration = .milliseconds(1500)) async -> String? {
        let key = DNSName.normalized(name)
        guard key.hasSuffix(".local"), key.utf8.count <= 255 else { return nil }
        if let hit = cache.withLock({ $0[key] }), hit.until > .now { return hit.address }
        guard let (address, ttl) = await lookup(key, timeout: timeout) else {
            Self.logger.debug("no mDNS answer", metadata: ["name": "\(key)"])
            return nil
        }
        cache.withLock { c in
            if c.count > 1024 { c.removeAll() }
            c[key] = Cached(address: address, until: .now + .seconds(Int(min(ttl, 120))))
        }
        Self.logger.debug("mDNS answer", metadata: ["name": "\(key)", "address": "\(address)"])
        return address
    }

    private func lookup(_ name: String, timeout: Duration) async -> (String, UInt32)? {
        let answer = AnswerBox()
        let handler = AnswerHandler(name: name, answer: answer)
        let channel: Channel
        do {
            channel = try await Self.open(handler: handler, orAnyPort: true)
        } catch {
            Self.logger.debug("cannot open an mDNS socket", metadata: ["error": "\(error)"])
            return nil
        }
        defer { channel.close(promise: nil) }
        guard let query = try? DNSMessage(questions: [DNSQuestion(name: name, type: .a)]).encoded(),
            let to = try? SocketAddress(ipAddress: Self.group, port: Self.port)
        else { return nil }
        let start = ContinuousClock.now
        var sent = 0
        while ContinuousClock.now - start < timeout {
            if let found = answer.value { return found }
            let elapsed = ContinuousClock.now - start
            if (sent == 0) || (sent == 1 && elapsed >= .milliseconds(250)) || (sent == 2 && elapsed >= .seconds(1)) {
                sent += 1
                let buffer = channel.allocator.buffer(bytes: query)
                try? await channel.writeAndFlush(AddressedEnvelope(remoteAddress: to, data: buffer))
            }
            try? await Task.sleep(for: .milliseconds(10))
            if Task.isCancelled { return nil }
        }
        return answer.value
    }

    /// A UDP socket on 5353 (shared) joined to the group on every IPv4 interface, or, with
    /// `orAnyPort`, on an ephemeral port if 5353 cannot be shared.
    static func open(handler: some ChannelInboundHandler & Sendable, orAnyPort: Bool) async throws -> Channel {
        let bootstrap = DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .channelOption(ChannelOptions.socketOption(NIOBSDSocket.Option(rawValue: SO_REUSEPORT)), value: 1)
            .channelInitializer { $0.pipeline.addHandler(handler) }
        let channel: Channel
        do { channel = try await bootstrap.bind(host: "0.0.0.0", port: port).get() } catch {
            guard orAnyPort else { throw error }
            return try await bootstrap.bind(host: "0.0.0.0", port: 0).get()
        }
        if let multicast = channel as? MulticastChannel, let groupAddress = try? SocketAddress(ipAddress: group, port: port) {
            for device in (try? System.enumerateDevices()) ?? [] {
                guard case .v4 = device.address else { continue }
                try? await multicast.joinGroup(groupAddress, device: device).get()
            }
        }
        return channel
    }
}

/// The first answer, set on the event loop, read by the lookup.
private final class AnswerBox: Sendable {
    private let found = Mutex<(String, UInt32)?>(nil)
    var value: (String, UInt32)? { found.withLock { $0 } }
    func set(_ v: (String, UInt32)) { found.withLock { if $0 == nil { $0 = v } } }
}

/// Reads answers to the lookup: any A record for the name, in any section.
private final class AnswerHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    let name: String
    let answer: AnswerBox
    init(name: String, answer: AnswerBox) { self.name = name; self.answer = answer }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        guard envelope.data.readableBytes <= DNSMessage.maxSize,
            let bytes = envelope.data.getBytes(at: envelope.data.readerIndex, length: envelope.data.readableBytes),
            let message = try? DNSMessage(bytes: bytes), message.isResponse
        else { return }
        for record in message.records where DNSName.equal(record.name, name) && record.ttl > 0 {
            if case .a(let address) = record.data, !address.isEmpty { answer.set((address, record.ttl)); return }
        }
    }
}
