import Foundation
import SluiceRun
import SluiceMeasure

extension LoadNetemGroups {
    /// The link of netem group `number`: this namespace ↔ router (Sluice's TUN relay) ↔ the
    /// group's namespace. Interface names are `sl<tag><s|a|b|g|t><number>` (at most 15
    /// characters), the namespaces `sluice-l<tag>r<number>` and `sluice-l<tag>g<number>`.
    package struct GroupLink {
        package let tag: String
        package let number: Int
        package let ip: String
        package let iptables: String

        package var router: String { "sluice-l\(tag)r\(number)" }
        package var namespace: String { "sluice-l\(tag)g\(number)" }
        private func dev(_ end: String) -> String { "sl\(tag)\(end)\(number)" }
        private var near: String { "10.97.\(number)" }
        private var far: String { "10.98.\(number)" }

        /// Makes the namespaces and veth pairs, routes, and starts the relay in the router,
        /// relaying what enters it from the service's side (`role` viewer) or from the
        /// group's side (publisher) through `netem`. Returns the running relay.
        package func build(netem: String, impairing role: LoadRole, executable: String) throws -> Process {
            try exec(["netns", "add", router])
            try exec(["netns", "add", namespace])
            // This namespace (the service's side) to the router.
            try exec(["link", "add", dev("s"), "type", "veth", "peer", "name", dev("a"), "netns", router])
            try exec(["addr", "add", "\(near).1/24", "dev", dev("s")])
            try exec(["link", "set", dev("s"), "up"])
            try exec(["route", "add", "\(far).0/24", "via", "\(near).254"])
            // The router to the group's namespace.
            try exec(["link", "add", dev("g"), "netns", namespace, "type", "veth", "peer", "name", dev("b"), "netns", router])
            try exec(["-n", namespace, "addr", "add", "\(far).1/24", "dev", dev("g")])
            for d in ["lo", dev("g")] { try exec(["-n", namespace, "link", "set", d, "up"]) }
            try exec(["-n", namespace, "route", "add", "default", "via", "\(far).254"])
            try exec(["-n", router, "addr", "add", "\(near).254/24", "dev", dev("a")])
            try exec(["-n", router, "addr", "add", "\(far).254/24", "dev", dev("b")])
            try exec(["-n", router, "tuntap", "add", "dev", dev("t"), "mode", "tun"])
            for d in ["lo", dev("a"), dev("b"), dev("t")] { try exec(["-n", router, "link", "set", d, "up"]) }
            // Whatever is not the group's goes to this namespace (the service, or beyond it).
            try exec(["-n", router, "route", "add", "default", "via", "\(near).1"])
            // Forwarding on, reverse-path filtering off (relayed packets come back in on the
            // TUN); what enters from the impaired side is routed into the relay's TUN.
            let sysctls = ["all", "default", dev("a"), dev("b"), dev("t")].map { "echo 0 > /proc/sys/net/ipv4/conf/\($0)/rp_filter" }
            try exec(["netns", "exec", router, "sh", "-c", (["echo 1 > /proc/sys/net/ipv4/ip_forward"] + sysctls).joined(separator: " && ")])
            try exec(["-n", router, "rule", "add", "iif", role == .publisher ? dev("b") : dev("a"), "lookup", "100"])
            try exec(["-n", router, "route", "add", "default", "dev", dev("t"), "table", "100"])
            try TwoProcessMeasure.exec(iptables, ["-t", "nat", "-A"] + masquerade)
            return try TwoProcessMeasure.startRelay(ip: ip, router: router, tun: dev("t"), netem: netem, executable: executable)
        }

        /// The rule (after `-t nat -A` or `-D`) that gives the group's packets leaving this
        /// namespace for another host this namespace's address on the way out, as a home
        /// router does: a service elsewhere has no route back to `10.98.k.0/24`.
        private var masquerade: [String] { ["POSTROUTING", "-s", "\(far).0/24", "!", "-o", dev("s"), "-j", "MASQUERADE"] }

        /// Removes what `build` added to this namespace (the namespaces go on their own).
        package func unmasquerade() { _ = try? TwoProcessMeasure.exec(iptables, ["-t", "nat", "-D"] + masquerade) }

        private func exec(_ args: [String]) throws { try TwoProcessMeasure.exec(ip, args) }
    }
}
