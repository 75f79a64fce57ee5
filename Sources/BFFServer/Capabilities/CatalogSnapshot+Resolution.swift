import HTTPCore
import PageModel

/// Bodies resolved for a client variant (capabilities, locale), cached like every other body by page, position,
/// parameters, profile key and locale. The snapshot is per catalog version, so the cache is per page version.
extension CatalogSnapshot {
    /// A first-load body for `variant`. For ``ClientVariant/plain`` on a page without strings this is exactly the
    /// authored page (the precomputed fast path).
    static func firstLoad(
        _ page: CatalogPage, parameters: [String: String], variant: ClientVariant, cursors: CursorCodec,
        extra: [Degradation] = []
    ) -> PreparedBody {
        var document = page.initialDocument { position in
            cursors.encode(
                Cursor(
                    pageID: page.page.id, version: page.version, position: position, parameters: parameters,
                    profile: variant.capabilities?.profileKey, locale: variant.locale))
        }
        var degradations = extra
        if let resolver = variant.resolver(for: page) {
            let resolved = resolver.resolve(document)
            document = resolved.page
            degradations += resolved.degradations
        }
        return ServedEnvelope.prepare(
            .page(document), degradations: variant.capabilities == nil && extra.isEmpty ? nil : degradations,
            locale: page.strings.map { variant.locale ?? $0.defaultLocale })
    }

    /// The first-load body of `page` for a non-plain variant, from the cache.
    func resolvedInitialBody(_ page: CatalogPage, parameters: [String: String], variant: ClientVariant)
        -> PreparedBody
    {
        let key = CacheKey(
            pageID: page.page.id, position: -1, parameters: parameters, profile: variant.capabilities?.profileKey,
            locale: variant.locale)
        return cached(key) { Self.firstLoad(page, parameters: parameters, variant: variant, cursors: cursors) }
    }

    /// The chunk a cursor bound to a variant (or of a localized page) points at; `nil` when out of range.
    func resolvedChunkBody(_ page: CatalogPage, cursor: Cursor) -> PreparedBody? {
        let key = CacheKey(
            pageID: page.page.id, position: cursor.position, parameters: cursor.parameters, profile: cursor.profile,
            locale: cursor.locale)
        if let body = cache.withLock({ $0[key] }) { return body }
        guard let variant = ClientVariant.of(cursor) else { return nil }
        return Self.chunk(page, cursor: cursor, variant: variant, cursors: cursors).map { chunk in
            cached(key) { chunk }
        }
    }

    static func chunk(_ page: CatalogPage, cursor: Cursor, variant: ClientVariant, cursors: CursorCodec)
        -> PreparedBody?
    {
        let chunk = page.chunk(at: cursor.position) { position in
            var next = cursor
            next.position = position
            return cursors.encode(next)
        }
        guard var chunk else { return nil }
        var degradations: [Degradation] = []
        if let resolver = variant.resolver(for: page) {
            (chunk.sections, degradations) = resolver.resolve(chunk.sections)
        }
        return ServedEnvelope.prepare(
            .nextPage(chunk), degradations: variant.capabilities == nil ? nil : degradations,
            locale: page.strings.map { variant.locale ?? $0.defaultLocale })
    }
}

/// Envelope bytes with the resolution members appended: `degradations` (present whenever the client sent
/// `X-Flow-Client`, possibly empty) and `locale` (localized pages).
enum ServedEnvelope {
    static func encode(_ envelope: Envelope, degradations: [Degradation]?, locale: String?) -> [UInt8] {
        guard degradations != nil || locale != nil else { return envelope.encoded() }
        guard case .object(var object) = envelope.json else { return envelope.encoded() }
        if let degradations { object["degradations"] = .array(degradations.map(\.json)) }
        if let locale { object["locale"] = .string(locale) }
        return JSONWriter().write(.object(object))
    }

    static func prepare(_ envelope: Envelope, degradations: [Degradation]?, locale: String?) -> PreparedBody {
        PreparedBody(
            encode(envelope, degradations: degradations, locale: locale), contentType: "application/json", level: 6)
    }
}
