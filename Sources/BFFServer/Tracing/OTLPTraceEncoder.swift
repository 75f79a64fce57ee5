import HTTPCore
import PageModel

/// Encodes spans as an OTLP `ExportTraceServiceRequest` (opentelemetry-proto `collector/trace/v1`): one
/// `ResourceSpans` with the service's resource, one `ScopeSpans` of scope `flow-bff`. Pure.
///
/// Two steps, so that a span is encoded once, when it ends, and a batch is its spans' bytes back to back:
/// ``encodeSpan(_:as:into:)`` writes one span as an element of `ScopeSpans.spans`, into a batch that keeps room in
/// front (``headroom(_:)``), and ``finishRequest(_:as:)`` writes the request's envelope there: the batch becomes
/// the request's body where it is.
///
/// - `http/protobuf`: the binary protobuf encoding (``ProtobufWriter``).
/// - `http/json`: the OTLP JSON mapping — protobuf's JSON with lowerCamelCase names, ids as lowercase hex (not
///   base64), 64-bit integers as decimal strings and enums as numbers.
struct OTLPTraceEncoder: Sendable {
    /// The resource's attributes: `service.name`, and `service.version` when set.
    let resource: [SpanAttribute]
    static let scopeName = "flow-bff"

    init(serviceName: String, serviceVersion: String) {
        var resource = [SpanAttribute.string(SemanticAttribute.serviceName, serviceName)]
        if !serviceVersion.isEmpty { resource.append(.string(SemanticAttribute.serviceVersion, serviceVersion)) }
        self.resource = resource
        jsonHead = Self.jsonHead(resource)
        var encoded = ProtobufWriter(capacity: 256)
        encoded.message(1) { message in  // ResourceSpans.resource
            for attribute in resource { message.keyValue(1, attribute) }
        }
        protobufResource = encoded.bytes
        protobufRoom = Self.protobufHead(spansLength: Int(UInt32.max), resource: protobufResource).count
    }

    /// What comes before a batch's spans in JSON: the resource, the scope, and the opening of `spans`.
    private let jsonHead: [UInt8]
    /// `ResourceSpans.resource`, tag and length included, encoded once.
    private let protobufResource: [UInt8]
    /// The longest protobuf head (``protobufHead(spansLength:resource:)``).
    private let protobufRoom: Int

    /// The request body for `spans` and its `Content-Type` (tests; the exporter encodes span by span).
    func encode(_ spans: some Collection<SpanData>, as format: OTLPProtocol) -> (body: [UInt8], contentType: String) {
        var encoded = ProtobufWriter(capacity: spans.count * 512, headroom: headroom(format))
        for span in spans {
            if format == .httpJSON && encoded.count > headroom(format) { encoded.append(UInt8(ascii: ",")) }
            encodeSpan(span, as: format, into: &encoded)
        }
        let start = finishRequest(&encoded, as: format)
        return (Array(encoded.unsafeBytes(from: start)), Self.contentType(format))
    }

    static func contentType(_ format: OTLPProtocol) -> String {
        format == .httpProtobuf ? "application/x-protobuf" : "application/json"
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
    /// span's constants and the fields of HTTPCore's access entry it reads, no record made. What follows its ids,
    /// times and `url.path` is copied from `template` when the span's values match it (``ServerSpanTemplate``), and
    /// written and kept there otherwise.
    func encodeServerSpan(
        _ span: Span, method: HTTPMethod, version: HTTPVersion, requestHeaders: borrowing HTTPFields, peer: String?,
        status: Int, route: ServerRoute?, start: UInt64, end: UInt64, template: inout ServerSpanTemplate?,
        into writer: inout ProtobufWriter
    ) {
        let message = writer.beginMessage(2)  // ScopeSpans.spans
        writer.bytes(1, bigEndian: span.traceID.high, span.traceID.low)
        writer.bytes(2, bigEndian: span.spanID.value)
        if let traceState = span.traceState { writer.string(3, traceState) }
        if let parent = span.parentSpanID { writer.bytes(4, bigEndian: parent.value) }
        writer.fixed64(7, start)
        writer.fixed64(8, end)
        HTTPServerSpanFields.visitPath(span.path ?? "", &writer)
        let (host, userAgent) = requestHeaders.firstValues("Host", "User-Agent")
        func rest(_ address: UnsafeBufferPointer<UInt8>?) {
            if let template,
                template.matches(
                    method: method, version: version, status: status, route: route, host: host,
                    userAgent: userAgent, peerAddress: address)
            {
                return template.bytes.withUnsafeBufferPointer { writer.append($0) }
            }
            let restStart = writer.count
            writer.string(5, route?.spanName(method) ?? method.rawValue)
            writer.varint(6, UInt64(SpanKind.server.rawValue))
            HTTPServerSpanFields.visitRest(
                method: method, version: version, host: host, userAgent: userAgent, peer: peer, status: status,
                route: route, &writer)
            if status >= 500 { Self.protobuf(.error("HTTP \(status)"), into: &writer) }
            template = ServerSpanTemplate(
                method: method, version: version, status: status, route: route, host: host, userAgent: userAgent,
                peerAddress: address.map { Array($0) }, bytes: Array(writer.unsafeBytes(from: restStart)))
        }
        if let peer {
            ProtobufWriter.withUTF8(peer) { bytes in
                rest(Authority.split(bytes).map { UnsafeBufferPointer(rebasing: bytes[$0.host]) })
            }
        } else {
            rest(nil)
        }
        writer.fixed32(16, UInt32(span.flags))
        writer.endMessage(message)
    }

    /// The room a batch keeps in front of its spans for the request's envelope (``finishRequest(_:as:)``): the
    /// largest head, its lengths at their longest.
    func headroom(_ format: OTLPProtocol) -> Int {
        switch format {
        case .httpProtobuf: return protobufRoom
        case .httpJSON: return jsonHead.count
        }
    }

    /// Makes a batch the request's body, in place: `batch` was made with ``headroom(_:)`` bytes of room in front and
    /// holds ``encodeSpan(_:as:into:)``'s output after it; the envelope's head is written to end where its spans
    /// start (and JSON's tail appended). Returns where the body starts. The batch's spans are not moved or copied.
    func finishRequest(_ batch: inout ProtobufWriter, as format: OTLPProtocol) -> Int {
        let room = headroom(format)
        switch format {
        case .httpProtobuf:
            let head = Self.protobufHead(spansLength: batch.count - room, resource: protobufResource)
            return head.withUnsafeBufferPointer { batch.writeHead($0, headroom: room) }
        case .httpJSON:
            Self.jsonTail.withUnsafeBufferPointer { batch.append($0) }
            return jsonHead.withUnsafeBufferPointer { batch.writeHead($0, headroom: room) }
        }
    }

    // MARK: JSON

    private static func jsonHead(_ resource: [SpanAttribute]) -> [UInt8] {
        var head = Array(#"{"resourceSpans":[{"resource":{"attributes":"#.utf8)
        head += JSONWriter().write(.array(resource.map(json)))
        head += #"},"scopeSpans":[{"scope":{"name":"#.utf8
        JSONWriter.appendString(Self.scopeName, to: &head)
        head += #"},"spans":["#.utf8
        return head
    }

    private static let jsonTail = Array("]}]}]}".utf8)

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

    /// The envelope in front of `spansLength` bytes of spans: `ExportTraceServiceRequest.resource_spans`'s tag and
    /// length, the `resource` (``protobufResource``), `ResourceSpans.scope_spans`'s tag and length and the scope —
    /// every length known once the spans are written, so the head is written last, in the room the batch kept for it.
    private static func protobufHead(spansLength: Int, resource: [UInt8]) -> [UInt8] {
        let scopeSpansLength = scope.count + spansLength
        var head = ProtobufWriter(capacity: 32 + resource.count + scope.count)
        head.lengthDelimited(
            1,  // ExportTraceServiceRequest.resource_spans
            length: resource.count + 1 + ProtobufWriter.varintSize(UInt64(scopeSpansLength)) + scopeSpansLength)
        resource.withUnsafeBufferPointer { head.append($0) }
        head.lengthDelimited(2, length: scopeSpansLength)  // ResourceSpans.scope_spans
        scope.withUnsafeBufferPointer { head.append($0) }
        return head.bytes
    }

    /// `ScopeSpans.scope` (`InstrumentationScope.name`), tag and length included.
    private static let scope: [UInt8] = {
        var scope = ProtobufWriter(capacity: 64)
        scope.message(1) { $0.string(1, scopeName) }
        return scope.bytes
    }()

    /// A `Span` message's fields: the ids and times first, then a server span's `url.path`, then name, kind and the
    /// other attributes — the order a server span's template needs (``ServerSpanTemplate``: what changes from span
    /// to span comes before what repeats). Protobuf readers take fields, and a repeated field's elements, in any
    /// order and interleaved.
    private static func protobuf(_ span: borrowing SpanData, into writer: inout ProtobufWriter) {
        writer.bytes(1, bigEndian: span.traceID.high, span.traceID.low)
        writer.bytes(2, bigEndian: span.spanID.value)
        if let traceState = span.traceState { writer.string(3, traceState) }
        if let parent = span.parentSpanID { writer.bytes(4, bigEndian: parent.value) }
        writer.fixed64(7, span.startNanoseconds)
        writer.fixed64(8, span.endNanoseconds)
        if let http = span.http { HTTPServerSpanFields.visitPath(http.path, &writer) }
        writer.string(5, span.name)
        writer.varint(6, UInt64(span.kind.rawValue))
        if let http = span.http {
            let (host, userAgent) = http.requestHeaders.firstValues("Host", "User-Agent")
            HTTPServerSpanFields.visitRest(
                method: http.method, version: http.version, host: host, userAgent: userAgent, peer: http.peer,
                status: http.status, route: http.route, &writer)
        }
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
