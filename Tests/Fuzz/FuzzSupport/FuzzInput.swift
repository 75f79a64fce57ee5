/// Splits one fuzz input into the choices a target makes: a selector byte, then the rest as bytes or text.
///
/// Deterministic: the same bytes always make the same choices, so every saved input reproduces.
public struct FuzzInput {
    public let bytes: [UInt8]
    private var offset = 0

    public init(_ buffer: UnsafeRawBufferPointer) {
        bytes = Array(buffer)
    }

    /// The next byte, or 0 when the input is exhausted.
    public mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// Everything not consumed yet.
    public var rest: ArraySlice<UInt8> { bytes[min(offset, bytes.count)...] }

    /// The rest decoded as UTF-8 (invalid sequences become U+FFFD, as a server decoding a header does).
    public var restText: String { String(decoding: rest, as: UTF8.self) }
}

/// A failed property: traps with what was checked, so libFuzzer saves the input as a crash.
public func fuzzCheck(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID,
    line: UInt = #line
) {
    if !condition() {
        fatalError("fuzz property violated: \(message())", file: file, line: line)
    }
}
