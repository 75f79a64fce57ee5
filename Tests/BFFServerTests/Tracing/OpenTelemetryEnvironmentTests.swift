import Foundation
import Testing

@testable import BFFServer

/// The standard `OTEL_*` variables over the `tracing.*` keys (docs/operations.md, "Tracing").
@Suite struct OpenTelemetryEnvironmentTests {
    func tracing(_ environment: [String: String], flags: [String: String] = [:]) throws -> BFFConfiguration.Tracing {
        try ConfigurationLoader().load(files: [], environment: environment, flags: flags).tracing
    }

    @Test func offByDefault() throws {
        let tracing = try tracing([:])
        #expect(!tracing.enabled)
        #expect(tracing.endpoint == "http://localhost:4318/v1/traces")
        #expect(tracing.exportProtocol == .httpProtobuf)
        #expect(tracing.traceSampler == TraceSampler(.parentBasedAlwaysOn))
        #expect(tracing.serviceName == "flow-bff")
        #expect(tracing.queueSize == 2048)
    }

    @Test func anEndpointTurnsTracingOnWithTheSignalPath() throws {
        let tracing = try tracing(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318/"])
        #expect(tracing.enabled)
        #expect(tracing.endpoint == "http://collector:4318/v1/traces")
        let specific = try self.tracing([
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318",
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://traces.example.com/ingest",
        ])
        #expect(specific.endpoint == "https://traces.example.com/ingest", "the signal's own variable is used as given")
    }

    @Test func sdkDisabledWinsOverEverything() throws {
        let tracing = try tracing([
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_SDK_DISABLED": "TRUE",
            "FLOW_BFF_TRACING_ENABLED": "true",
        ])
        #expect(!tracing.enabled)
        #expect(try self.tracing(["FLOW_BFF_TRACING_ENABLED": "true", "OTEL_SDK_DISABLED": "false"]).enabled)
        #expect(try !self.tracing(["FLOW_BFF_TRACING_ENABLED": "true", "OTEL_TRACES_EXPORTER": "none"]).enabled)
    }

    @Test func headersServiceSamplerAndBatchSettings() throws {
        let tracing = try tracing([
            "FLOW_BFF_TRACING_HEADERS": "x-tenant=a,api-key=old",
            "OTEL_EXPORTER_OTLP_HEADERS": "api-key=s%3Dcret, x-other = 1",
            "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "x-other=2",
            "OTEL_SERVICE_NAME": "bff-eu",
            "OTEL_RESOURCE_ATTRIBUTES": "service.name=ignored,service.version=1.4.2,deployment.environment=prod",
            "OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.25",
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json", "OTEL_EXPORTER_OTLP_TIMEOUT": "2500",
            "OTEL_BSP_MAX_QUEUE_SIZE": "100", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "10", "OTEL_BSP_SCHEDULE_DELAY": "200",
        ])
        #expect(tracing.headers == ["x-tenant=a", "api-key=s=cret", "x-other=2"])
        #expect(tracing.serviceName == "bff-eu")
        #expect(tracing.serviceVersion == "1.4.2")
        #expect(tracing.traceSampler == TraceSampler(.parentBasedTraceIDRatio, ratio: 0.25))
        #expect(tracing.exportProtocol == .httpJSON)
        #expect(tracing.exportTimeoutSeconds == 2.5)
        #expect(tracing.queueSize == 100)
        #expect(tracing.batchSize == 10)
        #expect(tracing.scheduleDelaySeconds == 0.2)
        #expect(!tracing.enabled, "no endpoint named: still off")
    }

    @Test func flagsStillWinOverTheEnvironment() throws {
        let tracing = try tracing(
            ["OTEL_TRACES_SAMPLER": "always_off"], flags: ["tracing.sampler": "always_on", "tracing.enabled": "true"])
        #expect(tracing.sampler == .alwaysOn)
        #expect(tracing.enabled)
    }

    @Test(arguments: [
        ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
        ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/thrift"),
        ("OTEL_TRACES_SAMPLER", "jaeger_remote"),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "collector:4318"),
        ("OTEL_EXPORTER_OTLP_HEADERS", "novalue"),
        ("OTEL_EXPORTER_OTLP_TIMEOUT", "soon"),
        ("OTEL_TRACES_EXPORTER", "zipkin"),
        ("OTEL_BSP_MAX_QUEUE_SIZE", "0"),
    ])
    func valuesThatCannotBeHonouredStopStartup(_ name: String, _ value: String) {
        #expect {
            try tracing([name: value])
        } throws: { error in
            let error = error as? ConfigurationError
            return error?.code == "invalid_value" && error?.key == name && error?.source == "environment"
        }
    }

    @Test func aSamplerArgumentOutsideZeroToOneIsRefusedForRatioSamplers() throws {
        #expect(throws: ConfigurationError.self) {
            try tracing(["OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "1.5"])
        }
        // Ignored (as the specification says) for samplers without an argument.
        #expect(try tracing(["OTEL_TRACES_SAMPLER": "always_on", "OTEL_TRACES_SAMPLER_ARG": "x"]).sampler == .alwaysOn)
    }

    @Test func theTracingSectionOfAFile() throws {
        let configuration = try ConfigurationLoader().load(
            contents: Array(
                #"{"tracing": {"enabled": true, "endpoint": "http://127.0.0.1:4318/v1/traces", "protocol": "http/json", "sampler": "traceidratio", "samplerRatio": 0.1}}"#
                    .utf8))
        #expect(configuration.tracing.enabled)
        #expect(configuration.tracing.exportProtocol == .httpJSON)
        #expect(configuration.tracing.traceSampler == TraceSampler(.traceIDRatio, ratio: 0.1))
        #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader().load(contents: Array(#"{"tracing": {"endpoint": "localhost:4318"}}"#.utf8))
        }
    }
}
