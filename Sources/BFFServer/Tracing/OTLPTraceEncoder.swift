import PageModel

/// Encodes spans as an OTLP `ExportTraceServiceRequest` (opentelemetry-proto `collector/trace/v1`): one
/// `ResourceSpans` with the service's resource, one `ScopeSpans` of scope `flow-bff`. Pure; the exporter calls it off
/// the event loops.
///
/// - `http/protobuf`: the binary protobuf encoding (``ProtobufWriter``).
/// - `http/json`: the OTLP JSON mapping — protobuf's JSON with lowerCamelCase names, ids as lowercase hex (not
///   base64), 64-bit integers as decimal strings and enums as numbers.
struct OTLPTraceEncoder: Sendable {
    /// The resource's attributes: `service.name`, and `service.version` when set.
    var resource: [SpanAttribute]
    static let scopeName = "flow-bff"

    init(serviceName: String, serviceVersion: String) {
        resource = [.string(SemanticAttribute.serviceName, serviceName)]
        if !serviceVersion.isEmpty { resource.append(.string(SemanticAttribute.serviceVersion, serviceVersion)) }
    }

    /// The request body and its `Content-Type`.
    func encode(_ spans: some Collection<SpanData>, as format: OTLPProtocol) -> (body: [UInt8], contentType: String) {
        switch format {
        case .httpProtobuf: return (protobuf(spans), "application/x-protobuf")
        case .httpJSON: return (json(spans), "application/json")
        }
    }

    // MARK: JSON

    func json(_ spans: some Collection<SpanData>) -> [UInt8] {
        let scope: JSONValue = ["name": .string(Self.scopeName)]
        let scopeSpans: JSONValue = ["scope": scope, "spans": .array(spans.map(Self.json))]
        let resourceSpans: JSONValue = [
            "resource": ["attributes": .array(resource.map(Self.json))], "scopeSpans": [scopeSpans],
        ]
        return JSONWriter().write(["resourceSpans": [resourceSpans]])
    }

    private static func json(_ span: SpanData) -> JSONValue {
        var object = JSONObject(capacity: 12)
        object["traceId"] = .string(span.traceID.description)
        object["spanId"] = .string(span.spanID.description)
        if let traceState = span.traceState { object["traceState"] = .string(traceState) }
        if let parent = span.parentSpanID { object["parentSpanId"] = .string(parent.description) }
        object["flags"] = .number(Double(span.flags))
        object["name"] = .string(span.name)
        object["kind"] = .number(Double(span.kind.rawValue))
        object["startTimeUnixNano"] = .string(String(span.startNanoseconds))
        object["endTimeUnixNano"] = .string(String(span.endNanoseconds))
        object["attributes"] = .array(span.attributes.map(json))
        var status = JSONObject()
        if !span.status.message.isEmpty { status["message"] = .string(span.status.message) }
        status["code"] = .number(Double(span.status.code))
        object["status"] = .object(status)
        return .object(object)
    }

    private static func json(_ attribute: SpanAttribute) -> JSONValue {
        let value: JSONValue
        switch attribute.value {
        case .string(let string): value = ["stringValue": .string(string)]
        case .int(let int): value = ["intValue": .string(String(int))]
        case .bool(let bool): value = ["boolValue": .bool(bool)]
        case .double(let double): value = ["doubleValue": .number(double)]
        }
        return ["key": .string(attribute.key), "value": value]
    }

    // MARK: Protobuf

    func protobuf(_ spans: some Collection<SpanData>) -> [UInt8] {
        var request = ProtobufWriter()
        request.reserve(512 + spans.count * 512)
        request.message(1) { resourceSpans in  // ExportTraceServiceRequest.resource_spans
            resourceSpans.message(1) { resource in  // ResourceSpans.resource
                for attribute in self.resource { resource.message(1) { Self.protobuf(attribute, into: &$0) } }
            }
            resourceSpans.message(2) { scopeSpans in  // ResourceSpans.scope_spans
                scopeSpans.message(1) { $0.string(1, Self.scopeName) }  // InstrumentationScope.name
                for span in spans { scopeSpans.message(2) { Self.protobuf(span, into: &$0) } }
            }
        }
        return request.bytes
    }

    /// A `Span` message's fields.
    private static func protobuf(_ span: SpanData, into writer: inout ProtobufWriter) {
        writer.bytes(1, bigEndian: [span.traceID.high, span.traceID.low])
        writer.bytes(2, bigEndian: [span.spanID.value])
        if let traceState = span.traceState { writer.string(3, traceState) }
        if let parent = span.parentSpanID { writer.bytes(4, bigEndian: [parent.value]) }
        writer.string(5, span.name)
        writer.varint(6, UInt64(span.kind.rawValue))
        writer.fixed64(7, span.startNanoseconds)
        writer.fixed64(8, span.endNanoseconds)
        for attribute in span.attributes { writer.message(9) { protobuf(attribute, into: &$0) } }
        if span.status != .unset {
            writer.message(15) { status in  // Status: message = 2, code = 3
                status.string(2, span.status.message)
                status.varint(3, UInt64(span.status.code))
            }
        }
        writer.fixed32(16, UInt32(span.flags))
    }

    /// A `KeyValue` message's fields (`AnyValue`: string 1, bool 2, int 3, double 4).
    private static func protobuf(_ attribute: SpanAttribute, into writer: inout ProtobufWriter) {
        writer.string(1, attribute.key)
        writer.message(2) { value in
            switch attribute.value {
            case .string(let string): value.string(1, string, always: true)
            case .bool(let bool): value.varint(2, bool ? 1 : 0, always: true)
            case .int(let int): value.varint(3, UInt64(bitPattern: int), always: true)
            case .double(let double): value.fixed64(4, double.bitPattern, always: true)
            }
        }
    }
}

/// The protobuf wire format, the few parts OTLP needs: varints, fixed64/fixed32, length-delimited strings, bytes
/// and nested messages. Fields at their default value are left out (proto3), unless `always` (a oneof member).
struct ProtobufWriter {
    private(set) var bytes: [UInt8] = []

    mutating func reserve(_ capacity: Int) { bytes.reserveCapacity(capacity) }

    private mutating func tag(_ field: Int, _ wireType: UInt64) { rawVarint(UInt64(field) << 3 | wireType) }

    private mutating func rawVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    mutating func varint(_ field: Int, _ value: UInt64, always: Bool = false) {
        guard value != 0 || always else { return }
        tag(field, 0)
        rawVarint(value)
    }

    mutating func fixed64(_ field: Int, _ value: UInt64, always: Bool = false) {
        guard value != 0 || always else { return }
        tag(field, 1)
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func fixed32(_ field: Int, _ value: UInt32) {
        guard value != 0 else { return }
        tag(field, 5)
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func string(_ field: Int, _ value: String, always: Bool = false) {
        guard !value.isEmpty || always else { return }
        tag(field, 2)
        rawVarint(UInt64(value.utf8.count))
        bytes.append(contentsOf: value.utf8)
    }

    /// `values`, each written as 8 big-endian bytes (trace and span ids).
    mutating func bytes(_ field: Int, bigEndian values: [UInt64]) {
        tag(field, 2)
        rawVarint(UInt64(values.count * 8))
        for value in values {
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            }
        }
    }

    /// A nested message written in place: one byte is reserved for its length, and the body is moved along in the
    /// rare case the length needs more (no buffer per message).
    mutating func message(_ field: Int, _ build: (inout ProtobufWriter) -> Void) {
        tag(field, 2)
        let lengthAt = bytes.count
        bytes.append(0)
        build(&self)
        var length = bytes.count - lengthAt - 1
        var extra = 0
        while length >> (7 * (extra + 1)) != 0 { extra += 1 }
        if extra > 0 { bytes.insert(contentsOf: repeatElement(0, count: extra), at: lengthAt + 1) }
        for index in lengthAt...(lengthAt + extra) {
            bytes[index] = UInt8(length & 0x7F) | (index < lengthAt + extra ? 0x80 : 0)
            length >>= 7
        }
    }
}
