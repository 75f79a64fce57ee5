/// The trailer section of a chunked body (RFC 9112 §7.1.2): field lines with the header section's syntax and
/// limits, minus the fields that must never be trailers.
///
/// RFC 9110 §6.5.1 forbids a sender to put in trailers any field whose evaluation is needed before the content:
/// "message framing, routing, authentication, request modifiers, response controls, or content format". A
/// recipient may not merge such a trailer into the header section (§6.5.2); flow-bff refuses the request instead
/// (**400** `forbidden_trailer`), so that no intermediary that does merge them can be told one thing by the header
/// section and another by the trailers.
extension HeadParser {
    /// The fields refused in a trailer section, lowercased (compared case-insensitively), by the RFC 9110 §6.5.1
    /// category they belong to:
    /// - framing and connection: `content-length`, `transfer-encoding`, `trailer`, `te`, `connection`,
    ///   `keep-alive`, `proxy-connection`, `upgrade`;
    /// - routing: `host`;
    /// - authentication: `authorization`, `proxy-authorization`, `cookie`, and the response-side
    ///   `www-authenticate`, `proxy-authenticate`, `set-cookie`;
    /// - request modifiers (controls and preconditions, RFC 9110 §7.6.2, §10.1, §13.1): `expect`,
    ///   `max-forwards`, `range`, `if-match`, `if-none-match`, `if-modified-since`, `if-unmodified-since`,
    ///   `if-range`;
    /// - response controls (caching, RFC 9111 §5): `cache-control`, `pragma`;
    /// - content format: `content-type`, `content-encoding`, `content-range`.
    ///
    /// Go's net/http keeps a similar list for the fields a `Trailer` header may announce.
    static let forbiddenTrailerNames: Set<String> = [
        "content-length", "transfer-encoding", "trailer", "te", "connection", "keep-alive", "proxy-connection",
        "upgrade", "host", "authorization", "proxy-authorization", "cookie", "www-authenticate",
        "proxy-authenticate", "set-cookie", "expect", "max-forwards", "range", "if-match", "if-none-match",
        "if-modified-since", "if-unmodified-since", "if-range", "cache-control", "pragma", "content-type",
        "content-encoding", "content-range",
    ]

    /// Parses the trailer field lines; throws ``HTTPParseError/forbiddenTrailer(_:)`` for a field of
    /// ``forbiddenTrailerNames``.
    static func parseTrailers(_ p: Bytes, base: Int, lines: [Range<Int>]) throws(HTTPParseError) -> HTTPFields {
        var fields = HTTPFields(reservingCapacity: lines.count)
        for line in lines {
            let (nameRange, valueRange) = try parseFieldLine(p, line.lowerBound + base, line.upperBound + base)
            let name = string(p, nameRange)
            if forbiddenTrailerNames.contains(name.lowercased()) { throw .forbiddenTrailer(name) }
            fields.storage.append(HTTPFields.Field(name: name, value: string(p, valueRange)))
        }
        return fields
    }
}
