import HTTPCore
import PageModel

/// Which bytes a page request gets: a content version, a position in it, and the client variant. Two requests
/// with the same key get the same bytes, whatever the document's source (page file, scenario, session copy,
/// provider), so the key is all the cache needs.
struct RepresentationKey: Hashable, Sendable {
    /// The document's content version (``CatalogPage/version``).
    var version: String
    /// `nil` for a first load, else the first section of the chunk a cursor points at.
    var position: Int?
    /// Page parameters (the first load's query, carried by its cursors).
    var parameters: [String: String]
    /// The client's capability profile key; `nil` when it sent no `X-Flow-Client`.
    var profile: String?
    /// A non-default locale of a localized page.
    var locale: String?
    /// Degradations a provider reported for this document (first loads only).
    var degradations: [Degradation] = []

    /// The key of a first load of `page` for `variant`.
    static func firstLoad(
        _ page: CatalogPage, parameters: [String: String], variant: ClientVariant, degradations: [Degradation] = []
    ) -> RepresentationKey {
        RepresentationKey(
            version: page.version, position: nil, parameters: parameters, profile: variant.capabilities?.profileKey,
            locale: variant.locale, degradations: degradations)
    }

    /// The key of the chunk `cursor` points at.
    static func chunk(_ cursor: Cursor) -> RepresentationKey {
        RepresentationKey(
            version: cursor.version, position: cursor.position, parameters: cursor.parameters,
            profile: cursor.profile, locale: cursor.locale)
    }

    /// Hashes the version and position only: keys that differ in nothing else are rare, and still compared in full.
    /// (Hashing the parameters dictionary, the profile and the locale cost more than the lookup itself.)
    func hash(into hasher: inout Hasher) {
        hasher.combine(version)
        hasher.combine(position)
    }

    /// A first load without parameters for a client that declared nothing: the bodies built with each snapshot.
    var isPlainFirstLoad: Bool {
        position == nil && parameters.isEmpty && profile == nil && locale == nil && degradations.isEmpty
    }

    /// The cursor of the chunk starting at `position` of this representation's document.
    func cursor(pageID: String, position: Int) -> Cursor {
        Cursor(
            pageID: pageID, version: version, position: position, parameters: parameters, profile: profile,
            locale: locale)
    }
}

/// Encodes envelopes: the one place a page (first load or chunk) becomes bytes, with its cursors, client
/// resolution, localization and gzip.
enum Representation {
    /// The prepared body of `key` for `page`, or `nil` when the key's position is past the end of the page.
    /// - Parameters:
    ///   - variant: the client variant `key` names (its capabilities parsed).
    ///   - cursors: signs the postbacks of the envelope's pagination.
    ///   - lazyGzip: compress on the first request for gzip (a representation made while answering), not now (the
    ///     first loads prepared with a catalog snapshot).
    static func make(
        _ page: CatalogPage, _ key: RepresentationKey, variant: ClientVariant, cursors: CursorCodec,
        lazyGzip: Bool = true
    ) -> PreparedBody? {
        let postback = { (position: Int) in cursors.encode(key.cursor(pageID: page.page.id, position: position)) }
        let resolver = variant.resolver(for: page)
        var degradations = key.degradations
        let envelope: Envelope
        if let position = key.position {
            guard var chunk = page.chunk(at: position, postback: postback) else { return nil }
            if let resolver {
                let resolved = resolver.resolve(chunk.sections)
                chunk.sections = resolved.0
                degradations += resolved.1
            }
            envelope = .nextPage(chunk)
        } else {
            var document = page.initialDocument(postback: postback)
            if let resolver {
                let resolved = resolver.resolve(document)
                document = resolved.page
                degradations += resolved.degradations
            }
            envelope = .page(document)
        }
        return PreparedBody(
            encode(
                envelope, degradations: variant.capabilities == nil && key.degradations.isEmpty ? nil : degradations,
                locale: page.strings.map { variant.locale ?? $0.defaultLocale }),
            contentType: "application/json", level: 6, lazily: lazyGzip)
    }

    /// Envelope bytes with the resolution members appended: `degradations` (present whenever the client sent
    /// `X-Flow-Client`, possibly empty) and `locale` (localized pages).
    static func encode(_ envelope: Envelope, degradations: [Degradation]?, locale: String?) -> [UInt8] {
        guard degradations != nil || locale != nil else { return envelope.encoded() }
        guard case .object(var object) = envelope.json else { return envelope.encoded() }
        if let degradations { object["degradations"] = .array(degradations.map(\.json)) }
        if let locale { object["locale"] = .string(locale) }
        return JSONWriter().write(.object(object))
    }

    /// The prepared body of a fixed envelope (canned action answers).
    static func prepare(_ envelope: Envelope) -> PreparedBody {
        PreparedBody(envelope.encoded(), contentType: "application/json", level: 6)
    }
}
