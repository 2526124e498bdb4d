import Foundation
import SluiceRun

extension TwoProcessMeasure {
    /// The wire between the two namespaces, as built: the addresses of its ends, what
    /// impairs it, and what to remove afterwards (the relay and its router namespace).
    package struct Link {
        package var addresses = (send: "10.99.0.1", receive: "10.99.0.2")
        /// How the link is shaped, for the report.
        package var note: String?
        /// The conditions in force, for the report.
        package var conditions: ImpairmentSchedule?
        package var relay: Process?
        package var router: String?
    }

    /// Builds the link between `hosts`: through Sluice's relay for a schedule or on a kernel
    /// without netem, else a veth pair with `tc netem` on the sender's end when asked for.
    /// What it creates is recorded in `link` as it goes, so a failure halfway is cleaned up.
    package func buildLink(
        _ link: inout Link, ip: String, tc: String, tag: String, hosts: Hosts, netemArgs: [String]?,
        executable: String
    ) throws {
        link.note = netem ?? schedule
        let relayText: String? =
            schedule
            ?? netemArgs.flatMap {
                Self.kernelHasNetem(tc: tc, ip: ip, namespace: hosts.send) ? nil : $0.joined(separator: " ")
            }
        if let relayText {
            do { link.conditions = try ImpairmentSchedule.parse(relayText) } catch {
                throw Failure(
                    description: schedule != nil
                        ? "--netem-schedule: \(error.description)"
                        : "--netem: this kernel has no netem, and Sluice's relay cannot do it: \(error.description)")
            }
            let router = "sluice-m\(tag)r"
            try Self.exec(ip, ["netns", "add", router])
            link.router = router
            link.relay = try Self.buildRelayLink(
                ip: ip, tag: tag, a: hosts.send, b: hosts.receive, r: router, netem: relayText,
                executable: executable)
            link.addresses = ("10.99.1.1", "10.99.2.1")
            link.note = relayText + (schedule != nil ? " (Sluice's TUN relay)" : " (Sluice's TUN relay: this kernel has no netem)")
        } else {
            try Self.buildVethLink(ip: ip, tag: tag, a: hosts.send, b: hosts.receive)
            if let netemArgs {
                try Self.exec(tc, ["-n", hosts.send, "qdisc", "add", "dev", "slm\(tag)a", "root", "netem"] + netemArgs)
                link.note = (netem ?? "") + " (tc netem)"
                link.conditions = ImpairmentSchedule((try? Impairment.parse(netem ?? "")) ?? Impairment(), text: netem ?? "")
            }
            link.addresses = ("10.99.0.1", "10.99.0.2")
        }
    }

    /// Whether this kernel has the netem qdisc (tried on a namespace's loopback).
    package static func kernelHasNetem(tc: String, ip: String, namespace: String) -> Bool {
        guard (try? exec(tc, ["-n", namespace, "qdisc", "add", "dev", "lo", "root", "netem", "delay", "0ms"])) != nil else { return false }
        _ = try? exec(tc, ["-n", namespace, "qdisc", "del", "dev", "lo", "root"])
        return true
    }

    /// A (10.99.0.1) — B (10.99.0.2): a veth pair.
    package static func buildVethLink(ip: String, tag: String, a: String, b: String) throws {
        try exec(ip, ["link", "add", "slm\(tag)a", "netns", a, "type", "veth", "peer", "name", "slm\(tag)b", "netns", b])
        for (ns, dev, addr) in [(a, "slm\(tag)a", "10.99.0.1"), (b, "slm\(tag)b", "10.99.0.2")] {
            try exec(ip, ["-n", ns, "addr", "add", "\(addr)/24", "dev", dev])
            try exec(ip, ["-n", ns, "link", "set", "lo", "up"])
            try exec(ip, ["-n", ns, "link", "set", dev, "up"])
        }
    }

    /// A (10.99.1.1) — R — B (10.99.2.1). In R, what comes from A is routed into a TUN
    /// device whose relay writes it back after the impairment; R then forwards it to B. What
    /// B sends to A takes the plain route. Returns the running relay.
    package static func buildRelayLink(
        ip: String, tag: String, a: String, b: String, r: String, netem: String,
        executable: String
    ) throws -> Process {
        let ra = "slm\(tag)ra", rb = "slm\(tag)rb", tun = "slm\(tag)t"
        try exec(ip, ["link", "add", "slm\(tag)a", "netns", a, "type", "veth", "peer", "name", ra, "netns", r])
        try exec(ip, ["link", "add", "slm\(tag)b", "netns", b, "type", "veth", "peer", "name", rb, "netns", r])
        for (ns, dev, addr, gateway) in [(a, "slm\(tag)a", "10.99.1.1/24", "10.99.1.254"), (b, "slm\(tag)b", "10.99.2.1/24", "10.99.2.254")] {
            try exec(ip, ["-n", ns, "addr", "add", addr, "dev", dev])
            try exec(ip, ["-n", ns, "link", "set", "lo", "up"])
            try exec(ip, ["-n", ns, "link", "set", dev, "up"])
            try exec(ip, ["-n", ns, "route", "add", "default", "via", gateway])
        }
        try exec(ip, ["-n", r, "addr", "add", "10.99.1.254/24", "dev", ra])
        try exec(ip, ["-n", r, "addr", "add", "10.99.2.254/24", "dev", rb])
        try exec(ip, ["-n", r, "tuntap", "add", "dev", tun, "mode", "tun"])
        for dev in ["lo", ra, rb, tun] { try exec(ip, ["-n", r, "link", "set", dev, "up"]) }
        // Forwarding on; reverse-path filtering off (packets from A come back in on the TUN).
        let sysctls = ["net/ipv4/ip_forward"] + ["all", "default", ra, rb, tun].map { "net/ipv4/conf/\($0)/rp_filter" }
        let script = sysctls.map { "echo \($0 == "net/ipv4/ip_forward" ? 1 : 0) > /proc/sys/\($0)" }.joined(separator: " && ")
        try exec(ip, ["netns", "exec", r, "sh", "-c", script])
        try exec(ip, ["-n", r, "rule", "add", "iif", ra, "lookup", "100"])
        try exec(ip, ["-n", r, "route", "add", "default", "dev", tun, "table", "100"])
        return try startRelay(ip: ip, router: r, tun: tun, netem: netem, executable: executable)
    }

    /// The relay (`netem-relay` in the router namespace), once it says it is attached
    /// (bounded: 10 s).
    package static func startRelay(ip: String, router r: String, tun: String, netem: String, executable: String) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: ip)
        p.arguments = ["netns", "exec", r, executable, "netem-relay", "--tun", tun, "--netem", netem]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.standardError
        let seen = ReadyLine()
        out.fileHandleForReading.readabilityHandler = { h in
            let d = h.availableData
            if d.isEmpty { h.readabilityHandler = nil } else { seen.append(d) }
        }
        try p.run()
        let deadline = Date().addingTimeInterval(10)
        while !seen.contains("relay: ready") {
            guard p.isRunning, Date() < deadline else { throw Failure(description: "the netem relay did not start") }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return p
    }
}

/// Output of a child, gathered from its pipe's handler thread.
package final class ReadyLine: @unchecked Sendable { // `text` is only touched with `lock` held
    private let lock = NSLock()
    private var text = ""
    package func append(_ d: Data) { lock.lock(); text += String(decoding: d, as: UTF8.self); lock.unlock() }
    package func contains(_ s: String) -> Bool { lock.lock(); defer { lock.unlock() }; return text.contains(s) }
}
