/// Where each value of a JSON text starts, by JSON Pointer, so a diagnostic's path can be printed as
/// `file:line:column`. Built by a position-keeping scan of text that already parsed; the decoder itself keeps no
/// positions, so serving pays nothing for this.
public struct JSONSourceMap: Sendable {
    /// A 1-based line and column (columns count Unicode scalars, as editors do) and the byte offset.
    public struct Position: Sendable, Hashable, CustomStringConvertible {
        public var line: Int
        public var column: Int
        public var offset: Int

        public init(line: Int, column: Int, offset: Int) {
            self.line = line
            self.column = column
            self.offset = offset
        }

        /// `line:column`.
        public var description: String { "\(line):\(column)" }
    }

    private var positions: [String: Position] = [:]

    /// Scans `bytes`; `nil` when they are not valid JSON (a syntax error carries its own position).
    public init?(bytes: some Collection<UInt8>) {
        var scanner = Scanner(bytes: Array(bytes))
        scanner.skipWhitespace()
        guard scanner.value(at: "", depth: 0), scanner.atEnd else { return nil }
        positions = scanner.positions
    }

    /// Where the value at `pointer` starts; for a pointer to a member that is missing, where its nearest
    /// existing parent starts. `nil` only for an empty map.
    public func position(of pointer: JSONPointer) -> Position? {
        var path = pointer.string
        while true {
            if let position = positions[path] { return position }
            guard let slash = path.lastIndex(of: "/") else { return nil }
            path = String(path[..<slash])
        }
    }
}

extension JSONSourceMap {
    /// A recursive scan that records the start of every value; it checks structure only as far as it needs to.
    fileprivate struct Scanner {
        let bytes: [UInt8]
        var index = 0
        var line = 1
        var column = 1
        var positions: [String: Position] = [:]

        init(bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool {
            mutating get {
                skipWhitespace()
                return index == bytes.count
            }
        }

        mutating func advance() {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { advance() }
        }

        mutating func value(at path: String, depth: Int) -> Bool {
            guard index < bytes.count, depth < 1_000 else { return false }
            positions[path] = Position(line: line, column: column, offset: index)
            switch bytes[index] {
            case UInt8(ascii: "{"): return object(at: path, depth: depth)
            case UInt8(ascii: "["): return array(at: path, depth: depth)
            case UInt8(ascii: "\""): return string() != nil
            default:
                while index < bytes.count, !Self.ends(bytes[index]) { advance() }
                return true
            }
        }

        static func ends(_ byte: UInt8) -> Bool {
            [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}")].contains(byte)
        }

        mutating func object(at path: String, depth: Int) -> Bool {
            advance()
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                advance()
                return true
            }
            while true {
                skipWhitespace()
                guard let key = string() else { return false }
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return false }
                advance()
                skipWhitespace()
                let escaped = key.replacingOccurrences("~", "~0").replacingOccurrences("/", "~1")
                guard value(at: path + "/" + escaped, depth: depth + 1) else { return false }
                skipWhitespace()
                guard index < bytes.count else { return false }
                let separator = bytes[index]
                advance()
                if separator == UInt8(ascii: "}") { return true }
                guard separator == UInt8(ascii: ",") else { return false }
            }
        }

        mutating func array(at path: String, depth: Int) -> Bool {
            advance()
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                advance()
                return true
            }
            var element = 0
            while true {
                skipWhitespace()
                guard value(at: path + "/" + String(element), depth: depth + 1) else { return false }
                element += 1
                skipWhitespace()
                guard index < bytes.count else { return false }
                let separator = bytes[index]
                advance()
                if separator == UInt8(ascii: "]") { return true }
                guard separator == UInt8(ascii: ",") else { return false }
            }
        }

        /// Reads a string literal; escapes are decoded by the JSON parser.
        mutating func string() -> String? {
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
            let start = index
            var escaped = false
            advance()
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                if bytes[index] == UInt8(ascii: "\\") {
                    escaped = true
                    advance()
                    guard index < bytes.count else { return nil }
                }
                advance()
            }
            guard index < bytes.count else { return nil }
            advance()
            if !escaped { return String(decoding: bytes[(start + 1)..<(index - 1)], as: UTF8.self) }
            return (try? JSONParser().parse(bytes[start..<index]))?.stringValue
        }
    }
}

extension String {
    fileprivate func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
