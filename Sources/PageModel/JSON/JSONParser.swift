/// A strict RFC 8259 JSON parser over UTF-8 bytes.
///
/// Written for the codec's hot path: it parses straight from a byte buffer into ``JSONValue`` without an
/// intermediate `Any` tree or `Decoder` machinery (see `bench/codec`). It rejects what RFC 8259 rejects, plus
/// duplicate object keys, invalid UTF-8 and nesting deeper than ``maximumDepth``.
public struct JSONParser: Sendable {
    /// Maximum nesting of arrays and objects. Default 256.
    public var maximumDepth: Int

    public init(maximumDepth: Int = 256) {
        self.maximumDepth = maximumDepth
    }

    /// Parses one JSON text; trailing whitespace is allowed, anything else after the value is an error.
    public func parse(_ bytes: some Collection<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        let array = Array(bytes)
        return try array.withUnsafeBufferPointer { (buffer) throws(JSONSyntaxError) -> JSONValue in
            var reader = Reader(bytes: buffer, maximumDepth: maximumDepth)
            reader.skipWhitespace()
            let value = try reader.parseValue(depth: 0)
            reader.skipWhitespace()
            guard reader.index == buffer.count else { throw reader.error("unexpected data after the JSON value") }
            return value
        }
    }
}

/// A syntax error with the byte offset, line and column (1-based) where parsing stopped.
public struct JSONSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String
    public var offset: Int
    public var line: Int
    public var column: Int

    public var description: String { "\(message) at line \(line), column \(column)" }
}

private struct Reader {
    let bytes: UnsafeBufferPointer<UInt8>
    let maximumDepth: Int
    var index = 0
    /// Members of the objects being parsed, innermost last: each object collects its members here and copies
    /// them out once, sized exactly, instead of growing its own array member by member.
    var memberStack: [JSONObject.Member] = []
    /// The same for array elements.
    var elementStack: [JSONValue] = []

    init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    func error(_ message: String) -> JSONSyntaxError {
        var line = 1
        var column = 1
        for position in 0..<min(index, bytes.count) {
            if bytes[position] == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return JSONSyntaxError(message: message, offset: index, line: line, column: column)
    }

    @inline(__always) mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected character '\(Self.printable(bytes[index]))'")
        }
    }

    /// The character at the current position in words, for an error: `'"'` (with "a missing comma?" where a
    /// value starts instead of a comma), a whole non-ASCII character (`'“'`), or "the end of input".
    func found() -> String {
        guard index < bytes.count else { return "the end of input" }
        let byte = bytes[index]
        guard byte < 0x80 else {
            // The whole character, so a pasted typographic quote is named as what it is.
            let end = min(index + 4, bytes.count)
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self)
            return text.first.map { "'\($0)'" } ?? "'\(Self.printable(byte))'"
        }
        let character = "'\(Self.printable(byte))'"
        // A value starts where a comma belongs: the comma between two members or elements is missing.
        let startsValue = byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[")
        return startsValue ? "\(character) (a missing comma?)" : character
    }

    static func printable(_ byte: UInt8) -> String {
        (0x20..<0x7F).contains(byte) ? String(UnicodeScalar(byte)) : "\\u{\(String(byte, radix: 16))}"
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("invalid literal") }
        let start = literal.utf8Start
        for offset in 0..<count where bytes[index + offset] != start[offset] {
            throw error("invalid literal")
        }
        index += count
    }

    mutating func parseObject(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth <= maximumDepth else { throw error("nesting deeper than \(maximumDepth) levels") }
        index += 1  // {
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(JSONObject())
        }
        let base = memberStack.count
        var seen: Set<String>? = nil
        var comma: Int? = nil
        while true {
            skipWhitespace()
            if let comma, index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index = comma
                throw error("trailing comma before '}'")
            }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error("expected a string key, found \(found())")
            }
            let keyStart = index
            let key = try parseString()
            if memberStack.count - base >= 8 {
                if seen == nil { seen = Set(memberStack[base...].map(\.key)) }
                if !seen!.insert(key).inserted {
                    index = keyStart
                    throw error("duplicate key \"\(key)\"")
                }
            } else {
                let length = key.utf8.count
                if memberStack[base...].contains(where: { $0.key.utf8.count == length && $0.key == key }) {
                    index = keyStart
                    throw error("duplicate key \"\(key)\"")
                }
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            let value = try parseValue(depth: depth)
            memberStack.append(JSONObject.Member(key: key, value: value))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in object") }
            if bytes[index] == UInt8(ascii: ",") {
                comma = index
                index += 1
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(JSONObject(Self.popArray(&memberStack, from: base)))
            } else {
                throw error("expected ',' or '}' after the value of \"\(key)\", found \(found())")
            }
        }
    }

    mutating func parseArray(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth <= maximumDepth else { throw error("nesting deeper than \(maximumDepth) levels") }
        index += 1  // [
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array([])
        }
        let base = elementStack.count
        var comma: Int? = nil
        while true {
            skipWhitespace()
            if let comma, index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index = comma
                throw error("trailing comma before ']'")
            }
            let element = try parseValue(depth: depth)
            elementStack.append(element)
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input in array") }
            if bytes[index] == UInt8(ascii: ",") {
                comma = index
                index += 1
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(Self.popArray(&elementStack, from: base))
            } else {
                throw error("expected ',' or ']' after an array element, found \(found())")
            }
        }
    }

    /// The elements of `stack` from `base` on, copied into an array of their own, sized exactly; `stack` is cut
    /// back to `base`.
    @inline(__always) static func popArray<Element>(_ stack: inout [Element], from base: Int) -> [Element] {
        let elements = Array(stack[base...])
        stack.removeLast(stack.count - base)
        return elements
    }

    mutating func parseString() throws(JSONSyntaxError) -> String {
        index += 1  // opening quote
        let start = index
        var needsUnescape = false
        var ascii = true
        skipPlainWords()
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") {
                needsUnescape = true
                index += 2
                skipPlainWords()
                continue
            }
            if byte < 0x20 { throw error("control character in string") }
            index += 1
            if byte >= 0x80 {
                ascii = false
                // Past a multi-byte character, back to the fast loop.
                if index < bytes.count, bytes[index] < 0x80 { skipPlainWords() }
            }
        }
        guard index < bytes.count else { throw error("unterminated string") }
        let raw = UnsafeBufferPointer(rebasing: bytes[start..<index])
        index += 1  // closing quote
        if !needsUnescape {
            if ascii { return String(decoding: raw, as: UTF8.self) }
            guard let string = String(validating: raw, as: UTF8.self) else {
                index = start
                throw error("invalid UTF-8 in string")
            }
            return string
        }
        return try unescape(raw, start: start)
    }

    /// Skips eight bytes at a time while none of them is a quote, a backslash, a control character or non-ASCII
    /// (the bytes `parseString` would look at one by one).
    @inline(__always) mutating func skipPlainWords() {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while index + 8 <= bytes.count {
            let word = UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self)
            // A byte of `x` is zero (or below n, for n ≤ 0x80) exactly when its high bit survives in
            // `(x - n·ones) & ~x & highs`; other bytes may set false alarms, which only end the fast loop early.
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let special =
                ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
                | word
            if special & highs != 0 { return }
            index += 8
        }
    }

    mutating func unescape(_ raw: UnsafeBufferPointer<UInt8>, start: Int) throws(JSONSyntaxError) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(raw.count)
        var position = 0
        while position < raw.count {
            let byte = raw[position]
            guard byte == UInt8(ascii: "\\") else {
                output.append(byte)
                position += 1
                continue
            }
            guard position + 1 < raw.count else {
                index = start + position
                throw error("invalid escape")
            }
            let escaped = raw[position + 1]
            position += 2
            switch escaped {
            case UInt8(ascii: "\""): output.append(0x22)
            case UInt8(ascii: "\\"): output.append(0x5C)
            case UInt8(ascii: "/"): output.append(0x2F)
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                guard var scalar = Self.hex4(raw, at: position) else {
                    index = start + position
                    throw error("invalid \\u escape")
                }
                position += 4
                if (0xD800..<0xDC00).contains(scalar) {
                    guard position + 6 <= raw.count, raw[position] == UInt8(ascii: "\\"),
                        raw[position + 1] == UInt8(ascii: "u"), let low = Self.hex4(raw, at: position + 2),
                        (0xDC00..<0xE000).contains(low)
                    else {
                        index = start + position
                        throw error("unpaired surrogate in \\u escape")
                    }
                    position += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(scalar) {
                    index = start + position
                    throw error("unpaired surrogate in \\u escape")
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                output.append(contentsOf: Array(String(unicode).utf8))
            default:
                index = start + position - 1
                throw error("invalid escape '\\\(Self.printable(escaped))'")
            }
        }
        guard let string = String(validating: output, as: UTF8.self) else {
            index = start
            throw error("invalid UTF-8 in string")
        }
        return string
    }

    static func hex4(_ raw: UnsafeBufferPointer<UInt8>, at position: Int) -> UInt32? {
        guard position + 4 <= raw.count else { return nil }
        var value: UInt32 = 0
        for offset in 0..<4 {
            let byte = raw[position + offset]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    mutating func parseNumber() throws(JSONSyntaxError) -> Double {
        let start = index
        var negative = false
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard index < bytes.count, Self.isDigit(bytes[index]) else { throw error("invalid number") }
        var integer: UInt64 = 0
        var digits = 0
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, Self.isDigit(bytes[index]) { throw error("leading zero in number") }
        } else {
            while index < bytes.count, Self.isDigit(bytes[index]) {
                integer = integer &* 10 &+ UInt64(bytes[index] - UInt8(ascii: "0"))
                digits += 1
                index += 1
            }
        }
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, Self.isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < bytes.count, Self.isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, Self.isDigit(bytes[index]) { index += 1 }
        }
        if isInteger, digits <= 15 {
            let value = Double(integer)
            return negative ? -value : value
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            index = start
            throw error("number out of range")
        }
        return value
    }

    @inline(__always) static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
