import Foundation
import SluiceRun
import SluiceMeasure

/// The groups of a load crowd with `netem` (`load.groups`), each behind an impaired link of
/// its own: its clients run in a child `sluice load` in a network namespace of their own,
/// routed through a second namespace where Sluice's TUN relay (`sluice netem-relay`, the
/// one `sluice measure --netem` uses) delays, drops, duplicates or rate-limits the packets.
/// Viewers' conditions apply to what the service sends them, publishers' to what they send
/// the service, as netem on the far end of a home link does. Needs root.
///
/// For netem group `k` (1-based): this namespace has `10.97.k.1/24` on a veth to the router
/// (`10.97.k.254`) and a route to `10.98.k.0/24` through it; the group's namespace has
/// `10.98.k.1/24`, its default route through the router (`10.98.k.254`). What the group
/// sends on to another host leaves this namespace masqueraded to its address there (this
/// namespace forwards meanwhile), as from behind a home router. A service in this namespace
/// must be at an address that is not loopback; one that binds each UDP candidate to its
/// interface (libnice) answers a group over UDP only from a candidate on the group's link.
public final class LoadNetemGroups: Sendable {
    /// One netem group's namespaces, relay and child process.
    package struct Member: Sendable {
        package let group: LoadGroup
        package let link: GroupLink
        package let report: URL
        package let relay: Process
        package let child: Process
    }

    private let members: [Member]
    private let folder: URL
    private let ip: String
    private let forwarding: Forwarding

    /// The groups' addresses inside their own namespaces: `10.98.k.1` for group `k`.
    public static func address(ofGroup number: Int) -> String { "10.98.\(number).1" }

    /// Builds every netem group's namespaces and link, and starts its child: `executable`
    /// with `arguments(k)` (what this process was asked to run, for netem group `k`), plus
    /// `--quiet --json REPORT` and its namespace's ICE address. Throws (after removing what
    /// it made) when not root, when the service is on loopback, or when a namespace, link or
    /// relay cannot be made.
    public init(spec: PipelineSpec, load: LoadSpec, role: LoadRole, arguments: (Int) -> [String]) throws(RunError) {
        guard getuid() == 0 else {
            throw RunError("load groups with netem run in network namespaces of their own: run sluice load as root", at: load.location)
        }
        try Self.checkReachable(spec)
        let tag = "\(getpid() % 100000)"
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-load-groups-\(tag)-\(UUID().uuidString)")
        var made: [Member] = []
        var links: [GroupLink] = []
        forwarding = Forwarding()
        do {
            ip = try TwoProcessMeasure.tool("ip")
            let iptables = try Self.iptables()
            let executable = try TwoProcessMeasure.executable()
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try forwarding.enable()
            for (i, group) in load.netemGroups.enumerated() {
                let link = GroupLink(tag: tag, number: i + 1, ip: ip, iptables: iptables)
                links.append(link)
                let relay = try link.build(netem: group.netem ?? "", impairing: role, executable: executable)
                let report = folder.appendingPathComponent("group\(i + 1).json")
                let child = try Self.startChild(
                    ip: ip, namespace: link.namespace, executable: executable,
                    arguments: arguments(i + 1) + [
                        "--quiet", "--json", report.path, "--set", "transport.ice.addresses=[\(Self.address(ofGroup: i + 1))]"
                    ])
                made.append(Member(group: group, link: link, report: report, relay: relay, child: child))
            }
        } catch {
            Self.remove(made, links: links, ip: (try? TwoProcessMeasure.tool("ip")) ?? "ip", folder: folder, forwarding: forwarding)
            let message = (error as? RunError)?.message ?? "\(error)"
            throw RunError("cannot set up the load groups with netem: \(message)", at: load.location)
        }
        members = made
    }

    /// Waits for every group's child to end (a set `stop` is passed on to them as SIGINT;
    /// bounded by `limit` seconds, after which they are killed) and returns their reports.
    /// A child that wrote none is a failure naming its group.
    public func reports(stop: StopFlag, limit: Double) async throws(RunError) -> [LoadReport] {
        let deadline = Date().addingTimeInterval(limit)
        var interrupted = false
        while members.contains(where: { $0.child.isRunning }) {
            if stop.isSet, !interrupted { members.forEach { $0.child.interrupt() }; interrupted = true }
            if Date() > deadline { members.forEach { if $0.child.isRunning { $0.child.terminate() } }; break }
            try? await Task.sleep(for: .milliseconds(100))
        }
        var out: [LoadReport] = []
        for m in members {
            m.child.waitUntilExit()
            guard let report = try? LoadReport.read(from: m.report) else {
                throw RunError(
                    "load group '\(m.group.name)' (netem \(m.group.netem ?? "")): its process in namespace \(m.link.namespace) wrote no report "
                        + "(exit \(m.child.terminationStatus)); its error is above")
            }
            out.append(report)
        }
        return out
    }

    /// Stops the relays, removes the namespaces (and with them the links), the masquerading
    /// rules and the reports, and puts this namespace's forwarding back as it was.
    public func remove() {
        Self.remove(members, links: members.map(\.link), ip: ip, folder: folder, forwarding: forwarding)
    }

    private static func remove(_ members: [Member], links: [GroupLink], ip: String, folder: URL, forwarding: Forwarding) {
        for m in members {
            if m.child.isRunning { m.child.terminate(); m.child.waitUntilExit() }
            if m.relay.isRunning { m.relay.interrupt(); m.relay.waitUntilExit() }
        }
        for link in links {
            link.unmasquerade()
            for ns in [link.router, link.namespace] { _ = try? TwoProcessMeasure.exec(ip, ["netns", "del", ns]) }
        }
        forwarding.restore()
        try? FileManager.default.removeItem(at: folder)
    }

    /// `iptables`, which masquerades the groups' packets to a service on another host.
    private static func iptables() throws -> String {
        do { return try TwoProcessMeasure.tool("iptables") } catch {
            throw RunError("'iptables' is not installed (netem groups reach a service on another host through NAT): apt-get install iptables")
        }
    }

    /// A child `sluice load` in `namespace`; its standard error goes to ours.
    private static func startChild(ip: String, namespace: String, executable: String, arguments: [String]) throws -> Process {
        try TwoProcessMeasure.start(ip, ["netns", "exec", namespace, executable] + arguments, forward: false)
    }

    /// The service's host must not be loopback: a group's namespace cannot reach it there.
    package static func checkReachable(_ spec: PipelineSpec) throws(RunError) {
        let url = spec.transport.settings?.value.serviceURL
        guard let url, let host = URLComponents(string: url)?.host else { return }
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if bare == "localhost" || bare == "::1" || bare.hasPrefix("127.") {
            throw RunError(
                "load groups with netem run in network namespaces of their own, which cannot reach the service at \(host) ("
                    + "\(url)); serve it on an address of this host that is not loopback (and let it offer ICE candidates there), "
                    + "and point the file at that address",
                at: spec.transport.location)
        }
    }
}
