/// Validation of the chunk extensions after a chunk size (RFC 9112 §7.1.1). Their values are not used.
///
///     chunk-ext      = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
///     chunk-ext-name = token
///     chunk-ext-val  = token / quoted-string
///
/// Whitespace is allowed only where the grammar has BWS: not after the last extension, not alone after the size.
enum ChunkExtensions {
    /// Throws unless `bytes[from..<to]` (the chunk-size line after the hex digits, CRLF excluded) is a valid,
    /// possibly empty, `chunk-ext`: ``HTTPParseError/invalidChunkSize`` for whitespace alone after the size,
    /// ``HTTPParseError/bareCR`` for a CR, ``HTTPParseError/invalidChunkExtension`` for anything else.
    static func validate(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, to end: Int) throws(HTTPParseError) {
        var index = from
        var sawExtension = false
        func skipWhitespace() {
            while index < end && (bytes[index] == Byte.space || bytes[index] == Byte.tab) { index += 1 }
        }
        func failure() -> HTTPParseError {
            guard index < end else { return sawExtension ? .invalidChunkExtension : .invalidChunkSize }
            if bytes[index] == Byte.cr { return .bareCR }
            return sawExtension ? .invalidChunkExtension : .invalidChunkSize
        }
        func token() throws(HTTPParseError) {
            let start = index
            while index < end && Byte.isTChar(bytes[index]) { index += 1 }
            if index == start { throw index < end && bytes[index] == Byte.cr ? .bareCR : .invalidChunkExtension }
        }
        while index < end {
            skipWhitespace()
            guard index < end, bytes[index] == Byte.semicolon else { throw failure() }
            sawExtension = true
            index += 1
            skipWhitespace()
            try token()
            let afterName = index
            skipWhitespace()
            guard index < end, bytes[index] == Byte.equals else {
                index = afterName  // whitespace here must precede another ";"
                continue
            }
            index += 1
            skipWhitespace()
            if index < end && bytes[index] == Byte.quote {
                try quotedString(bytes, &index, end)
            } else {
                try token()
            }
        }
    }

    /// `quoted-string = DQUOTE *( qdtext / quoted-pair ) DQUOTE` (RFC 9110 §5.6.4); `index` is on the opening quote.
    private static func quotedString(
        _ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int, _ end: Int
    ) throws(HTTPParseError) {
        index += 1
        while index < end {
            let byte = bytes[index]
            switch byte {
            case Byte.quote:
                index += 1
                return
            case Byte.backslash:
                // quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )
                guard index + 1 < end,
                    isQuotedText(bytes[index + 1]) || bytes[index + 1] == Byte.quote
                        || bytes[index + 1] == Byte.backslash
                else { throw index + 1 < end && bytes[index + 1] == Byte.cr ? .bareCR : .invalidChunkExtension }
                index += 2
            default:
                guard isQuotedText(byte) else { throw byte == Byte.cr ? .bareCR : .invalidChunkExtension }
                index += 1
            }
        }
        throw .invalidChunkExtension  // unterminated
    }

    /// `qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text`
    @inline(__always)
    private static func isQuotedText(_ byte: UInt8) -> Bool {
        switch byte {
        case Byte.tab, Byte.space, 0x21, 0x23...0x5B, 0x5D...0x7E, 0x80...0xFF: true
        default: false
        }
    }
}
