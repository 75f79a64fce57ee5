/// Reading a `Content-Type` value: its essence (type/subtype, lowercased, parameters dropped) and whether it is
/// JSON. One reader for the request bodies and the admin API's cross-site check.
enum MediaType {
    /// `"Application/JSON; charset=utf-8"` → `"application/json"`.
    static func essence(of contentType: String) -> String {
        contentType.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces).lowercased()
    }

    /// `application/json` or any `+json` type (`application/problem+json`). None of them is a CORS-safelisted
    /// type, so a browser preflights a cross-origin request that sends one.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let essence = essence(of: contentType)
        return essence == "application/json" || essence.hasSuffix("+json")
    }
}
