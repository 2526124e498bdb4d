import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import SwiftProtobuf

/// What plays what senders load: told what to do, asked where it stands.
public protocol CastPlayer: Sendable {
    /// Does what a sender asked (load, play, pause, seek, stop, volume).
    func perform(_ command: CastPlayerCommand) async
    /// Where the player is now (its position moves between events).
    func snapshot() -> CastPlayerSnapshot
}

/// A Cast receiver's sender port: TLS (a self-signed certificate, as senders expect of a
/// receiver they cannot authenticate), CASTV2 frames, and one `CastReceiverState` for every
/// sender, its messages handled one at a time in arrival order. The player's changes come in
/// through `playerChanged`.
public final class CastServer: Sendable {
    /// Where to listen and with which certificate.
    public struct Configuration: Sendable {
        /// The address to listen on.
        public var host: String
        /// The TCP port (8009 is Cast's; 0 lets the system choose).
        public var port: Int
        /// The TLS certificate and its private key, in PEM.
        public var pem: String
        /// A sender silent this long is disconnected (senders PING every 5 s).
        public var idleTimeout: Int64 = 30
        /// At most this many senders at once; more are closed as they connect.
        public var maxConnections = 256
        /// Listens on `host`:`port` with the certificate and key in `pem`.
        public init(host: String, port: Int, pem: String) { self.host = host; self.port = port; self.pem = pem }
    }

    enum Input: Sendable {
        case connected(Int, any Channel)
        case message(Int, Extensions_Api_CastChannel_CastMessage)
        case malformed(Int, String)
        case closed(Int)
        case player(CastPlayerSnapshot)
    }

    /// The port it listens on (the one asked for, or the one the system chose for 0).
    public let port: Int
    private let channel: any Channel
    private let inputs: AsyncStream<Input>.Continuation
    private let loop: Task<Void, Never>
    private let statusLock = NIOLockedValueBox(Status())
    struct Status { var refusals: [String: Int] = [:]; var malformed = 0; var senders = 0 }

    /// Requests answered with an error (by reason) and malformed frames, so far.
    public var refusals: [String: Int] { statusLock.withLockedValue { $0.refusals } }
    /// Frames that were not CASTV2 messages, so far.
    public var malformedFrames: Int { statusLock.withLockedValue { $0.malformed } }
    /// Senders connected now.
    public var connectedSenders: Int { statusLock.withLockedValue { $0.senders } }

    /// Listens as `configuration` says, for a receiver called `name` driving `player`;
    /// `refuse` says why a content URL may not be played (nil: it may).
    public static func start(
        _ configuration: Configuration, name: String, player: any CastPlayer,
        refuse: @escaping @Sendable (String) -> String?, logger: Logger
    ) async throws -> CastServer {
        let certificates = try NIOSSLCertificate.fromPEMBytes(Array(configuration.pem.utf8))
        let key = try NIOSSLPrivateKey(bytes: Array(configuration.pem.utf8), format: .pem)
        var tls = TLSConfiguration.makeServerConfiguration(certificateChain: certificates.map { .certificate($0) }, privateKey: .privateKey(key))
        tls.minimumTLSVersion = .tlsv12
        let context = try NIOSSLContext(configuration: tls)
        let (stream, inputs) = AsyncStream<Input>.makeStream()
        let ids = NIOLockedValueBox(0)
        let idle = configuration.idleTimeout, limit = configuration.maxConnections
        let open = NIOLockedValueBox(0)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let id = ids.withLockedValue {
                    $0 += 1; return $0
                }
                let admitted = open.withLockedValue { n -> Bool in
                    guard n < limit else { return false }
                    n += 1
                    return true
                }
                guard admitted else { return channel.close() }
                channel.closeFuture.whenComplete { _ in open.withLockedValue { $0 -= 1 } }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        NIOSSLServerHandler(context: context),
                        IdleStateHandler(readTimeout: .seconds(idle)),
                        CastFrameHandler(id: id, inputs: inputs)
                    ])
                }
            }
            .bind(host: configuration.host, port: configuration.port).get()
        let port = channel.localAddress?.port ?? configuration.port
        let server = CastServer(
            port: port, channel: channel, inputs: inputs, stream: stream, name: name, player: player,
            refuse: refuse, logger: logger)
        return server
    }

    private init(
        port: Int, channel: any Channel, inputs: AsyncStream<Input>.Continuation, stream: AsyncStream<Input>,
        name: String, player: any CastPlayer, refuse: @escaping @Sendable (String) -> String?, logger: Logger
    ) {
        self.port = port
        self.channel = channel
        self.inputs = inputs
        let status = statusLock
        loop = Task {
            var state = CastReceiverState(name: name, refuse: refuse)
            var channels: [Int: any Channel] = [:]
            func perform(_ actions: [CastReceiverState.Action]) async {
                for action in actions {
                    switch action {
                    case .send(let connection, let m):
                        guard let ch = channels[connection] else { continue }
                        var buffer = ch.allocator.buffer(capacity: 256)
                        buffer.writeBytes(CastFrame.encode(m))
                        ch.writeAndFlush(buffer, promise: nil)
                    case .command(let command):
                        logger.debug("Cast: player: \(command)")
                        await player.perform(command)
                    case .close(let connection, let reason):
                        logger.info("Cast: closing sender \(connection): \(reason)")
                        channels[connection]?.close(promise: nil)
                    }
                }
            }
            for await input in stream {
                switch input {
                case .connected(let id, let ch):
                    channels[id] = ch
                case .closed(let id):
                    channels[id] = nil
                    state.disconnected(id)
                case .malformed(let id, let why):
                    logger.info("Cast: sender \(id) sent \(why); closing it")
                    status.withLockedValue { $0.malformed += 1 }
                    channels[id]?.close(promise: nil)
                case .message(let id, let m):
                    if m.namespace == CastNamespace.deviceAuth {
                        await perform([.send(connection: id, Self.deviceAuthAnswer(to: m))])
                        continue
                    }
                    state.refresh(player.snapshot())
                    if m.namespace != CastNamespace.heartbeat {
                        logger.debug("Cast: sender \(id) \(Self.describe(m))")
                    }
                    await perform(state.handle(m, connection: id))
                case .player(let snapshot):
                    logger.debug("Cast: the player is \(snapshot.playerState)\(snapshot.idleReason.map { " (\($0))" } ?? "")")
                    await perform(state.update(snapshot))
                }
                let (refusals, senders) = (state.refusals, state.connectedSenders)
                status.withLockedValue {
                    $0.refusals = refusals; $0.senders = senders
                }
            }
        }
    }

    /// A message for the debug log: its route, namespace and the start of its payload.
    private static func describe(_ m: Extensions_Api_CastChannel_CastMessage) -> String {
        "\(m.sourceID) → \(m.destinationID) \(m.namespace.split(separator: ".").last ?? ""): \(m.payloadUtf8.prefix(300))"
    }

    /// Device authentication needs a certificate chain to Google's Cast root, which only
    /// Google issues: answer as an open receiver can, with an AuthError. Google's own senders
    /// then refuse this receiver; open senders (pychromecast, VLC, …) do not ask or do not check.
    static func deviceAuthAnswer(to m: Extensions_Api_CastChannel_CastMessage) -> Extensions_Api_CastChannel_CastMessage {
        var answer = Extensions_Api_CastChannel_DeviceAuthMessage()
        var error = Extensions_Api_CastChannel_AuthError()
        error.errorType = .internalError
        answer.error = error
        var reply = Extensions_Api_CastChannel_CastMessage()
        reply.protocolVersion = .castv210
        reply.sourceID = m.destinationID
        reply.destinationID = m.sourceID
        reply.namespace = CastNamespace.deviceAuth
        reply.payloadType = .binary
        reply.payloadBinary = (try? answer.serializedBytes()) ?? Data()
        return reply
    }

    /// The player changed state: every connected sender hears it.
    public func playerChanged(_ snapshot: CastPlayerSnapshot) { inputs.yield(.player(snapshot)) }

    /// Closes the listening socket and every sender's connection.
    public func stop() async {
        try? await channel.close()
        inputs.finish()
        await loop.value
    }
}

/// One sender's TLS stream: bytes → CASTV2 frames → the server's inputs, in order.
final class CastFrameHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let id: Int
    let inputs: AsyncStream<CastServer.Input>.Continuation
    private let buffer = NIOLockedValueBox<[UInt8]>([])

    init(id: Int, inputs: AsyncStream<CastServer.Input>.Continuation) { self.id = id; self.inputs = inputs }

    func channelActive(context: ChannelHandlerContext) {
        inputs.yield(.connected(id, context.channel))
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        inputs.yield(.closed(id))
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        let chunk = bytes.readBytes(length: bytes.readableBytes) ?? []
        let result = buffer.withLockedValue { (b: inout [UInt8]) -> Result<[Extensions_Api_CastChannel_CastMessage], CastFrame.Failure> in
            b += chunk
            do throws(CastFrame.Failure) {
                return .success(try CastFrame.take(from: &b))
            } catch {
                b = []
                return .failure(error)
            }
        }
        switch result {
        case .success(let messages): for m in messages { inputs.yield(.message(id, m)) }
        case .failure(let e): inputs.yield(.malformed(id, e.description))
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent { context.close(promise: nil) } else { context.fireUserInboundEventTriggered(event) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
