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
    public static func lines(
        host: String, port: Int, scheme: String = "http", lanAddresses: [String] = NetworkInterfaces.lanAddresses()
    ) -> [String] {
        guard host == "0.0.0.0" || host == "::" else { return [] }
        var lines = [
            "from the iOS simulator:    \(scheme)://localhost:\(port)",
            "from the Android emulator: \(scheme)://10.0.2.2:\(port)",
        ]
        for address in lanAddresses {
            let literal = address.contains(":") ? "[\(address)]" : address
            lines.append("from a phone on the LAN:   \(scheme)://\(literal):\(port)")
        }
        if lanAddresses.isEmpty { lines.append("no LAN address found (is the machine on a network?)") }
        return lines
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
