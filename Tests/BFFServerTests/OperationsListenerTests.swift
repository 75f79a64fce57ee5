import BFFServer
import BFFTesting
import HTTPCore
import HTTPTesting
import Testing

/// `server.adminPort`: a second listener for probes and scrapes, with connections of its own, and `/metrics` off
/// the public port; and the public listener's reserved probe slots at its connection cap.
@Suite struct OperationsListenerTests {
    @Test func probesAndMetricsMoveToTheOperationsPort() async throws {
        var configuration = BFFConfiguration()
        configuration.server.adminPort = 0
        try await withTestServer(configuration: configuration) { server in
            let operationsPort = try #require(server.service.operationsServer?.port)
            #expect(operationsPort != server.port)
            let operations = HTTPTestClient(port: operationsPort)
            let publicPort = HTTPTestClient(port: server.port)
            #expect(try await publicPort.get("/v1/pages/home").status == 200)
            #expect(try await operations.get("/healthz").text == #"{"status":"ok"}"#)
            #expect(try await operations.get("/readyz").text.contains("\"status\":\"ready\""))
            let metrics = try await operations.get("/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.text.contains("flow_bff_requests_total{route=\"page\",status=\"200\"} 1"))
            // Off the public port; the probes stay there for load balancers that check the serving port.
            let publicMetrics = try await publicPort.get("/metrics")
            #expect(publicMetrics.status == 404)
            #expect(publicMetrics.header("Content-Type") == "application/problem+json")
            #expect(try await publicPort.get("/healthz").status == 200)
            // Nothing else is served on the operations port.
            let page = try await operations.get("/v1/pages/home")
            #expect(page.status == 404)
            #expect(page.text.contains("\"code\":\"not_found\""))
        }
    }

    @Test func operationsPortAnswersWhenThePublicCapIsReached() async throws {
        var configuration = BFFConfiguration()
        configuration.server.adminPort = 0
        configuration.http.maximumConnections = 1
        configuration.http.reservedProbeConnections = 0
        try await withTestServer(configuration: configuration) { server in
            let holder = HTTPTestClient(port: server.port)
            #expect(try await holder.get("/healthz").status == 200)
            let refused = try await HTTPTestClient.connect(port: server.port)
            #expect(String(decoding: try await refused.readToEOF(), as: UTF8.self).hasPrefix("HTTP/1.1 503 "))
            let operations = HTTPTestClient(port: try #require(server.service.operationsServer?.port))
            #expect(try await operations.get("/healthz").status == 200)
            #expect(try await operations.get("/readyz").status == 200)
        }
    }

    @Test func publicProbesAnswerInReservedSlotsAtTheCap() async throws {
        var configuration = BFFConfiguration()
        configuration.http.maximumConnections = 1
        try await withTestServer(configuration: configuration) { server in
            let holder = HTTPTestClient(port: server.port)
            #expect(try await holder.get("/v1/pages/home").status == 200)
            let probe = HTTPTestClient(port: server.port)
            let live = try await probe.get("/healthz")
            #expect(live.status == 200)
            #expect(live.header("Connection") == "close")
            let ready = HTTPTestClient(port: server.port)
            #expect(try await ready.get("/readyz").status == 200)
            let page = HTTPTestClient(port: server.port)
            let refused = try await page.get("/v1/pages/home")
            #expect(refused.status == 503)
            #expect(refused.text.contains("too_many_connections"))
        }
    }

    @Test func configurationKeysAreReadFromTheEnvironment() throws {
        let configuration = try ConfigurationLoader().load(
            files: [],
            environment: [
                "FLOW_BFF_SERVER_ADMIN_PORT": "9090", "FLOW_BFF_HTTP_MAXIMUM_CONNECTION_AGE_SECONDS": "300",
                "FLOW_BFF_HTTP_RESERVED_PROBE_CONNECTIONS": "4",
            ])
        #expect(configuration.server.adminPort == 9090)
        #expect(configuration.http.maximumConnectionAgeSeconds == 300)
        #expect(configuration.http.reservedProbeConnections == 4)
    }
}
