import HTTPCore
import PageModel

/// Encodes spans as an OTLP `ExportTraceServiceRequest` (opentelemetry-proto `collector/trace/v1`): one
/// `ResourceSpans` with the service's resource, one `ScopeSpans` of scope `flow-bff`. Pure.
///
/// Two steps, so that a span is encoded once, when it ends, and a batch is its spans' bytes back to back:
/// ``encodeSpan(_:as:into:)`` writes one span as an element of `ScopeSpans.spans`, and ``request(spans:as:)`` puts
/// a batch of those into the request's envelope.
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

    /// The request body for `spans` and its `Content-Type` (tests; the exporter encodes span by span).
    func encode(_ spans: some Collection<SpanData>, as format: OTLPProtocol) -> (body: [UInt8], contentType: String) {
        var encoded = ProtobufWriter(capacity: spans.count * 512)
        for span in spans {
            if format == .httpJSON && encoded.count > 0 { encoded.append(UInt8(ascii: ",")) }
            encodeSpan(span, as: format, into: &encoded)
        }
        return request(spans: encoded, as: format)
    }

    /// Appends `span` as one element of `ScopeSpans.spans`: in protobuf a field-2 `Span` message, in JSON a `Span`
    /// object (the caller separates JSON elements with commas).
    func encodeSpan(_ span: borrowing SpanData, as format: OTLPProtocol, into writer: inout ProtobufWriter) {
        switch format {
        case .httpProtobuf:
            let start = writer.beginMessage(2)  // ScopeSpans.spans
            Self.protobuf(span, into: &writer)
            writer.endMessage(start)
        case .httpJSON: JSONWriter().write(Self.json(span)).withUnsafeBufferPointer { writer.append($0) }
        }
    }

    /// Appends a server span (``Span/endServer(_:)``) as ``encodeSpan(_:as:into:)`` appends the record
    /// ``Span/serverData(_:route:start:end:)`` makes, in protobuf, byte for byte — but written straight from the
    /// span's constants and the fields of HTTPCore's access entry it reads, no record made.
    func encodeServerSpan(
        _ span: Span, method: HTTPMethod, version: HTTPVersion, requestHeaders: borrowing HTTPFields, peer: String?,
        status: Int, route: ServerRoute?, start: UInt64, end: UInt64, into writer: inout ProtobufWriter
    ) {
        let message = writer.beginMessage(2)  // ScopeSpans.spans
        writer.bytes(1, bigEndian: span.traceID.high, span.traceID.low)
        writer.bytes(2, bigEndian: span.spanID.value)
        if let traceState = span.traceState { writer.string(3, traceState) }
        if let parent = span.parentSpanID { writer.bytes(4, bigEndian: parent.value) }
        writer.string(5, route?.spanName(method) ?? method.rawValue)
        writer.varint(6, UInt64(SpanKind.server.rawValue))
        writer.fixed64(7, start)
        writer.fixed64(8, end)
        HTTPServerSpanFields.visitAttributes(
            method: method, path: span.path ?? "", version: version, requestHeaders: requestHeaders, peer: peer,
            status: status, route: route, &writer)
        if status >= 500 { Self.protobuf(.error("HTTP \(status)"), into: &writer) }
        writer.fixed32(16, UInt32(span.flags))
        writer.endMessage(message)
    }

    /// The request body around `spans` (``encodeSpan(_:as:into:)``'s output for one batch), and its `Content-Type`.
    func request(spans: borrowing ProtobufWriter, as format: OTLPProtocol) -> (body: [UInt8], contentType: String) {
        switch format {
        case .httpProtobuf: return (protobufRequest(spans: spans), "application/x-protobuf")
        case .httpJSON: return (jsonRequest(spans: spans), "application/json")
        }
    }

    // MARK: JSON

    private func jsonRequest(spans: borrowing ProtobufWriter) -> [UInt8] {
        var body = Array(#"{"resourceSpans":[{"resource":{"attributes":"#.utf8)
        body.reserveCapacity(spans.count + 256)
        body += JSONWriter().write(.array(resource.map(Self.json)))
        body += #"},"scopeSpans":[{"scope":{"name":"#.utf8
        JSONWriter.appendString(Self.scopeName, to: &body)
        body += #"},"spans":["#.utf8
        spans.withBytes { body.append(contentsOf: $0) }
        body += "]}]}]}".utf8
        return body
    }

    private static func json(_ span: borrowing SpanData) -> JSONValue {
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
        object["attributes"] = .array(span.allAttributes.map(json))
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

    /// The envelope's lengths are known before it is written (the resource and scope are small, the spans are
    /// done), so the request is written forwards into one array: the batch's ~180 KB are copied once, not moved
    /// along twice by nested messages' lengths.
    private func protobufRequest(spans: borrowing ProtobufWriter) -> [UInt8] {
        var head = ProtobufWriter(capacity: 256)
        head.message(1) { resource in  // ResourceSpans.resource
            for attribute in self.resource { resource.keyValue(1, attribute) }
        }
        var scope = ProtobufWriter(capacity: 64)
        scope.message(1) { $0.string(1, Self.scopeName) }  // ScopeSpans.scope: InstrumentationScope.name
        let scopeSpansLength = scope.count + spans.count
        head.lengthDelimited(2, length: scopeSpansLength)  // ResourceSpans.scope_spans
        head.append(scope)
        let resourceSpansLength = head.count + spans.count
        var envelope = ProtobufWriter(capacity: 16)
        envelope.lengthDelimited(1, length: resourceSpansLength)  // ExportTraceServiceRequest.resource_spans
        var body = envelope.bytes
        body.reserveCapacity(envelope.count + resourceSpansLength)
        head.withBytes { body.append(contentsOf: $0) }
        spans.withBytes { body.append(contentsOf: $0) }
        return body
    }

    /// A `Span` message's fields.
    private static func protobuf(_ span: borrowing SpanData, into writer: inout ProtobufWriter) {
        writer.bytes(1, bigEndian: span.traceID.high, span.traceID.low)
        writer.bytes(2, bigEndian: span.spanID.value)
        if let traceState = span.traceState { writer.string(3, traceState) }
        if let parent = span.parentSpanID { writer.bytes(4, bigEndian: parent.value) }
        writer.string(5, span.name)
        writer.varint(6, UInt64(span.kind.rawValue))
        writer.fixed64(7, span.startNanoseconds)
        writer.fixed64(8, span.endNanoseconds)
        span.http?.visitAttributes(&writer)
        for index in span.attributes.indices { writer.keyValue(9, span.attributes[index]) }
        if span.status != .unset { protobuf(span.status, into: &writer) }
        writer.fixed32(16, UInt32(span.flags))
    }

    /// A `Span.status` field.
    private static func protobuf(_ status: SpanStatus, into writer: inout ProtobufWriter) {
        writer.message(15) { message in  // Status: message = 2, code = 3
            message.string(2, status.message)
            message.varint(3, UInt64(status.code))
        }
    }
}

/// A server span's HTTP attributes written as they are found, as `Span.attributes` (field 9).
extension ProtobufWriter: HTTPSpanAttributeSink {
    mutating func attribute(_ key: AttributeKey, utf8 value: UnsafeBufferPointer<UInt8>) {
        key.field.withUnsafeBufferPointer { keyValue(9, key: $0, encodedKey: true, string: value) }
    }

    mutating func attribute(_ key: AttributeKey, int value: Int) {
        key.field.withUnsafeBufferPointer { keyValue(9, key: $0, encodedKey: true, int: Int64(value)) }
    }

    mutating func attribute(_ constant: ConstantAttribute) {
        constant.encoded.withUnsafeBufferPointer { append($0) }
    }

    /// A lane's writer sees the same `Host` on nearly every span: its two attributes are encoded once per value.
    mutating func serverAuthority(_ host: String) {
        memoized(host) { HTTPServerSpanFields.writeServerAuthority(host, to: &$0) }
    }
}
