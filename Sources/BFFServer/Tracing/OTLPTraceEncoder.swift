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

    func protobuf(_ spans: some Collection<SpanData>) -> [UInt8] {
        var request = ProtobufWriter(capacity: 512 + spans.count * 512)
        request.message(1) { resourceSpans in  // ExportTraceServiceRequest.resource_spans
            resourceSpans.message(1) { resource in  // ResourceSpans.resource
                for attribute in self.resource { resource.keyValue(1, attribute) }
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
        writer.bytes(1, bigEndian: span.traceID.high, span.traceID.low)
        writer.bytes(2, bigEndian: span.spanID.value)
        if let traceState = span.traceState { writer.string(3, traceState) }
        if let parent = span.parentSpanID { writer.bytes(4, bigEndian: parent.value) }
        writer.string(5, span.name)
        writer.varint(6, UInt64(span.kind.rawValue))
        writer.fixed64(7, span.startNanoseconds)
        writer.fixed64(8, span.endNanoseconds)
        span.http?.forEachAttribute { key, value in
            switch value {
            case .string(let string): writer.keyValue(9, key: key, string: string)
            case .int(let int): writer.keyValue(9, key: key, int: int)
            }
        }
        for index in span.attributes.indices { writer.keyValue(9, span.attributes[index]) }
        if span.status != .unset {
            writer.message(15) { status in  // Status: message = 2, code = 3
                status.string(2, span.status.message)
                status.varint(3, UInt64(span.status.code))
            }
        }
        writer.fixed32(16, UInt32(span.flags))
    }
}

/// The protobuf wire format, the few parts OTLP needs: varints, fixed64/fixed32, length-delimited strings, bytes
/// and nested messages. Fields at their default value are left out (proto3), unless `always` (a oneof member).
///
/// Writes into one growing buffer of its own (not an `Array`, whose per-append uniqueness and capacity checks cost
/// several times the byte they write: a batch of 512 spans is ~150,000 bytes written a few at a time).
struct ProtobufWriter: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int

    init(capacity: Int = 256) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// What was written.
    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    @inline(__always) private mutating func reserve(more: Int) {
        if count + more > capacity { grow(more) }
    }

    private mutating func grow(_ more: Int) {
        let newCapacity = max(capacity * 2, count + more)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inline(__always) fileprivate mutating func append(_ byte: UInt8) {
        reserve(more: 1)
        base[count] = byte
        count += 1
    }

    /// The `count` UTF-8 bytes of `string`: one copy from a native string's storage.
    @inline(__always) fileprivate mutating func appendUTF8(_ string: String, count: Int) {
        reserve(more: count)
        let written = UnsafeMutableBufferPointer(start: base + self.count, count: count).initialize(from: string.utf8)
        self.count += written.1
    }

    /// `value`'s bytes as they are in memory (callers pick the byte order), without a `memcpy` call.
    @inline(__always) fileprivate mutating func store<T: FixedWidthInteger>(_ value: T) {
        reserve(more: MemoryLayout<T>.size)
        UnsafeMutableRawPointer(base + count).storeBytes(of: value, as: T.self)
        count += MemoryLayout<T>.size
    }

    @inline(__always) fileprivate mutating func tag(_ field: Int, _ wireType: UInt64) {
        rawVarint(UInt64(field) << 3 | wireType)
    }

    @inline(__always) fileprivate mutating func rawVarint(_ value: UInt64) {
        reserve(more: 10)
        var value = value
        while value >= 0x80 {
            base[count] = UInt8(truncatingIfNeeded: value) | 0x80
            count += 1
            value >>= 7
        }
        base[count] = UInt8(value)
        count += 1
    }

    mutating func varint(_ field: Int, _ value: UInt64, always: Bool = false) {
        guard value != 0 || always else { return }
        tag(field, 0)
        rawVarint(value)
    }

    mutating func fixed64(_ field: Int, _ value: UInt64, always: Bool = false) {
        guard value != 0 || always else { return }
        tag(field, 1)
        store(value.littleEndian)
    }

    mutating func fixed32(_ field: Int, _ value: UInt32) {
        guard value != 0 else { return }
        tag(field, 5)
        store(value.littleEndian)
    }

    mutating func string(_ field: Int, _ value: String, always: Bool = false) {
        guard !value.isEmpty || always else { return }
        tag(field, 2)
        let count = value.utf8.count
        rawVarint(UInt64(count))
        appendUTF8(value, count: count)
    }

    /// An 8-byte id, big-endian (a span id).
    mutating func bytes(_ field: Int, bigEndian value: UInt64) {
        tag(field, 2)
        append(8)
        store(value.bigEndian)
    }

    /// A 16-byte id, big-endian (a trace id).
    mutating func bytes(_ field: Int, bigEndian high: UInt64, _ low: UInt64) {
        tag(field, 2)
        append(16)
        store(high.bigEndian)
        store(low.bigEndian)
    }

    /// A nested message written in place: one byte is reserved for its length, and the body is moved along when
    /// the length needs more (a span; no buffer per message).
    mutating func message(_ field: Int, _ build: (inout ProtobufWriter) -> Void) {
        tag(field, 2)
        let lengthAt = count
        append(0)
        build(&self)
        var length = count - lengthAt - 1
        var extra = 0
        while length >> (7 * (extra + 1)) != 0 { extra += 1 }
        if extra > 0 {
            reserve(more: extra)
            (base + lengthAt + 1 + extra).update(from: base + lengthAt + 1, count: length)
            count += extra
        }
        for index in lengthAt...(lengthAt + extra) {
            base[index] = UInt8(length & 0x7F) | (index < lengthAt + extra ? 0x80 : 0)
            length >>= 7
        }
    }
}

extension ProtobufWriter {
    /// `attribute` as a `KeyValue` message in field `field` (key 1; value 2, an `AnyValue`: string 1, bool 2, int 3,
    /// double 4). The lengths are computed first and everything written forwards: spans carry ten of these each.
    mutating func keyValue(_ field: Int, _ attribute: borrowing SpanAttribute) {
        switch attribute.value {
        case .string(let string): keyValue(field, key: attribute.key, string: string)
        case .int(let int): keyValue(field, key: attribute.key, int: Int(int))
        case .bool(let bool):
            keyValueHead(field, key: attribute.key, valueLength: 2)
            tag(2, 0)
            rawVarint(bool ? 1 : 0)
        case .double(let double):
            keyValueHead(field, key: attribute.key, valueLength: 9)
            tag(4, 1)
            store(double.bitPattern.littleEndian)
        }
    }

    /// A `KeyValue` with a string value.
    mutating func keyValue(_ field: Int, key: String, string: String) {
        let count = string.utf8.count
        keyValueHead(field, key: key, valueLength: 1 + Self.varintSize(count) + count)
        tag(1, 2)
        rawVarint(UInt64(count))
        appendUTF8(string, count: count)
    }

    /// A `KeyValue` with an integer value.
    mutating func keyValue(_ field: Int, key: String, int: Int) {
        let value = UInt64(bitPattern: Int64(int))
        keyValueHead(field, key: key, valueLength: 1 + Self.varintSize(value))
        tag(3, 0)
        rawVarint(value)
    }

    /// A `KeyValue`'s tag, length, key and the `AnyValue`'s tag and length, before the `AnyValue`'s one field.
    private mutating func keyValueHead(_ field: Int, key: String, valueLength: Int) {
        let keyCount = key.utf8.count
        let keyLength = keyCount == 0 ? 0 : 1 + Self.varintSize(keyCount) + keyCount
        tag(field, 2)
        rawVarint(UInt64(keyLength + 1 + Self.varintSize(valueLength) + valueLength))
        if keyCount > 0 {
            tag(1, 2)
            rawVarint(UInt64(keyCount))
            appendUTF8(key, count: keyCount)
        }
        tag(2, 2)
        rawVarint(UInt64(valueLength))
    }

    /// The bytes of `value` as a varint.
    static func varintSize(_ value: some BinaryInteger) -> Int {
        var value = UInt64(value)
        var size = 1
        while value >= 0x80 {
            value >>= 7
            size += 1
        }
        return size
    }
}
