import BFFServer
import BFFTesting
import Foundation
import HTTPTesting
import Testing

/// The families a pager needs (issue 35): latency per route and catalog page, problem answers by code, the build and
/// the process — with label sets bounded by what the catalog and the contract name, never by the URL.
@Suite struct OperationsMetricsTests {
    @Test func pagesProblemsBuildAndProcessAreExported() async throws {
        try await withTestServer { server in
            let http = HTTPTestClient(port: server.port)
            _ = try await http.get("/v1/pages/home")
            _ = try await http.get("/v1/pages/home")
            // Unknown pages and routes are counted by code, never as a page label.
            _ = try await http.get("/v1/pages/no-such-page-1")
            _ = try await http.get("/v1/pages/no-such-page-2")
            _ = try await http.get("/v1/pagez/home")
            let metrics = try await http.get("/metrics").text
            #expect(metrics.contains(#"flow_bff_page_request_duration_seconds_count{route="page",page="home"} 2"#))
            #expect(!metrics.contains("no-such-page"), "an unknown page id never becomes a label")
            #expect(metrics.contains(#"flow_bff_problems_total{route="page",code="page_not_found"} 2"#))
            #expect(metrics.contains(#"flow_bff_problems_total{route="unmatched",code="not_found"} 1"#))
            #expect(
                metrics.contains(
                    #"flow_bff_build_info{version="\#(BuildInfo.version)",commit="\#(BuildInfo.commit)"} 1"#))
            #expect(BuildInfo.commit.count == 12 || BuildInfo.commit == "unknown")
            for family in [
                "process_cpu_seconds_total", "process_resident_memory_bytes", "process_open_fds", "process_max_fds",
                "process_start_time_seconds",
            ] {
                let line = metrics.split(separator: "\n").first { $0.hasPrefix(family + " ") }
                let value = line.flatMap { Double($0.split(separator: " ").last ?? "") }
                #expect((value ?? 0) > 0, "\(family) is exported with a positive value")
            }
            // The process started before this test looked, and not long before.
            let start =
                metrics.split(separator: "\n").first { $0.hasPrefix("process_start_time_seconds ") }
                .flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
            #expect(start <= Date().timeIntervalSince1970 && start > Date().timeIntervalSince1970 - 86_400)
        }
    }
}
