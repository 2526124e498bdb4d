import Foundation
import XCTest

/// A throwaway prosody (Debian's XMPP server) on 127.0.0.1 for the XMPP tests: its own
/// directory with config, data, a self-signed certificate for `localhost` and test
/// accounts made by `prosodyctl`. Tests run it inside their loopback-only namespace.
final class ProsodyFixture {
    let directory: URL
    let port: Int
    let process = Process()
    var certificate: String { directory.appendingPathComponent("localhost.crt").path }

    /// Skips the test when prosody is not installed (`Scripts/install.sh` installs it).
    /// Stopped when `test` ends, whatever happens in it.
    init(users: [String: String], port: Int = Int.random(in: 20000...40000), tls: Bool = true, for test: XCTestCase) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/prosody") else {
            throw XCTSkip("prosody is not installed (Scripts/install.sh installs it)")
        }
        self.port = port
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("prosody-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("data"), withIntermediateDirectories: true)
        let d = directory.path
        try Self.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                                          "-keyout", "\(d)/localhost.key", "-out", "\(d)/localhost.crt", "-days", "2",
                                          "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"])
        let ssl = tls ? "ssl = { key = \"\(d)/localhost.key\"; certificate = \"\(d)/localhost.crt\" }" : ""
        let modules = tls ? "\"tls\"; " : ""
        let config = """
            run_as_root = true
            daemonize = false
            pidfile = "\(d)/prosody.pid"
            data_path = "\(d)/data"
            certificates = "\(d)"
            interfaces = { "127.0.0.1" }
            c2s_ports = { \(port) }
            s2s_ports = { }
            log = { debug = "\(d)/prosody.log" }
            modules_enabled = { "roster"; "saslauth"; \(modules)"disco"; "ping"; "posix" }
            authentication = "internal_hashed"
            c2s_require_encryption = false
            \(ssl)
            VirtualHost "localhost"
            """
        try config.write(to: directory.appendingPathComponent("prosody.cfg.lua"), atomically: true, encoding: .utf8)
        for (user, password) in users {
            try Self.run("/usr/bin/prosodyctl", ["--config", "\(d)/prosody.cfg.lua", "register", user, "localhost", password])
        }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/prosody")
        process.arguments = ["--config", "\(d)/prosody.cfg.lua"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        test.addTeardownBlock { [process] in
            guard process.isRunning else { return }
            kill(process.processIdentifier, SIGKILL)
        }
        try waitForPort()
    }

    private func waitForPort() throws {
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
        let log = (try? String(contentsOfFile: directory.appendingPathComponent("prosody.log").path, encoding: .utf8)) ?? ""
        throw NSError(domain: "prosody", code: 1, userInfo: [NSLocalizedDescriptionKey: "prosody did not listen on \(port): \(log.suffix(1500))"])
    }

    /// Stops the server (the tests' "server vanishes" case calls this mid-session).
    func stop() {
        // SIGKILL: the server is throwaway, and a child started from a test thread inherits
        // that thread's blocked signals, SIGTERM among them. Polled, not waitUntilExit (which
        // spins a run loop an async test's thread does not run).
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        for _ in 0..<100 where process.isRunning { usleep(20_000) }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    private static func run(_ tool: String, _ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw NSError(domain: "prosody", code: Int(p.terminationStatus), userInfo: [NSLocalizedDescriptionKey: "\(tool) \(args.joined(separator: " ")) failed"])
        }
    }
}
