import Foundation
import PageModel

/// How mock mode names a broken page file in responses (`X-Flow-Mock-Stale`, `404 page_file_invalid`).
extension FileDiagnostic {
    /// Where in the file: `line:column` (1-based) for a JSON syntax error, else the JSON Pointer (`/` for the
    /// root). PageDecoder reports a syntax error as `invalid_json` with JSONSyntaxError's description
    /// (`… at line 3, column 14`) as the message, the only place a position survives.
    var location: String {
        if diagnostic.code == "invalid_json", let position = Self.position(in: diagnostic.message) {
            return "\(position.line):\(position.column)"
        }
        return diagnostic.path.string.isEmpty ? "/" : diagnostic.path.string
    }

    /// `file: location: code`, the value of `X-Flow-Mock-Stale`. Anything but visible ASCII and space (a JSON
    /// Pointer can hold any key) is percent-encoded, so the value is always a valid header field value.
    var staleNotice: String {
        var value = ""
        for byte in "\(file): \(location): \(diagnostic.code)".utf8 {
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
