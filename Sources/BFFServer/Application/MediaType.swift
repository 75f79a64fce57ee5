/// Reading a `Content-Type` value: its essence (type/subtype, lowercased, parameters dropped) and whether it is
/// JSON. One reader for the request bodies and the admin API's cross-site check.
enum MediaType {
    /// `"Application/JSON; charset=utf-8"` → `"application/json"`.
    static func essence(of contentType: String) -> String {
        var bytes = contentType.utf8.prefix { $0 != UInt8(ascii: ";") }[...]
        while let first = bytes.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            bytes = bytes.dropFirst()
        }
        while let last = bytes.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") {
            bytes = bytes.dropLast()
        }
        // ASCII lowercasing is all a media type needs; a value that is already lowercase is not copied.
        guard bytes.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) else {
            return String(Substring(bytes))
        }
        return String(
            decoding: bytes.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self
        )
    }

    /// `application/json` or any `+json` type (`application/problem+json`). None of them is a CORS-safelisted
    /// type, so a browser preflights a cross-origin request that sends one.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let essence = essence(of: contentType)
        return essence == "application/json" || essence.hasSuffix("+json")
    }
}
