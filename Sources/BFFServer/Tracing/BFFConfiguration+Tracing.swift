import PageModel

extension BFFConfiguration {
    /// Distributed tracing (docs/operations.md, "Tracing"): W3C Trace Context in, spans out over OTLP/HTTP.
    ///
    /// The standard OpenTelemetry environment variables override these keys (``applyOpenTelemetryEnvironment(_:)``):
    /// setting `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` turns tracing on,
    /// `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none` turns it off.
    public struct Tracing: Sendable, Hashable {
        public init() {}

        /// Record spans and export them. Default false.
        public var enabled = false
        /// The OTLP/HTTP traces URL spans are posted to. Default `http://localhost:4318/v1/traces` (a local
        /// OpenTelemetry Collector).
        public var endpoint = "http://localhost:4318/v1/traces"
        /// `name=value` header fields sent with every export (an API key). Default `[]`.
        public var headers: [String] = []
        /// The OTLP encoding. Default `http/protobuf`.
        public var exportProtocol = OTLPProtocol.httpProtobuf
        /// Which traces are recorded. Default `parentbased_always_on` (the caller's decision, else every trace).
        public var sampler = TraceSampler.Kind.parentBasedAlwaysOn
        /// The fraction of new traces the `traceidratio` samplers keep, 0...1. Default 1.
        public var samplerRatio = 1.0
        /// The resource's `service.name`. Default `flow-bff`.
        public var serviceName = "flow-bff"
        /// The resource's `service.version`; empty sends the build's version (``BuildInfo/version``). Default empty.
        public var serviceVersion = ""
        /// Spans waiting for export at most; more are dropped and counted. Default 2048.
        public var queueSize = 2_048
        /// Spans per export request at most; a full batch is exported at once. Default 512.
        public var batchSize = 512
        /// Seconds between exports of what is queued. Default 1.
        public var scheduleDelaySeconds = 1.0
        /// Seconds one export request may take. Default 10.
        public var exportTimeoutSeconds = 10.0

        /// The sampler these settings name.
        public var traceSampler: TraceSampler { TraceSampler(sampler, ratio: samplerRatio) }
    }
}

/// The OTLP/HTTP encodings (`OTEL_EXPORTER_OTLP_PROTOCOL`); gRPC is not offered.
public enum OTLPProtocol: String, Sendable, Hashable, CaseIterable {
    /// Binary protobuf, `application/x-protobuf` (OpenTelemetry's default).
    case httpProtobuf = "http/protobuf"
    /// The OTLP JSON mapping, `application/json`.
    case httpJSON = "http/json"
}

extension ConfigurationKey {
    /// The `tracing.*` keys, appended to ``all``.
    static let tracingKeys: [ConfigurationKey] = [
        .boolean(
            "tracing.enabled", false,
            "Record spans (W3C Trace Context) and export them over OTLP/HTTP (docs/operations.md, \"Tracing\"); "
                + "also on when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, off with `OTEL_SDK_DISABLED=true`."
        ) { $0.tracing.enabled = $1 },
        ConfigurationKey(
            path: "tracing.endpoint", type: .string, defaultValue: "http://localhost:4318/v1/traces",
            summary:
                "OTLP/HTTP traces URL (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, or `OTEL_EXPORTER_OTLP_ENDPOINT` + "
                + "`/v1/traces`)."
        ) { (configuration, value) throws(ConfigurationError) in
            guard case .string(let url) = value else { throw .wrongType("tracing.endpoint", .string, value) }
            try OTLPEndpoint.check(url, key: "tracing.endpoint")
            configuration.tracing.endpoint = url
        },
        .stringList(
            "tracing.headers", "`name=value` fields sent with every export (`OTEL_EXPORTER_OTLP_HEADERS`).",
            message: "each entry is name=value", isValid: OpenTelemetryEnvironment.isHeader
        ) { $0.tracing.headers = $1 },
        .choice(
            "tracing.protocol", "http/protobuf", "an OTLP protocol",
            "`http/protobuf` or `http/json` (`OTEL_EXPORTER_OTLP_PROTOCOL`; `grpc` is not offered)."
        ) { (configuration, value: OTLPProtocol) in configuration.tracing.exportProtocol = value },
        .choice(
            "tracing.sampler", "parentbased_always_on", "a sampler",
            "`always_on`, `always_off`, `traceidratio`, `parentbased_always_on`, `parentbased_always_off` or "
                + "`parentbased_traceidratio` (`OTEL_TRACES_SAMPLER`)."
        ) { (configuration, kind: TraceSampler.Kind) in configuration.tracing.sampler = kind },
        ConfigurationKey(
            path: "tracing.samplerRatio", type: .number, defaultValue: "1.0",
            summary: "Fraction of new traces the `traceidratio` samplers keep, 0–1 (`OTEL_TRACES_SAMPLER_ARG`)."
        ) { (configuration, value) throws(ConfigurationError) in
            guard case .number(let ratio) = value else { throw .wrongType("tracing.samplerRatio", .number, value) }
            guard (0...1).contains(ratio) else {
                throw ConfigurationError(
                    code: "invalid_value", key: "tracing.samplerRatio", message: "\(ratio) is not in [0, 1]")
            }
            configuration.tracing.samplerRatio = ratio
        },
        .string("tracing.serviceName", "flow-bff", "The resource's `service.name` (`OTEL_SERVICE_NAME`).") {
            $0.tracing.serviceName = $1
        },
        .string(
            "tracing.serviceVersion", "(the build's version)",
            "The resource's `service.version` (`OTEL_RESOURCE_ATTRIBUTES=service.version=…`); empty sends the "
                + "build's version (`flow-bff --version`)."
        ) { $0.tracing.serviceVersion = $1 },
        .integer(
            "tracing.queueSize", 2_048, 1...1_000_000,
            "Spans waiting for export at most; more are dropped, counted in `flow_bff_trace_spans_dropped_total`."
        ) { $0.tracing.queueSize = $1 },
        .integer("tracing.batchSize", 512, 1...100_000, "Spans per export request at most.") {
            $0.tracing.batchSize = $1
        },
        .seconds("tracing.scheduleDelaySeconds", 1, "Seconds between exports of the queued spans.") {
            $0.tracing.scheduleDelaySeconds = $1
        },
        .seconds(
            "tracing.exportTimeoutSeconds", 10, "Seconds one export request may take (`OTEL_EXPORTER_OTLP_TIMEOUT`)."
        ) { $0.tracing.exportTimeoutSeconds = $1 },
    ]
}

/// An OTLP/HTTP endpoint split into `scheme://authority` and the path (`/` when the URL has none).
struct OTLPEndpoint: Sendable, Hashable {
    var base: String
    var path: String

    init?(_ url: String) {
        guard url.hasPrefix("http://") || url.hasPrefix("https://"), let schemeEnd = url.firstRange(of: "://") else {
            return nil
        }
        let rest = url[schemeEnd.upperBound...]
        guard !rest.isEmpty, rest.first != "/" else { return nil }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        base = String(url[..<slash])
        path = slash == rest.endIndex ? "/" : String(url[slash...])
    }

    static func check(_ url: String, key: String, source: String = "") throws(ConfigurationError) {
        guard OTLPEndpoint(url) != nil else {
            throw ConfigurationError(
                code: "invalid_value", key: key, message: "\(url.debugDescription) is not an http:// or https:// URL",
                source: source)
        }
    }
}
