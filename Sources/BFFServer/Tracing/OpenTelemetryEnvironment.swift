/// The standard OpenTelemetry SDK environment variables flow-bff honours, applied over the `tracing.*` keys from
/// files and `FLOW_BFF_TRACING_*` (the OpenTelemetry specification's "Environment Variable Specification"):
///
/// | variable | effect |
/// | --- | --- |
/// | `OTEL_SDK_DISABLED` | `true` turns tracing off, whatever else is set |
/// | `OTEL_TRACES_EXPORTER` | `none` turns tracing off; `otlp` is the only exporter |
/// | `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` | the traces URL as given; turns tracing on |
/// | `OTEL_EXPORTER_OTLP_ENDPOINT` | base URL, `/v1/traces` appended; turns tracing on |
/// | `OTEL_EXPORTER_OTLP_HEADERS`, `…_TRACES_HEADERS` | `name=value,…`, values percent-decoded |
/// | `OTEL_EXPORTER_OTLP_PROTOCOL`, `…_TRACES_PROTOCOL` | `http/protobuf` or `http/json`; `grpc` is refused |
/// | `OTEL_EXPORTER_OTLP_TIMEOUT`, `…_TRACES_TIMEOUT` | export timeout in milliseconds |
/// | `OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG` | the sampler and its ratio |
/// | `OTEL_SERVICE_NAME` | `service.name` |
/// | `OTEL_RESOURCE_ATTRIBUTES` | `service.name` and `service.version` from it (`OTEL_SERVICE_NAME` wins) |
/// | `OTEL_BSP_MAX_QUEUE_SIZE`, `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`, `OTEL_BSP_SCHEDULE_DELAY` | the batch settings |
///
/// A value flow-bff cannot honour stops startup with a ``ConfigurationError`` naming the variable.
enum OpenTelemetryEnvironment {
    static func apply(_ environment: [String: String], to tracing: inout BFFConfiguration.Tracing)
        throws(ConfigurationError)
    {
        func value(_ name: String) -> String? {
            environment[name].flatMap { $0.trimmingSpaces.isEmpty ? nil : $0.trimmingSpaces }
        }
        func invalid(_ name: String, _ message: String) -> ConfigurationError {
            ConfigurationError(code: "invalid_value", key: name, message: message, source: "environment")
        }
        if let attributes = value("OTEL_RESOURCE_ATTRIBUTES") {
            for entry in attributes.split(separator: ",") {
                guard let (key, value) = header(String(entry)) else { continue }
                if key == SemanticAttribute.serviceName { tracing.serviceName = value }
                if key == SemanticAttribute.serviceVersion { tracing.serviceVersion = value }
            }
        }
        if let name = value("OTEL_SERVICE_NAME") { tracing.serviceName = name }
        if let url = value("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
            try OTLPEndpoint.check(url, key: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", source: "environment")
            tracing.endpoint = url
            tracing.enabled = true
        } else if var url = value("OTEL_EXPORTER_OTLP_ENDPOINT") {
            while url.hasSuffix("/") { url.removeLast() }
            url += "/v1/traces"
            try OTLPEndpoint.check(url, key: "OTEL_EXPORTER_OTLP_ENDPOINT", source: "environment")
            tracing.endpoint = url
            tracing.enabled = true
        }
        for name in ["OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"] {
            guard let text = value(name) else { continue }
            var fields: [String] = []
            for entry in text.split(separator: ",") {
                guard let (key, value) = header(String(entry)) else {
                    throw invalid(name, "expected name=value,name=value")
                }
                fields.append(key + "=" + value)
            }
            // The traces-specific list replaces fields of the same name.
            let names = Set(fields.compactMap { header($0)?.name.lowercased() })
            tracing.headers = tracing.headers.filter { !names.contains(header($0)?.name.lowercased() ?? "") } + fields
        }
        for name in ["OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"] {
            guard let text = value(name) else { continue }
            guard let exportProtocol = OTLPProtocol(rawValue: text) else {
                throw invalid(name, "\(text.debugDescription) is not offered: use http/protobuf or http/json")
            }
            tracing.exportProtocol = exportProtocol
        }
        for name in ["OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT"] {
            guard let text = value(name) else { continue }
            guard let milliseconds = Int(text), milliseconds > 0 else {
                throw invalid(name, "\(text.debugDescription) is not a positive number of milliseconds")
            }
            tracing.exportTimeoutSeconds = Double(milliseconds) / 1000
        }
        if let text = value("OTEL_TRACES_SAMPLER") {
            guard let kind = TraceSampler.Kind(rawValue: text) else {
                let names = TraceSampler.Kind.allCases.map(\.rawValue).joined(separator: ", ")
                throw invalid("OTEL_TRACES_SAMPLER", "\(text.debugDescription) is not offered: use one of \(names)")
            }
            tracing.sampler = kind
        }
        if let text = value("OTEL_TRACES_SAMPLER_ARG"),
            tracing.sampler == .traceIDRatio || tracing.sampler == .parentBasedTraceIDRatio
        {
            guard let ratio = Double(text), (0...1).contains(ratio) else {
                throw invalid("OTEL_TRACES_SAMPLER_ARG", "\(text.debugDescription) is not a ratio in [0, 1]")
            }
            tracing.samplerRatio = ratio
        }
        for (name, range, set) in [
            (
                "OTEL_BSP_MAX_QUEUE_SIZE", 1...1_000_000,
                { (t: inout BFFConfiguration.Tracing, n: Int) in t.queueSize = n }
            ),
            ("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 1...100_000, { $0.batchSize = $1 }),
            ("OTEL_BSP_SCHEDULE_DELAY", 1...86_400_000, { $0.scheduleDelaySeconds = Double($1) / 1000 }),
        ] {
            guard let text = value(name) else { continue }
            guard let number = Int(text), range.contains(number) else {
                throw invalid(
                    name, "\(text.debugDescription) is not an integer in \(range.lowerBound)...\(range.upperBound)")
            }
            set(&tracing, number)
        }
        if let exporter = value("OTEL_TRACES_EXPORTER") {
            switch exporter {
            case "none": tracing.enabled = false
            case "otlp": tracing.enabled = true
            default:
                throw invalid("OTEL_TRACES_EXPORTER", "\(exporter.debugDescription) is not offered: use otlp or none")
            }
        }
        if value("OTEL_SDK_DISABLED")?.lowercased() == "true" { tracing.enabled = false }
    }

    /// Whether `entry` is `name=value`.
    @Sendable static func isHeader(_ entry: String) -> Bool { header(entry) != nil }

    /// `name=value` (around `=`, spaces trimmed; the value percent-decoded), or `nil` without a name or `=`.
    static func header(_ entry: String) -> (name: String, value: String)? {
        guard let equals = entry.firstIndex(of: "=") else { return nil }
        let name = String(entry[..<equals]).trimmingSpaces
        let value = String(entry[entry.index(after: equals)...]).trimmingSpaces
        guard !name.isEmpty, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }) else {
            return nil
        }
        return (name, percentDecoded(value))
    }

    private static func percentDecoded(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
        var bytes: [UInt8] = []
        var input = Array(text.utf8)[...]
        while let byte = input.popFirst() {
            if byte == UInt8(ascii: "%"), input.count >= 2,
                let value = UInt8(String(decoding: input.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                input = input.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: String {
        var slice = self[...]
        while slice.first == " " || slice.first == "\t" { slice = slice.dropFirst() }
        while slice.last == " " || slice.last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
