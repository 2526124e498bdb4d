import Foundation
import XCTest

/// A throwaway prosody (Debian's XMPP server) inside a test's namespace: shell that writes its
/// config, a certificate for `localhost` and the accounts into a temporary directory, starts
/// it on 127.0.0.1:`port` and waits until it accepts connections; and shell that stops it.
struct ProsodyShell {
    let directory: String
    let port: Int
    let users: [String: String]

    init(port: Int, users: [String: String]) {
        self.directory = FileManager.default.temporaryDirectory.appendingPathComponent("prosody-\(UUID().uuidString.prefix(8))").path
        self.port = port
        self.users = users
    }

    /// The certificate clients trust (`transport.ca`).
    var certificate: String { "\(directory)/localhost.crt" }

    /// Skips the test when prosody is not installed (Scripts/install.sh installs it).
    static func requireProsody() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/prosody") else {
            throw XCTSkip("prosody is not installed (Scripts/install.sh installs it)")
        }
    }

    var start: String {
        let d = directory
        let registers = users.sorted { $0.key < $1.key }
            .map { "prosodyctl --config \(d)/prosody.cfg.lua register \($0.key) localhost '\($0.value)' >/dev/null 2>&1 || exit 91" }
            .joined(separator: "\n")
        return """
        mkdir -p \(d)/data
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout \(d)/localhost.key -out \(d)/localhost.crt \\
            -days 2 -subj /CN=localhost -addext subjectAltName=DNS:localhost >/dev/null 2>&1 || exit 92
        cat > \(d)/prosody.cfg.lua <<'CFG'
        run_as_root = true
        daemonize = false
        pidfile = "\(d)/prosody.pid"
        data_path = "\(d)/data"
        certificates = "\(d)"
        interfaces = { "127.0.0.1" }
        c2s_ports = { \(port) }
        s2s_ports = { }
        log = { info = "\(d)/prosody.log" }
        modules_enabled = { "roster"; "saslauth"; "tls"; "disco"; "ping"; "posix"; "offline" }
        authentication = "internal_hashed"
        c2s_require_encryption = true
        ssl = { key = "\(d)/localhost.key"; certificate = "\(d)/localhost.crt" }
        VirtualHost "localhost"
        CFG
        \(registers)
        prosody --config \(d)/prosody.cfg.lua >/dev/null 2>&1 &
        prosody=$!
        i=0; until python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", \(port)), 1)' 2>/dev/null; do
          i=$((i+1)); [ $i -lt 300 ] || { tail -20 \(d)/prosody.log >&2; exit 93; }; sleep 0.05; done
        """
    }

    /// SIGKILL: a child of the test process inherits its threads' blocked signals, SIGTERM among them.
    var stop: String { "kill -9 $prosody 2>/dev/null; wait $prosody 2>/dev/null; rm -rf \(directory)" }
}
