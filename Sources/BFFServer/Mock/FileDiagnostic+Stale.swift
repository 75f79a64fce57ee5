import PageModel

/// How mock mode names a broken page file in responses (`X-Flow-Mock-Stale`, `404 page_file_invalid`).
extension FileDiagnostic {
    /// Where in the file: `line:column` (1-based), located when the catalog loaded (Catalog/PageCatalog+Positions
    /// .swift: from the syntax error, or where the diagnostic's JSON Pointer is written) — or, when the file could
    /// not be located, the JSON Pointer itself (`/` for the root).
    var location: String {
        if let position { return position.description }
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
}
