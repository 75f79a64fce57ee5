import HTTPCore

/// The W3C Trace Context of an incoming request (`traceparent`, and `tracestate` when present), forwarded
/// unchanged on the upstream calls made for it so the app's trace continues through flow-bff to its upstreams.
/// An invalid `traceparent` is not forwarded (W3C Trace Context § 3.2: a receiver that cannot parse it ignores
/// it); `tracestate` travels only with a valid `traceparent`.
public struct TraceContext: Sendable, Hashable {
    public var traceparent: String
    public var tracestate: String?

    /// The context in `headers`, or `nil` when there is no valid `traceparent`.
    public init?(headers: HTTPFields) {
        guard let traceparent = headers["traceparent"], Self.isValid(traceparent) else { return nil }
        self.traceparent = traceparent
        self.tracestate = headers["tracestate"].flatMap { $0.utf8.count <= 512 ? $0 : nil }
    }

    /// `version-traceid-parentid-flags`: 2, 32, 16 and 2 lowercase hex digits; version `ff` and all-zero ids are
    /// invalid. A future version may carry more fields after the flags.
    static func isValid(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        guard bytes.count >= 55, bytes[2] == UInt8(ascii: "-"), bytes[35] == UInt8(ascii: "-"),
            bytes[52] == UInt8(ascii: "-")
        else { return false }
        func hex(_ range: Range<Int>) -> Bool {
            bytes[range].allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        }
        guard hex(0..<2), hex(3..<35), hex(36..<52), hex(53..<55) else { return false }
        if bytes[0...1] == [0x66, 0x66] { return false }
        if bytes[3..<35].allSatisfy({ $0 == 0x30 }) || bytes[36..<52].allSatisfy({ $0 == 0x30 }) { return false }
        // Version 00 has exactly four fields; later versions may append "-…".
        return bytes[0...1] == [0x30, 0x30] ? bytes.count == 55 : (bytes.count == 55 || bytes[55] == UInt8(ascii: "-"))
    }
}

extension CallContext {
    /// The request's trace context, to pass to ``UpstreamClient`` calls (`context.traceContext`).
    public var traceContext: TraceContext? { TraceContext(headers: headers) }
}
