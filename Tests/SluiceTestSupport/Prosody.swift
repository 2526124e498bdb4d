import Foundation
import XCTest

/// A throwaway prosody (Debian's XMPP server) on 127.0.0.1 for the XMPP tests: its own
/// directory with config, data, a self-signed certificate for `localhost` and the test
/// accounts (made by `prosodyctl` when this is created). Run in either of two ways:
///
/// - as a child of the test process (`start(for:)`), when the test itself already runs in a
///   loopback-only namespace (the signalling tests);
/// - from shell (`startScript`, `stopScript`) that a test runs in a fresh namespace next to the
///   `sluice` processes and peers it starts (the end-to-end tests).
///
/// The directory is removed when this is released.
public final class Prosody {
    /// What the server says of TLS.
    public enum TLS: Sendable {
        /// No TLS module: clients log in over the plain stream.
        case off
        /// STARTTLS offered; a client may also log in without it.
        case offered
        /// STARTTLS offered, and a client must use it before logging in.
        case required
    }

    public let directory: URL
    public let port: Int
    public let tls: TLS
    /// Set while it runs as a child of the test process (`start(for:)`).
    private var process: Process?

    /// The certificate clients trust (`transport.ca`, `trustRoots`).
    public var certificate: String { directory.appendingPathComponent("localhost.crt").path }
    /// The server's log (debug level): tests wait for lines such as `Resource bound: bob@localhost/sluice`.
    public var log: String { directory.appendingPathComponent("prosody.log").path }
    private var configFile: String { directory.appendingPathComponent("prosody.cfg.lua").path }

    /// Fails the test (and stops it) when prosody is not installed: a missing peer is a
    /// broken set-up, not a pass (`Scripts/install.sh` installs it).
    public static func requireInstalled(file: StaticString = #filePath, line: UInt = #line) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/prosody") else {
            XCTFail("prosody is not installed: run Scripts/install.sh testing", file: file, line: line)
            throw XCTSkip("prosody is not installed")
        }
    }

    /// Prepares a server for `users` (name → password, at `localhost`) on `port`; fails the
    /// test when prosody is not installed. Nothing runs yet.
    public init(port: Int = Int.random(in: 20000...40000), users: [String: String], tls: TLS = .offered) throws {
        try Self.requireInstalled()
        self.port = port
        self.tls = tls
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("prosody-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("data"), withIntermediateDirectories: true)
        let d = directory.path
        try ProcessRunner.check(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", "\(d)/localhost.key", "-out", "\(d)/localhost.crt", "-days", "2",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"
            ])
        try configuration.write(toFile: configFile, atomically: true, encoding: .utf8)
        for (user, password) in users.sorted(by: { $0.key < $1.key }) {
            try ProcessRunner.check("/usr/bin/prosodyctl", ["--config", configFile, "register", user, "localhost", password])
        }
    }

    /// prosody.cfg.lua: c2s on 127.0.0.1:`port` only, no s2s, internal hashed passwords (so
    /// SCRAM), TLS as `tls` says, and the modules a Jingle call needs (roster, disco, ping,
    /// offline messages).
    private var configuration: String {
        let d = directory.path
        let tlsModule = tls == .off ? "" : "\"tls\"; "
        let ssl = tls == .off ? "" : "ssl = { key = \"\(d)/localhost.key\"; certificate = \"\(d)/localhost.crt\" }"
        return """
            run_as_root = true
            daemonize = false
            pidfile = "\(d)/prosody.pid"
            data_path = "\(d)/data"
            certificates = "\(d)"
            interfaces = { "127.0.0.1" }
            c2s_ports = { \(port) }
            s2s_ports = { }
            log = { debug = "\(log)" }
            modules_enabled = { "roster"; "saslauth"; \(tlsModule)"disco"; "ping"; "posix"; "offline" }
            authentication = "internal_hashed"
            c2s_require_encryption = \(tls == .required)
            \(ssl)
            VirtualHost "localhost"
            """
    }

    // MARK: From shell, in the script's own namespace

    /// Shell that starts the server in the background (its pid in `$prosody`) and waits until
    /// it accepts connections; exits 93 with the log's tail if it does not within 15 s.
    public var startScript: String {
        """
        prosody --config \(configFile) >/dev/null 2>&1 &
        prosody=$!
        i=0; until python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", \(port)), 1)' 2>/dev/null; do
          i=$((i+1)); [ $i -lt 300 ] || { tail -20 \(log) >&2; exit 93; }; sleep 0.05; done
        """
    }

    /// Shell that stops what `startScript` started. SIGKILL: a child of the test process
    /// inherits its threads' blocked signals, SIGTERM among them.
    public var stopScript: String { "kill -9 $prosody 2>/dev/null; wait $prosody 2>/dev/null" }

    // MARK: As a child of the test process

    /// Starts the server as a child of the test process and waits until it accepts
    /// connections. Stopped when `test` ends, whatever happens in it.
    @discardableResult
    public func start(for test: XCTestCase) throws -> Prosody {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/prosody")
        process.arguments = ["--config", configFile]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        test.addTeardownBlock { [process] in
            guard process.isRunning else { return }
            kill(process.processIdentifier, SIGKILL)
        }
        try waitForPort(process)
        return self
    }

    private func waitForPort(_ process: Process) throws {
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if !process.isRunning { break }
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = in_port_t(UInt16(port).bigEndian)
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            let ok = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            close(fd)
            if ok == 0 { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        throw NSError(domain: "prosody", code: 1, userInfo: [NSLocalizedDescriptionKey: "prosody did not listen on \(port): \(text.suffix(1500))"])
    }

    /// Stops the server `start(for:)` started (the tests' "server vanishes" case calls this
    /// mid-session).
    public func stop() {
        // SIGKILL: the server is throwaway, and a child started from a test thread inherits
        // that thread's blocked signals, SIGTERM among them. Polled, not waitUntilExit (which
        // spins a run loop an async test's thread does not run).
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        for _ in 0..<100 where process.isRunning { usleep(20_000) }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }
}
