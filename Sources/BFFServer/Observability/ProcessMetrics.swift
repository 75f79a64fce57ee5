import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The standard `process_*` families Prometheus client libraries export, read at each scrape: CPU seconds,
/// resident and virtual memory, open and maximum file descriptors, and the start time. On Linux from `/proc/self`
/// (`stat`, `statm`, `fd`) and `getrusage`/`getrlimit`; where `/proc` is missing, only what the system calls give.
enum ProcessMetrics {
    #if canImport(Glibc)
        private static let rusageSelf = __rusage_who_t(RUSAGE_SELF.rawValue)
        private static let openFilesLimit = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
        private static let rusageSelf = RUSAGE_SELF
        private static let openFilesLimit = RLIMIT_NOFILE
    #endif

    /// The families, in the exposition's usual order.
    static var families: [MetricFamily] {
        var families: [MetricFamily] = []
        var usage = rusage()
        if getrusage(Self.rusageSelf, &usage) == 0 {
            let seconds =
                Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
                + Double(usage.ru_stime.tv_usec) / 1e6
            families.append(
                gauge(
                    "process_cpu_seconds_total", .counter, "Total user and system CPU time spent in seconds.", seconds))
        }
        if let pages = statm() {
            let pageSize = Double(sysconf(Int32(_SC_PAGESIZE)))
            families.append(
                gauge("process_virtual_memory_bytes", .gauge, "Virtual memory size in bytes.", pages.virtual * pageSize)
            )
            families.append(
                gauge(
                    "process_resident_memory_bytes", .gauge, "Resident memory size in bytes.", pages.resident * pageSize
                ))
        }
        if let open = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            // The listing itself holds one descriptor open while it runs.
            families.append(
                gauge("process_open_fds", .gauge, "Number of open file descriptors.", Double(max(0, open.count - 1))))
        }
        var limit = rlimit()
        if getrlimit(Self.openFilesLimit, &limit) == 0 {
            families.append(
                gauge("process_max_fds", .gauge, "Maximum number of open file descriptors.", Double(limit.rlim_cur)))
        }
        if let start = startTime {
            families.append(
                gauge(
                    "process_start_time_seconds", .gauge, "Start time of the process since unix epoch in seconds.",
                    start))
        }
        return families
    }

    private static func gauge(_ name: String, _ kind: MetricFamily.Kind, _ help: String, _ value: Double)
        -> MetricFamily
    {
        MetricFamily(name, kind, help: help, samples: [.init(labels: [], value: .real(value))])
    }

    /// `/proc/self/statm`: total and resident program size, in pages.
    private static func statm() -> (virtual: Double, resident: Double)? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count >= 2, let virtual = Double(fields[0]), let resident = Double(fields[1]) else { return nil }
        return (virtual, resident)
    }

    /// The process's start time in seconds since the epoch: `/proc/self/stat`'s start time (clock ticks after boot)
    /// plus the boot time (`btime` of `/proc/stat`). Read once.
    static let startTime: Double? = {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let system = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let bootLine = system.split(separator: "\n").first(where: { $0.hasPrefix("btime ") }),
            let boot = Double(bootLine.dropFirst("btime ".count)),
            // The command name (field 2) is parenthesised and may hold spaces: count fields after its `)`.
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After `)`: state is field 3, so start time (field 22) is the 20th.
        guard fields.count > 19, let ticks = Double(fields[19]) else { return nil }
        return boot + ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }()
}
