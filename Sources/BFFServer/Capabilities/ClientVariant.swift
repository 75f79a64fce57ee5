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

    /// The variant a first-load request asks for.
    /// - Throws: 400 `invalid_client_header` for a malformed `X-Flow-Client`.
    static func of(_ request: HTTPRequest, page: CatalogPage) throws -> ClientVariant {
        ClientVariant(capabilities: try capabilities(of: request), locale: locale(of: request, strings: page.strings))
    }

    /// The request's `X-Flow-Client` declaration, `nil` when absent.
    /// - Throws: 400 `invalid_client_header` for a malformed value.
    static func capabilities(of request: HTTPRequest) throws -> ClientCapabilities? {
        guard let header = request.headers[ClientCapabilities.headerName] else { return nil }
        do {
            return try ClientCapabilities(header: header)
        } catch {
            throw ProblemDetails(
                .invalidClientHeader, detail: error.description)
        }
    }

    /// The negotiated locale when it is not the default one (`nil` otherwise, and for pages without strings).
    static func locale(of request: HTTPRequest, strings: LocalizedStrings?) -> String? {
        guard let strings, let accept = request.headers["Accept-Language"] else { return nil }
        let locale = strings.negotiate(acceptLanguage: accept)
        return locale == strings.defaultLocale ? nil : locale
    }

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
