import BFFServer
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The URLs a phone, simulator or emulator uses to reach a server bound to all interfaces.
public enum DeviceURLs {
    /// Startup lines for `host:port`: the iOS simulator (localhost), the Android emulator (10.0.2.2) and every LAN
    /// address; empty unless `host` is `0.0.0.0` or `::`.
    public static func lines(host: String, port: Int, lanAddresses: [String] = lanAddresses()) -> [String] {
        guard host == "0.0.0.0" || host == "::" else { return [] }
        var lines = [
            "from the iOS simulator:    http://localhost:\(port)",
            "from the Android emulator: http://10.0.2.2:\(port)",
        ]
        for address in lanAddresses {
            let literal = address.contains(":") ? "[\(address)]" : address
            lines.append("from a phone on the LAN:   http://\(literal):\(port)")
        }
        if lanAddresses.isEmpty { lines.append("no LAN address found (is the machine on a network?)") }
        return lines
    }

    /// IPv4 addresses of the interfaces that are up, loopback excluded, in interface order.
    public static func lanAddresses() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var addresses: [String] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            let flags = Int32(entry.pointee.ifa_flags)
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0
            else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                var raw = ipv4.pointee.sin_addr
                _ = inet_ntop(AF_INET, &raw, &text, socklen_t(INET_ADDRSTRLEN))
            }
            let string = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !addresses.contains(string) { addresses.append(string) }
        }
        return addresses
    }
}

/// Startup lines describing the mock backend (empty in production).
public enum MockBanner {
    public static func lines(configuration: BFFConfiguration, baseURL: String) -> [String] {
        let mock = configuration.mock
        guard mock.enabled else { return [] }
        let baseURL = baseURL.replacingOccurrences(of: "://0.0.0.0:", with: "://127.0.0.1:")
            .replacingOccurrences(of: "://[::]:", with: "://[::1]:")
        let watch =
            switch mock.watch {
            case .auto:
                "watching \(configuration.pages.directory) (change notifications + polling every \(mock.pollIntervalMs) ms)"
            case .poll: "polling \(configuration.pages.directory) every \(mock.pollIntervalMs) ms"
            case .off: "not watching \(configuration.pages.directory) (POST \(baseURL)/__admin/reload)"
            }
        return [
            "mock backend on (docs/mock.md): \(watch); seed \(mock.seed); \(mock.faults.count) fault rules",
            "  admin: \(baseURL)/__admin/status  \(baseURL)/__admin/journal  \(baseURL)/__admin/echo",
            "  headers: X-Flow-Mock (latency, faults), X-Flow-Scenario, X-Flow-Session (or cookie flow_session)",
        ]
    }
}
