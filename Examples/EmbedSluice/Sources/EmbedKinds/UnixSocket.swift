#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif
import SluiceRun

/// A stream Unix socket, non-blocking, polled with short sleeps so waiting never holds a
/// thread and always ends: at the deadline, or when the run is stopped. One message each way:
/// the writer shuts its side down when done, the reader reads until then. The descriptor is
/// closed when the last reference goes.
final class UnixSocket: Sendable {
    /// What went wrong, in words for the run's error.
    struct Failure: Error {
        var message: String
    }

    private let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    /// Listens on `path` (a stale socket file there is removed first).
    static func listen(_ path: String) throws(Failure) -> UnixSocket {
        let s = try make()
        unlink(path)
        var address = try Self.address(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(s.fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, Glibc.listen(s.fd, 1) == 0 else { throw Failure(message: "cannot listen: \(Self.errorText())") }
        return s
    }

    /// Connects to `path` (retrying until the listener is there), sends `message`, and returns the reply.
    static func call(_ path: String, sending message: String, until deadline: ContinuousClock.Instant, stop: StopFlag) async throws(Failure) -> String {
        var address = try Self.address(path)
        while true {
            let s = try make()
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(s.fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            if connected == 0 || errno == EINPROGRESS {
                try s.write(message)
                return try await s.readAll(until: deadline)
            }
            guard ContinuousClock.now < deadline, !stop.isSet else { throw Failure(message: "nobody answered at \(path)") }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The next connection.
    func accept(until deadline: ContinuousClock.Instant, stop: StopFlag) async throws(Failure) -> UnixSocket {
        while true {
            let c = Glibc.accept(fd, nil, nil)
            if c >= 0 {
                _ = fcntl(c, F_SETFL, fcntl(c, F_GETFL) | O_NONBLOCK)
                return UnixSocket(fd: c)
            }
            guard errno == EAGAIN || errno == EWOULDBLOCK else { throw Failure(message: "accept failed: \(Self.errorText())") }
            guard ContinuousClock.now < deadline, !stop.isSet else { throw Failure(message: "nobody called") }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Everything the other side writes until it shuts its side down.
    func readAll(until deadline: ContinuousClock.Instant) async throws(Failure) -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                bytes += buffer[0..<n]
                guard bytes.count < 1 << 20 else { throw Failure(message: "the other side sent more than 1 MiB") }
            } else if n == 0 {
                return String(decoding: bytes, as: UTF8.self)
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                guard ContinuousClock.now < deadline else { throw Failure(message: "the other side sent nothing in time") }
                try? await Task.sleep(for: .milliseconds(10))
            } else {
                throw Failure(message: "read failed: \(Self.errorText())")
            }
        }
    }

    /// Writes `text` whole, then shuts this side down (the other side's read ends).
    func write(_ text: String) throws(Failure) {
        var rest = Array(text.utf8)[...]
        while !rest.isEmpty {
            let n = rest.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                rest = rest.dropFirst(n)
            } else if n < 0, errno != EAGAIN, errno != EWOULDBLOCK {
                throw Failure(message: "write failed: \(Self.errorText())")
            } else {
                var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&p, 1, 100)
            }
        }
        shutdown(fd, Int32(SHUT_WR))
    }

    deinit { _ = Glibc.close(fd) }

    private static func make() throws(Failure) -> UnixSocket {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(message: "cannot make a socket: \(errorText())") }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return UnixSocket(fd: fd)
    }

    private static func address(_ path: String) throws(Failure) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { throw Failure(message: "the path is longer than \(capacity - 1) bytes") }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        return address
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
}
