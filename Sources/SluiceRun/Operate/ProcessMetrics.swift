import Foundation

/// The process's CPU time, resident memory, open file descriptors and threads, under the
/// names Prometheus client libraries use (`process_cpu_seconds_total`, …), read from
/// `/proc/self` (Linux).
public struct ProcessMetrics: MetricsSource {
    /// A source for this process's figures, read from `/proc/self` at each scrape.
    public init() {}

    /// Reports `process_cpu_seconds_total`, `process_resident_memory_bytes`, `process_open_fds` and
    /// `process_threads`; reports nothing where `/proc/self` cannot be read.
    public func collect(into sink: MetricsSink) {
        guard let s = Self.read() else { return }
        sink.counter("process_cpu_seconds_total", total: s.cpuSeconds, help: "User and system CPU time spent, in seconds.")
        sink.gauge("process_resident_memory_bytes", Double(s.residentBytes), help: "Resident memory size in bytes.")
        sink.gauge("process_open_fds", Double(s.openFDs), help: "Number of open file descriptors.")
        sink.gauge("process_threads", Double(s.threads), help: "Number of OS threads in the process.")
    }

    /// One reading: CPU time (user + system, seconds), resident memory (bytes), open file descriptors and threads.
    public struct Sample: Sendable { public var cpuSeconds: Double; public var residentBytes: Int; public var openFDs: Int; public var threads: Int }

    /// The process as `/proc/self` shows it now; nil where there is no procfs.
    public static func read() -> Sample? {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after "(comm)": state is field 3, utime 14, stime 15, num_threads 20, rss 24.
        let f = stat[stat.index(after: close)...].split(separator: " ")
        guard f.count > 22, let utime = Double(f[11]), let stime = Double(f[12]), let threads = Int(f[17]),
            let rssPages = Int(f[21])
        else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        return Sample(cpuSeconds: (utime + stime) / max(1, ticks), residentBytes: rssPages * page, openFDs: fds, threads: threads)
    }
}
