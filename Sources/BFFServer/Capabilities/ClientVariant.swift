import HTTPCore
import PageModel

/// How one request wants a page resolved: the client's declared capabilities (`X-Flow-Client`) and, for
/// localized pages, the negotiated locale. ``plain`` — no header, default locale — is the precomputed fast path.
struct ClientVariant: Sendable, Hashable {
    /// `nil` when the client sent no `X-Flow-Client` (it gets the unresolved page).
    var capabilities: ClientCapabilities?
    /// A non-default locale of a localized page; `nil` means the page's default locale (or not localized).
    var locale: String?

    static let plain = ClientVariant()

    var isPlain: Bool { capabilities == nil && locale == nil }

    /// The variant a cursor was issued for; `nil` when its profile does not parse (never for our own cursors).
    static func of(_ cursor: Cursor) -> ClientVariant? {
        var variant = ClientVariant(locale: cursor.locale)
        if let profile = cursor.profile {
            guard let capabilities = try? ClientCapabilities(header: profile) else { return nil }
            variant.capabilities = capabilities
        }
        return variant
    }

    /// The resolver for `page`, or `nil` when the page is served as authored (plain and not localized).
    func resolver(for page: CatalogPage) -> PageResolver? {
        guard capabilities != nil || page.strings != nil else { return nil }
        return PageResolver(
            capabilities: capabilities ?? .unrestricted, strings: page.strings,
            locale: locale ?? page.strings?.defaultLocale)
    }
}

extension CatalogPage {
    /// `Cache-Control`, `Vary` (the request headers resolution reads) and, for localized pages,
    /// `Content-Language`. Gzip's `Vary: Accept-Encoding` comes from the prepared body.
    func responseHeaders(locale: String?) -> HTTPFields {
        guard let strings else { return Self.plainHeaders(cacheControl) }
        return [
            "Cache-Control": cacheControl, "Vary": "\(ClientCapabilities.headerName), Accept-Language",
            "Content-Language": locale ?? strings.defaultLocale,
        ]
    }

    private static func plainHeaders(_ cacheControl: String) -> HTTPFields {
        ["Cache-Control": cacheControl, "Vary": ClientCapabilities.headerName]
    }

    /// The headers of a page without strings, serialized; `nil` for a localized page.
    static func headerBlock(_ cacheControl: String, _ strings: LocalizedStrings?) -> HTTPHeaderBlock? {
        strings == nil ? HTTPHeaderBlock(plainHeaders(cacheControl)) : nil
    }
}
