/// An answer an ``HTTPClient`` received: the status, the header fields of the final response and the body
/// (decoded when it was compressed).
///
/// The header lines are kept as received and read on demand: most callers look at one field or none, and splitting
/// every line into two strings cost more than the rest of an upstream call's bookkeeping.
public struct HTTPClientResponse: Sendable {
    public var status: Int
    public var body: [UInt8]
    /// The final response's header lines (`Name: value\r\n` …), as received.
    private var lines: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.body = body
        lines = Self.lines(of: headers)
    }

    /// A response from the lines libcurl delivered.
    init(status: Int, lines: [UInt8], body: [UInt8]) {
        self.status = status
        self.lines = lines
        self.body = body
    }

    /// The header fields as received, names as the upstream spelled them (compare case-insensitively); obsolete
    /// folded lines are joined to the field they continue.
    public var headers: [(name: String, value: String)] {
        get {
            var fields: [(name: String, value: String)] = []
            forEachField { name, value in
                fields.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
            } continued: { value in
                if !fields.isEmpty { fields[fields.count - 1].value += " " + String(decoding: value, as: UTF8.self) }
            }
            return fields
        }
        set { lines = Self.lines(of: newValue) }
    }

    /// The first value of the field `name` (case-insensitive), read from the lines without splitting the others.
    public func header(_ name: String) -> String? {
        let wanted = Array(name.utf8)
        var found: String?
        forEachField { fieldName, value in
            guard found == nil, fieldName.count == wanted.count,
                zip(fieldName, wanted).allSatisfy({ Self.lower($0) == Self.lower($1) })
            else { return }
            found = String(decoding: value, as: UTF8.self)
        } continued: { _ in
        }
        return found
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }

    private static func lines(of fields: [(name: String, value: String)]) -> [UInt8] {
        var lines: [UInt8] = []
        for field in fields { lines += Array("\(field.name): \(field.value)\r\n".utf8) }
        return lines
    }

    /// Calls `field` with each `name: value` line's parts (value trimmed of blanks), `continued` with each folded
    /// continuation's value; lines without a colon are skipped.
    private func forEachField(
        _ field: (ArraySlice<UInt8>, ArraySlice<UInt8>) -> Void, continued: (ArraySlice<UInt8>) -> Void
    ) {
        var lineStart = 0
        var index = 0
        while index < lines.count {
            guard lines[index] == UInt8(ascii: "\n") else {
                index += 1
                continue
            }
            var end = index
            if end > lineStart, lines[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            let line = lines[lineStart..<end]
            lineStart = index + 1
            index += 1
            guard let first = line.first else { continue }
            if first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
                continued(Self.trimmed(line))
                continue
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            field(line[line.startIndex..<colon], Self.trimmed(line[(colon + 1)...]))
        }
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while let first = slice.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            slice = slice.dropFirst()
        }
        while let last = slice.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") {
            slice = slice.dropLast()
        }
        return slice
    }
}
