extension JSONWriter {
    /// The number of bytes ``write(_:)`` produces for `value`, counted without writing them (the validator's
    /// content budget).
    public func encodedCount(of value: JSONValue) -> Int {
        switch value {
        case .null: 4
        case .bool(let bool): bool ? 4 : 5
        case .number(let number): Self.encodedCount(of: number)
        case .string(let string): Self.encodedCount(of: string)
        case .array(let array):
            // Brackets and the commas between elements.
            array.reduce(max(2, array.count + 1)) { $0 + encodedCount(of: $1) }
        case .object(let object):
            // Braces, the commas between members and one colon each.
            object.members.reduce(max(2, 2 * object.count + 1)) {
                $0 + Self.encodedCount(of: $1.key) + encodedCount(of: $1.value)
            }
        }
    }

    static func encodedCount(of number: Double) -> Int {
        if abs(number) < 1e15, let integer = Int64(exactly: number) {
            var count = integer < 0 ? 2 : 1
            var rest = integer.magnitude
            while rest >= 10 {
                rest /= 10
                count += 1
            }
            return count
        }
        return number.isFinite ? "\(number)".utf8.count : 4
    }

    /// Quotes plus each byte, with the escapes ``appendString(_:to:)-(String,_)`` writes.
    static func encodedCount(of string: String) -> Int {
        var string = string
        return string.withUTF8 { bytes in
            var count = bytes.count + 2
            for byte in bytes where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                switch byte {
                case 0x22, 0x5C, 0x0A, 0x0D, 0x09: count += 1
                default: count += 5
                }
            }
            return count
        }
    }

    /// An upper bound of ``encodedCount(of:)`` that reads no string's bytes: every byte counted as its longest
    /// escape (`\\u00XX`), every number as the longest form Swift prints. Budget checks compare this first and count
    /// exactly only when it is over.
    public func maximumEncodedCount(of value: JSONValue) -> Int {
        switch value {
        case .null, .bool: 5
        case .number: 32
        case .string(let string): 6 * string.utf8.count + 2
        case .array(let array): array.reduce(max(2, array.count + 1)) { $0 + maximumEncodedCount(of: $1) }
        case .object(let object):
            object.members.reduce(max(2, 2 * object.count + 1)) {
                $0 + 6 * $1.key.utf8.count + 2 + maximumEncodedCount(of: $1.value)
            }
        }
    }
}
