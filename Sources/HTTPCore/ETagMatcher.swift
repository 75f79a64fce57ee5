/// `If-None-Match` evaluation (RFC 9110 §13.1.2, weak comparison).
public enum ETagMatcher {
    /// Whether the header value `ifNoneMatch` (`*` or a list of entity tags) matches `etag`.
    public static func matches(_ ifNoneMatch: String, _ etag: String) -> Bool {
        let wanted = opaque(Substring(etag))
        for element in ifNoneMatch.split(separator: ",") {
            let candidate = element.trimmingOWS()
            if candidate == "*" { return true }
            if opaque(candidate) == wanted { return true }
        }
        return false
    }

    private static func opaque(_ tag: Substring) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
    }
}
