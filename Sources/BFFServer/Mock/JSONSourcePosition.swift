import PageModel

/// A 1-based line and column (in Unicode scalars) in a JSON text, and the search for where a JSON Pointer's value
/// is written — so `X-Flow-Mock-Stale` can send an editor to `cart.json: 12:7` rather than a path. Pure.
struct JSONSourcePosition: Sendable, Hashable, CustomStringConvertible {
    var line: Int
    var column: Int

    var description: String { "\(line):\(column)" }

    /// Where `pointer` is written in `bytes`: the key of an object member, the start of an array element, the start
    /// of the text for the root. A pointer that goes past what the text holds (a missing member) stops at the
    /// deepest value it reaches. `nil` when the text is not well-formed JSON on the way.
    static func of(_ pointer: JSONPointer, in bytes: [UInt8]) -> JSONSourcePosition? {
        var scanner = Scanner(bytes: bytes)
        scanner.skipWhitespace()
        guard scanner.index < bytes.count else { return nil }
        var found = scanner.index
        for token in pointer.tokens {
            guard let next = scanner.enter(token) else { break }
            found = next
        }
        return scanner.failed ? nil : position(of: found, in: bytes)
    }

    /// The line and column of byte `offset`.
    static func position(of offset: Int, in bytes: [UInt8]) -> JSONSourcePosition {
        var line = 1
        var column = 1
        for byte in bytes[0..<min(offset, bytes.count)] {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {  // not a UTF-8 continuation byte
                column += 1
            }
        }
        return JSONSourcePosition(line: line, column: column)
    }

    /// A forward-only walk over a JSON text; every step advances `index`, so each walk ends within `bytes.count`
    /// steps.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        var failed = false

        init(bytes: [UInt8]) { self.bytes = bytes }

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
        }

        /// With `index` at a value, moves to the value `token` names inside it and returns where it is written
        /// (its key for an object member); `nil` when there is no such value.
        mutating func enter(_ token: String) -> Int? {
            switch current {
            case UInt8(ascii: "{"):
                index += 1
                while true {
                    skipWhitespace()
                    guard current == UInt8(ascii: "\"") else { return nil }  // `}` or malformed
                    let keyStart = index
                    guard let key = string() else { return nil }
                    skipWhitespace()
                    guard current == UInt8(ascii: ":") else { return fail() }
                    index += 1
                    skipWhitespace()
                    if key == token { return keyStart }
                    guard skipValue() else { return fail() }
                    skipWhitespace()
                    guard current == UInt8(ascii: ",") else { return nil }
                    index += 1
                }
            case UInt8(ascii: "["):
                guard let wanted = Int(token), wanted >= 0 else { return nil }
                index += 1
                for _ in 0..<wanted {
                    skipWhitespace()
                    guard current != UInt8(ascii: "]"), skipValue() else { return nil }
                    skipWhitespace()
                    guard current == UInt8(ascii: ",") else { return nil }
                    index += 1
                }
                skipWhitespace()
                guard let byte = current, byte != UInt8(ascii: "]") else { return nil }
                return index
            default:
                return nil
            }
        }

        mutating func fail() -> Int? {
            failed = true
            return nil
        }

        /// Reads a string at `index` (escapes decoded) and moves past it.
        mutating func string() -> String? {
            index += 1
            var scalars: [UInt8] = []
            while let byte = current {
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: scalars, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard let escaped = current else { return nil }
                    index += 1
                    switch escaped {
                    case UInt8(ascii: "n"): scalars.append(0x0A)
                    case UInt8(ascii: "t"): scalars.append(0x09)
                    case UInt8(ascii: "r"): scalars.append(0x0D)
                    case UInt8(ascii: "b"): scalars.append(0x08)
                    case UInt8(ascii: "f"): scalars.append(0x0C)
                    case UInt8(ascii: "u"):
                        guard index + 4 <= bytes.count,
                            let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
                        else { return nil }
                        index += 4
                        // A lone surrogate half becomes U+FFFD (a pair decodes as two of them: such a key never
                        // matches, and the search stops at its object).
                        let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
                        scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
                    default: scalars.append(escaped)
                    }
                default:
                    scalars.append(byte)
                }
            }
            return nil
        }

        /// Moves past the value at `index`; false when the text ends first.
        mutating func skipValue() -> Bool {
            switch current {
            case UInt8(ascii: "\""):
                return string() != nil
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while let byte = current {
                    switch byte {
                    case UInt8(ascii: "\""):
                        guard string() != nil else { return false }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            index += 1
                            return true
                        }
                    default: break
                    }
                    index += 1
                }
                return false
            case nil:
                return false
            default:
                let start = index
                while let byte = current,
                    ![UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), 0x20, 0x0A, 0x0D, 0x09].contains(byte)
                {
                    index += 1
                }
                return index > start
            }
        }
    }
}
