import PageModel

/// Finds where a JSON Pointer's value starts in JSON text, for annotations that name a file and a line
/// (`--report github` with `--pages`). A forgiving scanner: it needs no valid document, and for a pointer the
/// text does not hold it answers the line of the deepest prefix it does hold.
public enum JSONLocator {
    /// The 1-based line where the value at `pointer` (or its deepest present ancestor) starts in `text`.
    public static func line(of pointer: JSONPointer, in text: [UInt8]) -> Int {
        var scanner = Scanner(text: text)
        scanner.skipWhitespace()
        return scanner.locate(pointer.tokens[...])
    }

    struct Scanner {
        let text: [UInt8]
        var index = 0
        var line = 1

        init(text: [UInt8]) {
            self.text = text
        }

        var current: UInt8? { index < text.count ? text[index] : nil }

        mutating func advance() {
            if text[index] == UInt8(ascii: "\n") { line += 1 }
            index += 1
        }

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { advance() }
        }

        /// At the start of a value: descends along `tokens`, returns the line of the deepest value reached.
        mutating func locate(_ tokens: ArraySlice<String>) -> Int {
            guard let token = tokens.first else { return line }
            let here = line
            switch current {
            case UInt8(ascii: "{"):
                advance()
                while true {
                    skipWhitespace()
                    guard current == UInt8(ascii: "\"") else { return here }
                    let key = readString()
                    skipWhitespace()
                    guard current == UInt8(ascii: ":") else { return here }
                    advance()
                    skipWhitespace()
                    if key == token { return locate(tokens.dropFirst()) }
                    skipValue()
                    skipWhitespace()
                    guard current == UInt8(ascii: ",") else { return here }
                    advance()
                }
            case UInt8(ascii: "["):
                guard let wanted = Int(token) else { return here }
                advance()
                var position = 0
                while true {
                    skipWhitespace()
                    guard current != nil, current != UInt8(ascii: "]") else { return here }
                    if position == wanted { return locate(tokens.dropFirst()) }
                    skipValue()
                    skipWhitespace()
                    guard current == UInt8(ascii: ",") else { return here }
                    advance()
                    position += 1
                }
            default:
                return here
            }
        }

        /// Reads a string at `"`, returning it with simple escapes undone (enough to compare keys).
        mutating func readString() -> String {
            advance()
            var bytes: [UInt8] = []
            while let byte = current, byte != UInt8(ascii: "\"") {
                if byte == UInt8(ascii: "\\") {
                    advance()
                    if let escaped = current { bytes.append(escaped) }
                } else {
                    bytes.append(byte)
                }
                if current != nil { advance() }
            }
            if current != nil { advance() }
            return String(decoding: bytes, as: UTF8.self)
        }

        /// Skips one value (object, array, string or literal).
        mutating func skipValue() {
            var depth = 0
            while let byte = current {
                switch byte {
                case UInt8(ascii: "\""):
                    _ = readString()
                    if depth == 0 { return }
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    if depth == 0 { return }
                    depth -= 1
                    if depth == 0 {
                        advance()
                        return
                    }
                case UInt8(ascii: ","):
                    if depth == 0 { return }
                default:
                    break
                }
                advance()
            }
        }
    }
}
