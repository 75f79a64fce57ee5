#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `Date:` header line, re-rendered at most once per second (IMF-fixdate, RFC 9110 §5.6.7).
struct HTTPDateCache {
    private var second: Int = -1
    private(set) var line: [UInt8] = []

    /// Refreshes the cached line if the wall-clock second changed.
    mutating func refresh() {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME_COARSE, &spec)
        let now = spec.tv_sec
        guard now != second else { return }
        second = now
        line = Array("Date: \(HTTPDateCache.format(now))\r\n".utf8)
    }

    /// IMF-fixdate for a Unix time, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func format(_ time: Int) -> String {
        var seconds = time_t(time)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
