#if canImport(Glibc)
    import Glibc
#endif
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// DNS-SD over multicast DNS on one socket (224.0.0.251:5353, shared with other responders
/// on the host): advertises service instances — probing for a unique name first and renaming
/// on conflict as DNS-SD does (`Name (2)`), announcing twice, answering queries, saying
/// goodbye on `stop` — and browses for instances of a type into a `DNSSDCache`.
///
/// Every packet is parsed by `DNSMessage` (malformed ones are dropped); the cache is
/// bounded. Nothing here knows about GStreamer or pipelines.
public final class MDNSService: Sendable {
    static let logger = Logger(label: "sluice.mdns")
    private let channel: Channel
    private struct State {
        var advertised: [ServiceInstance] = []
        /// Names being probed: a response with one of them is a conflict.
        var probing: Set<String> = []
        var conflicted: Set<String> = []
        var cache = DNSSDCache()
    }
    private let state: Mutex<State>

    private init(channel: Channel) {
        self.channel = channel
        state = Mutex(State())
    }

    /// Opens the socket and joins the group on every IPv4 interface.
    public static func start() async throws -> MDNSService {
        let box = ServiceBox()
        let channel = try await MDNSResolver.open(handler: MDNSHandler(box: box), orAnyPort: false)
        let service = MDNSService(channel: channel)
        box.service.withLock { $0 = service }
        return service
    }

    /// Sends a message to the group (or to `to`).
    private func send(_ message: DNSMessage, to: SocketAddress? = nil) async {
        guard let bytes = try? message.encoded(),
            let address = to ?? (try? SocketAddress(ipAddress: MDNSResolver.group, port: MDNSResolver.port))
        else { return }
        try? await channel.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: channel.allocator.buffer(bytes: bytes)))
    }

    // MARK: Advertising

    /// Advertises `instance` under a name unique on the link: probes three times 250 ms
    /// apart and takes the next DNS-SD name (`Name (2)`, …) while another host answers for
    /// it (at most 10 tries), then announces twice a second apart. Returns the name used.
    @discardableResult
    public func advertise(_ instance: ServiceInstance) async -> ServiceInstance {
        var candidate = instance
        for _ in 0..<10 {
            let full = DNSName.normalized(candidate.fullName)
            state.withLock {
                $0.probing.insert(full); $0.conflicted.remove(full)
            }
            // Asked with multicast answers (no QU bit, unlike RFC 6762 §8.1's advice): with
            // several responders on one host sharing port 5353, a unicast answer reaches only
            // one of their sockets, perhaps not this one.
            let probe = DNSMessage(
                questions: [DNSQuestion(name: candidate.fullName, type: .any)],
                authorities: candidate.records().filter { DNSName.equal($0.name, candidate.fullName) })
            for _ in 0..<3 {
                await send(probe)
                try? await Task.sleep(for: .milliseconds(250))
            }
            let conflict = state.withLock { s -> Bool in
                s.probing.remove(full)
                return s.conflicted.remove(full) != nil
            }
            guard conflict else { break }
            Self.logger.info("mDNS name in use; renaming", metadata: ["name": "\(candidate.name)"])
            candidate.name = ServiceInstance.renamed(candidate.name)
        }
        state.withLock { $0.advertised.append(candidate) }
        let announce = DNSMessage(isResponse: true, isAuthoritative: true, answers: candidate.records())
        await send(announce)
        let service = self
        Task {
            try? await Task.sleep(for: .seconds(1))
            await service.send(announce)
        }
        return candidate
    }

    /// Says goodbye for everything advertised (records with TTL 0) and closes the socket.
    public func stop() async {
        let advertised = state.withLock { s -> [ServiceInstance] in
            defer { s.advertised = [] }; return s.advertised
        }
        if !advertised.isEmpty {
            await send(DNSMessage(isResponse: true, isAuthoritative: true, answers: advertised.flatMap { $0.records(ttl: 0) }))
        }
        try? await channel.close()
    }

    // MARK: Browsing

    /// Asks the link for instances of `type` (`_sluice._tcp`). `unicast`: ask for answers
    /// sent to this socket directly (RFC 6762 §5.4, the QU bit), which responders give even
    /// when they multicast the same records less than a second ago.
    public func query(_ type: String, unicast: Bool = false) async {
        await send(DNSMessage(questions: [DNSQuestion(name: "\(DNSName.normalized(type)).local", type: .ptr, unicastResponse: unicast)]))
    }

    /// Instances of `type` known now.
    public func instances(of type: String) -> [ServiceInstance] {
        let now = Self.nowNs()
        return state.withLock { $0.cache.instances(of: type, nowNs: now) }
    }

    /// Browses for `timeout`: asks at once, again after 1 s, and returns what answered.
    public func browse(_ type: String, for timeout: Duration) async -> [ServiceInstance] {
        let start = ContinuousClock.now
        await query(type)
        var asked = 1
        while ContinuousClock.now - start < timeout {
            try? await Task.sleep(for: .milliseconds(50))
            if asked == 1, ContinuousClock.now - start >= .seconds(1) { asked = 2; await query(type) }
        }
        return instances(of: type)
    }

    static func nowNs() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
    }

    // MARK: Incoming

    func handle(_ message: DNSMessage, from source: SocketAddress) {
        if message.isResponse {
            let now = Self.nowNs()
            state.withLock { s in
                for r in message.records {
                    let n = DNSName.normalized(r.name)
                    if s.probing.contains(n) { s.conflicted.insert(n) }
                }
                s.cache.add(message, nowNs: now)
            }
            return
        }
        // A query: answer what we advertise. Probes for our names conflict with us, but the
        // simultaneous-probe tie-break (RFC 6762 §8.2) is not done: the later prober renames.
        let advertised = state.withLock { $0.advertised }
        guard !advertised.isEmpty else { return }
        var answers: [DNSRecord] = []
        for q in message.questions.prefix(32) {
            for instance in advertised {
                for r in instance.records() where DNSName.equal(r.name, q.name) && (q.type == .any || q.type == r.type) {
                    answers.append(r)
                }
            }
        }
        guard !answers.isEmpty else { return }
        // The rest of an instance the answer points to, as additionals (RFC 6763 §12).
        let additionals = advertised.filter { i in answers.contains { $0.data == .ptr(i.fullName) } }
            .flatMap { $0.records() }.filter { r in !answers.contains(r) && r.type != .ptr }
        let legacy = source.port.map { $0 != MDNSResolver.port } ?? false
        let reply = DNSMessage(
            id: legacy ? message.id : 0, isResponse: true, isAuthoritative: true,
            questions: legacy ? message.questions : [], answers: answers, additionals: additionals)
        let service = self
        Task { await service.send(reply, to: legacy ? source : nil) }
    }
}

/// The service, once made (the handler exists before it).
private final class ServiceBox: Sendable {
    let service = Mutex<MDNSService?>(nil)
}

private final class MDNSHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    let box: ServiceBox
    init(box: ServiceBox) { self.box = box }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        guard envelope.data.readableBytes <= DNSMessage.maxSize,
            let bytes = envelope.data.getBytes(at: envelope.data.readerIndex, length: envelope.data.readableBytes),
            let message = try? DNSMessage(bytes: bytes)
        else { return }
        box.service.withLock { $0 }?.handle(message, from: envelope.remoteAddress)
    }
}
