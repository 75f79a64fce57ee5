import HTTPCore

/// A W3C Trace Context `traceparent` (https://www.w3.org/TR/trace-context/ § 3.2):
/// `version-traceid-parentid-flags`, 2, 32, 16 and 2 lowercase hex digits.
///
/// Parsing follows § 3.2.4 and § 4.3: version `ff`, all-zero ids, uppercase or non-hex digits and a version 00 value
/// with more than four fields are invalid (the receiver then starts a new trace); a higher version may append
/// `-…` fields, which are ignored. Formatting always writes version `00`.
public struct TraceParent: Sendable, Hashable, CustomStringConvertible {
    /// The 16-byte trace id, as two big-endian halves; never both zero.
    public var traceID: TraceID
    /// The 8-byte id of the parent span (the caller's span); never zero.
    public var spanID: SpanID
    /// The trace flags; bit 0 is `sampled`.
    public var flags: UInt8

    public init(traceID: TraceID, spanID: SpanID, flags: UInt8) {
        self.traceID = traceID
        self.spanID = spanID
        self.flags = flags
    }

    /// Whether the caller recorded its span (flag bit 0).
    public var sampled: Bool { flags & 1 == 1 }

    /// The value in `text`, or `nil` when it is not a valid `traceparent`.
    public init?(_ text: String) {
        var text = text
        guard let parsed = text.withUTF8({ Self.parse($0) }) else { return nil }
        self = parsed
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> TraceParent? {
        guard bytes.count >= 55, bytes[2] == UInt8(ascii: "-"), bytes[35] == UInt8(ascii: "-"),
            bytes[52] == UInt8(ascii: "-")
        else { return nil }
        guard let version = hex(bytes, 0, 2), version != 0xFF,
            // Version 00 has exactly four fields; later versions may append "-…".
            version == 0 ? bytes.count == 55 : (bytes.count == 55 || bytes[55] == UInt8(ascii: "-")),
            let high = hex(bytes, 3, 16), let low = hex(bytes, 19, 16), high != 0 || low != 0,
            let span = hex(bytes, 36, 16), span != 0, let flags = hex(bytes, 53, 2)
        else { return nil }
        return TraceParent(traceID: TraceID(high: high, low: low), spanID: SpanID(span), flags: UInt8(flags))
    }

    /// `count` lowercase hex digits from `start` as a number; `nil` for any other byte.
    private static func hex(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> UInt64? {
        var value: UInt64 = 0
        for index in start..<start + count {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }

    /// `00-<trace id>-<span id>-<flags>`.
    public var description: String {
        String(unsafeUninitializedCapacity: 55) { storage in
            storage[0] = UInt8(ascii: "0")
            storage[1] = UInt8(ascii: "0")
            storage[2] = UInt8(ascii: "-")
            ByteFormatting.writeHex(traceID.high, digits: 16, to: storage.baseAddress! + 3)
            ByteFormatting.writeHex(traceID.low, digits: 16, to: storage.baseAddress! + 19)
            storage[35] = UInt8(ascii: "-")
            ByteFormatting.writeHex(spanID.value, digits: 16, to: storage.baseAddress! + 36)
            storage[52] = UInt8(ascii: "-")
            ByteFormatting.writeHex(UInt64(flags), digits: 2, to: storage.baseAddress! + 53)
            return 55
        }
    }
}

/// A 16-byte trace id.
public struct TraceID: Sendable, Hashable, CustomStringConvertible {
    public var high: UInt64
    public var low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// 32 lowercase hex digits.
    public var description: String {
        String(unsafeUninitializedCapacity: 32) { storage in
            ByteFormatting.writeHex(high, digits: 16, to: storage.baseAddress!)
            ByteFormatting.writeHex(low, digits: 16, to: storage.baseAddress! + 16)
            return 32
        }
    }
}

/// An 8-byte span id.
public struct SpanID: Sendable, Hashable, CustomStringConvertible {
    public var value: UInt64

    public init(_ value: UInt64) { self.value = value }

    /// 16 lowercase hex digits.
    public var description: String {
        String(unsafeUninitializedCapacity: 16) { storage in
            ByteFormatting.writeHex(value, digits: 16, to: storage.baseAddress!)
            return 16
        }
    }
}
