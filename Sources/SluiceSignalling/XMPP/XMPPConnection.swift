import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// One TCP connection to an XMPP server, cut into stream parts by `XMPPFramer` on the event
/// loop and handed over as an async sequence. TLS can be started on it in place
/// (STARTTLS); the framer can be reset when a new stream begins.
final class XMPPConnection: Sendable {
    enum Inbound: Sendable {
        case part(XMPPFramer.Part)
        /// The server broke XMPP's XML rules (stream error condition, words).
        case broken(XMPPFramer.Failure)
        /// The connection ended (with what went wrong, when something did).
        case closed(String?)
    }

    let channel: any Channel
    let inbound: AsyncStream<Inbound>

    private init(channel: any Channel, inbound: AsyncStream<Inbound>) {
        self.channel = channel
        self.inbound = inbound
    }

    static func connect(host: String, port: Int, timeout: Double) async throws -> XMPPConnection {
        let (inbound, sink) = AsyncStream<Inbound>.makeStream(bufferingPolicy: .bufferingNewest(4096))
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.milliseconds(Int64(timeout * 1000)))
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(FrameHandler(sink: sink))
                }
            }
            .connect(host: host, port: port).get()
        return XMPPConnection(channel: channel, inbound: inbound)
    }

    func write(_ text: String) {
        channel.writeAndFlush(ByteBuffer(string: text), promise: nil)
    }

    /// Starts TLS on the connection (after the server's `<proceed/>`), verifying the
    /// server's certificate for `hostname` against `trustRoots` (PEM file) or the system's.
    func startTLS(hostname: String, trustRoots: String?) async throws {
        var config = TLSConfiguration.makeClientConfiguration()
        config.minimumTLSVersion = .tlsv12
        if let trustRoots { config.trustRoots = .file(trustRoots) }
        let context = try NIOSSLContext(configuration: config)
        let channel = self.channel
        try await channel.eventLoop.submit {
            let tls = try NIOSSLClientHandler(context: context, serverHostname: hostname)
            try channel.pipeline.syncOperations.addHandler(tls, position: .first)
            try channel.pipeline.syncOperations.handler(type: FrameHandler.self).reset()
        }.get()
    }

    /// Forgets the stream so far: the next bytes start a new one.
    func resetStream() async throws {
        let channel = self.channel
        try await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.handler(type: FrameHandler.self).reset()
        }.get()
    }

    func close() {
        channel.close(promise: nil)
    }
}

/// Feeds the bytes to the framer, on the event loop only.
private final class FrameHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private var framer = XMPPFramer()
    private let sink: AsyncStream<XMPPConnection.Inbound>.Continuation
    private var failed = false

    init(sink: AsyncStream<XMPPConnection.Inbound>.Continuation) { self.sink = sink }

    func reset() { framer.reset() }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        let bytes = unwrapInboundIn(data)
        do {
            for part in try framer.feed(bytes.readableBytesView) { sink.yield(.part(part)) }
        } catch {
            failed = true
            sink.yield(.broken(error))
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        sink.yield(.closed("\(error)"))
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        sink.yield(.closed(nil))
        sink.finish()
        context.fireChannelInactive()
    }
}
