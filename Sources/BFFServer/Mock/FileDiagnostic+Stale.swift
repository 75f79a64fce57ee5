import Foundation
import PageModel

/// How mock mode names a broken page file in responses (`X-Flow-Mock-Stale`, `404 page_file_invalid`).
extension FileDiagnostic {
    /// Where in the file: `line:column` (1-based) — from the message of a JSON syntax error (PageDecoder reports
    /// it as `invalid_json` with JSONSyntaxError's description, `… at line 3, column 14`), else where the
    /// diagnostic's JSON Pointer is written in `source` — or, without the source, the JSON Pointer itself (`/` for
    /// the root).
    func location(source: [UInt8]?) -> String {
        if diagnostic.code == "invalid_json", let position = Self.position(in: diagnostic.message) {
            return "\(position.line):\(position.column)"
        }
        if let source, let position = JSONSourcePosition.of(diagnostic.path, in: source) {
            return position.description
        }
        return diagnostic.path.string.isEmpty ? "/" : diagnostic.path.string
    }

    /// `file: location: code`, the value of `X-Flow-Mock-Stale`. Anything but visible ASCII and space (a JSON
    /// Pointer can hold any key) is percent-encoded, so the value is always a valid header field value.
    func staleNotice(source: [UInt8]? = nil) -> String {
        var value = ""
        for byte in "\(file): \(location(source: source)): \(diagnostic.code)".utf8 {
            if byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "%") {
                value.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                value += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return value
    }

    /// `(line, column)` from a message ending in `at line L, column C`.
    static func position(in message: String) -> (line: Int, column: Int)? {
        guard let range = message.range(of: " at line ", options: .backwards) else { return nil }
        let numbers = message[range.upperBound...].split(separator: ", column ")
        guard numbers.count == 2, let line = Int(numbers[0]), let column = Int(numbers[1]) else { return nil }
        return (line, column)
    }
}
