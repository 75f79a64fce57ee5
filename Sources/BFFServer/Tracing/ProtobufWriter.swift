/// The protobuf wire format, the few parts OTLP needs: varints, fixed64/fixed32, length-delimited strings, bytes,
/// nested messages and OTLP's `KeyValue`. Fields at their default value are left out (proto3), unless `always` (a
/// oneof member).
///
/// Writes into one growing buffer of its own (not an `Array`, whose per-append uniqueness and capacity checks cost
/// several times the byte they write): each write checks the capacity once for everything it writes, then stores
/// without checks, and strings are copied from their UTF-8 storage with `memcpy`. Sendable: it owns its buffer
/// alone (non-copyable), so handing it to another thread hands over the bytes.
struct ProtobufWriter: ~Copyable, @unchecked Sendable {
    private var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int
    /// What ``memoized(_:_:)`` wrote last, and for which key.
    private var memoKey = ""
    private var memoBytes: [UInt8] = []

    init(capacity: Int = 256) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    /// A writer whose first `headroom` bytes (zeros) are kept for a head written last, in front of what follows
    /// (``writeHead(_:)``): a batch's request envelope goes before its spans without moving them.
    init(capacity: Int, headroom: Int) {
        self.init(capacity: capacity + headroom)
        base.initialize(repeating: 0, count: headroom)
        count = headroom
    }

    deinit { base.deallocate() }

    /// Writes `head` to end where the headroom ends (``init(capacity:headroom:)``); returns where it starts.
    mutating func writeHead(_ head: UnsafeBufferPointer<UInt8>, headroom: Int) -> Int {
        precondition(head.count <= headroom && headroom <= count, "the head fits in the headroom")
        let start = headroom - head.count
        if let source = head.baseAddress { (base + start).update(from: source, count: head.count) }
        return start
    }

    /// What was written.
    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// What was written from `offset` on, in place: valid while the writer lives and is not written to (the
    /// buffer moves only when a write grows it).
    func unsafeBytes(from offset: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + offset, count: count - offset)
    }

    /// Calls `body` with what was written, without copying it.
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    @inline(__always) private mutating func reserve(_ more: Int) {
        if count &+ more > capacity { grow(more) }
    }

    private mutating func grow(_ more: Int) {
        let newCapacity = max(capacity * 2, count + more)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    // MARK: Unchecked stores (the caller reserved the room)

    @inline(__always) private mutating func put(_ byte: UInt8) {
        base[count] = byte
        count &+= 1
    }

    @inline(__always) private mutating func putVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            base[count] = UInt8(truncatingIfNeeded: value) | 0x80
            count &+= 1
            value >>= 7
        }
        base[count] = UInt8(truncatingIfNeeded: value)
        count &+= 1
    }

    @inline(__always) private mutating func putTag(_ field: Int, _ wireType: UInt64) {
        putVarint(UInt64(field) << 3 | wireType)
    }

    @inline(__always) private mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        (base + count).update(from: source, count: bytes.count)
        count &+= bytes.count
    }

    /// `value`'s bytes as they are in memory (callers pick the byte order).
    @inline(__always) private mutating func putRaw<T: FixedWidthInteger>(_ value: T) {
        UnsafeMutableRawPointer(base + count).storeBytes(of: value, as: T.self)
        count &+= MemoryLayout<T>.size
    }

    /// The bytes of `value` as a varint.
    @inline(__always) static func varintSize(_ value: UInt64) -> Int {
        (70 &- (value | 1).leadingZeroBitCount) / 7
    }

    /// Calls `body` with `string`'s UTF-8 bytes: in place for a native string (literals and anything Swift made;
    /// a small one from the stack), from a contiguous copy otherwise.
    @inline(__always) static func withUTF8<R>(_ string: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        var string = string
        return string.withUTF8(body)
    }

    // MARK: Fields

    mutating func varint(_ field: Int, _ value: UInt64, always: Bool = false) {
        guard value != 0 || always else { return }
        reserve(20)
        putTag(field, 0)
        putVarint(value)
    }

    mutating func fixed64(_ field: Int, _ value: UInt64, always: Bool = false) {
        guard value != 0 || always else { return }
        reserve(18)
        putTag(field, 1)
        putRaw(value.littleEndian)
    }

    mutating func fixed32(_ field: Int, _ value: UInt32) {
        guard value != 0 else { return }
        reserve(14)
        putTag(field, 5)
        putRaw(value.littleEndian)
    }

    mutating func string(_ field: Int, _ value: String, always: Bool = false) {
        guard !value.isEmpty || always else { return }
        Self.withUTF8(value) { bytes(field, $0) }
    }

    /// Length-delimited `bytes` (a string's UTF-8).
    mutating func bytes(_ field: Int, _ bytes: UnsafeBufferPointer<UInt8>) {
        reserve(20 &+ bytes.count)
        putTag(field, 2)
        putVarint(UInt64(bytes.count))
        put(bytes)
    }

    /// An 8-byte id, big-endian (a span id).
    mutating func bytes(_ field: Int, bigEndian value: UInt64) {
        reserve(19)
        putTag(field, 2)
        put(8)
        putRaw(value.bigEndian)
    }

    /// A 16-byte id, big-endian (a trace id).
    mutating func bytes(_ field: Int, bigEndian high: UInt64, _ low: UInt64) {
        reserve(27)
        putTag(field, 2)
        put(16)
        putRaw(high.bigEndian)
        putRaw(low.bigEndian)
    }

    /// The tag and length of a length-delimited field whose `length` bytes the caller writes next (or elsewhere).
    mutating func lengthDelimited(_ field: Int, length: Int) {
        reserve(20)
        putTag(field, 2)
        putVarint(UInt64(length))
    }

    /// A nested message written in place: one byte is reserved for its length, and the body is moved along when
    /// the length needs more (a span's ~300 bytes move by one; no buffer per message).
    mutating func message(_ field: Int, _ build: (inout ProtobufWriter) -> Void) {
        let start = beginMessage(field)
        build(&self)
        endMessage(start)
    }

    /// Starts a nested message in field `field`, whose fields are written next; returns where its length goes, for
    /// ``endMessage(_:)``. (``message(_:_:)`` without a closure, for a caller that would capture a value to write.)
    mutating func beginMessage(_ field: Int) -> Int {
        reserve(11)
        putTag(field, 2)
        put(0)
        return count - 1
    }

    /// Ends the message ``beginMessage(_:)`` started: writes its length, moving the body along when it needs more
    /// than one byte.
    mutating func endMessage(_ lengthAt: Int) {
        let length = count - lengthAt - 1
        let extra = Self.varintSize(UInt64(length)) - 1
        if extra > 0 {
            reserve(extra)
            (base + lengthAt + 1 + extra).update(from: base + lengthAt + 1, count: length)
        }
        let end = count + extra
        count = lengthAt
        putVarint(UInt64(length))
        count = end
    }

    /// Appends what `write` writes for `key`, remembering the bytes: called again with the same key, it copies
    /// them instead of calling `write` (one key at a time: the last).
    mutating func memoized(_ key: String, _ write: (inout ProtobufWriter) -> Void) {
        if key == memoKey && !memoBytes.isEmpty {
            memoBytes.withUnsafeBufferPointer { append($0) }
            return
        }
        let start = count
        write(&self)
        memoKey = key
        memoBytes = Array(UnsafeBufferPointer(start: base + start, count: count - start))
    }

    /// Appends what `other` wrote (a message written apart).
    mutating func append(_ other: borrowing ProtobufWriter) {
        other.withBytes { append($0) }
    }

    /// Appends `bytes` as they are (an element already encoded).
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        reserve(bytes.count)
        put(bytes)
    }

    /// Appends one byte as it is.
    mutating func append(_ byte: UInt8) {
        reserve(1)
        put(byte)
    }

    // MARK: KeyValue

    /// `attribute` as a `KeyValue` message in field `field` (key 1; value 2, an `AnyValue`: string 1, bool 2, int 3,
    /// double 4).
    mutating func keyValue(_ field: Int, _ attribute: borrowing SpanAttribute) {
        Self.withUTF8(attribute.key) { key in
            switch attribute.value {
            case .string(let string): Self.withUTF8(string) { keyValue(field, key: key, string: $0) }
            case .int(let int): keyValue(field, key: key, int: int)
            case .bool(let bool):
                keyValueHead(field, key: key, valueLength: 2)
                putTag(2, 0)
                put(bool ? 1 : 0)
            case .double(let double):
                keyValueHead(field, key: key, valueLength: 9)
                putTag(4, 1)
                putRaw(double.bitPattern.littleEndian)
            }
        }
    }

    /// A `KeyValue` with a string value. `key` is the key's UTF-8, or with `encodedKey` the whole `KeyValue.key`
    /// field as ``AttributeKey`` made it.
    mutating func keyValue(
        _ field: Int, key: UnsafeBufferPointer<UInt8>, encodedKey: Bool = false, string: UnsafeBufferPointer<UInt8>
    ) {
        let count = string.count
        keyValueHead(
            field, key: key, encodedKey: encodedKey, valueLength: 1 &+ Self.varintSize(UInt64(count)) &+ count,
            reserving: count)
        putTag(1, 2)
        putVarint(UInt64(count))
        put(string)
    }

    /// A `KeyValue` with an integer value (`key` as in ``keyValue(_:key:encodedKey:string:)``).
    mutating func keyValue(_ field: Int, key: UnsafeBufferPointer<UInt8>, encodedKey: Bool = false, int: Int64) {
        let value = UInt64(bitPattern: int)
        keyValueHead(field, key: key, encodedKey: encodedKey, valueLength: 1 &+ Self.varintSize(value))
        putTag(3, 0)
        putVarint(value)
    }

    /// A `KeyValue`'s tag, length and key, and the `AnyValue`'s tag and length; reserves room for all of it, the
    /// `AnyValue`'s own tag and length and `reserving` more bytes (its payload).
    @inline(__always) private mutating func keyValueHead(
        _ field: Int, key: UnsafeBufferPointer<UInt8>, encodedKey: Bool = false, valueLength: Int,
        reserving payload: Int = 0
    ) {
        let keyCount = key.count
        let keyLength = encodedKey || keyCount == 0 ? keyCount : 1 &+ Self.varintSize(UInt64(keyCount)) &+ keyCount
        reserve(40 &+ keyCount &+ payload)
        putTag(field, 2)
        putVarint(UInt64(keyLength &+ 1 &+ Self.varintSize(UInt64(valueLength)) &+ valueLength))
        if encodedKey {
            put(key)
        } else if keyCount > 0 {
            put(0x0A)  // key: field 1, length-delimited
            putVarint(UInt64(keyCount))
            put(key)
        }
        put(0x12)  // value: field 2, length-delimited
        putVarint(UInt64(valueLength))
    }
}

/// An attribute key with its `KeyValue.key` field (tag, length, UTF-8) encoded once: a server span writes the same
/// ten keys for every request.
struct AttributeKey: Sendable {
    let name: String
    let field: [UInt8]

    init(_ name: String) {
        self.name = name
        var writer = ProtobufWriter(capacity: 32)
        writer.string(1, name)
        field = writer.bytes
    }
}

/// An attribute whose value is one of a few (a method, the scheme, a route template, status 200), with its whole
/// `KeyValue` (field 9 of `Span`) encoded once: a span copies the bytes.
struct ConstantAttribute: Sendable {
    let attribute: SpanAttribute
    let encoded: [UInt8]

    init(_ key: String, _ value: String) {
        self.init(.string(key, value))
    }

    init(_ key: String, _ value: Int) {
        self.init(.int(key, value))
    }

    private init(_ attribute: SpanAttribute) {
        self.attribute = attribute
        var writer = ProtobufWriter(capacity: 64)
        writer.keyValue(9, attribute)
        encoded = writer.bytes
    }
}
