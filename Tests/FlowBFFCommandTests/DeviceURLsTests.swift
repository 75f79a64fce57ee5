import BFFServer
import Testing

@testable import flow_bff

/// The startup banner's device URLs (the CLI's, Sources/flow-bff/DeviceURLs.swift).
@Suite struct DeviceURLsTests {
    @Test func deviceURLsWhenBoundToAllInterfaces() {
        #expect(DeviceURLs.lines(host: "127.0.0.1", port: 8080, lanAddresses: ["192.168.1.5"]).isEmpty)
        let lines = DeviceURLs.lines(host: "0.0.0.0", port: 8080, lanAddresses: ["192.168.1.5", "10.1.2.3"])
        #expect(lines.contains { $0.hasSuffix("http://localhost:8080") })
        #expect(lines.contains { $0.hasSuffix("http://10.0.2.2:8080") })
        #expect(lines.contains { $0.hasSuffix("http://192.168.1.5:8080") })
        #expect(lines.contains { $0.hasSuffix("http://10.1.2.3:8080") })
        #expect(NetworkInterfaces.lanAddresses().allSatisfy { !$0.hasPrefix("127.") })
    }

}
