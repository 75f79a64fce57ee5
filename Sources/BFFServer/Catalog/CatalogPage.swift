import HTTPCore
import PageModel

/// One servable page: the normalised document, its settings, its content version and the api actions it declares.
///
/// A value type over one shared storage object (copy-on-write): the serving path passes a page around by value
/// (catalog lookup, page source, response), and a copy costs one reference count instead of one per field.
public struct CatalogPage: Sendable {
    /// Mutated only through `storageForWriting()`, which copies it unless this value holds the only reference
    /// (the same discipline as the standard library's collections), so sharing it between threads is safe.
    private final class Storage: @unchecked Sendable {
        var page: PageModel
        var pageSize: Int
        var cacheControl: String
        var version: String
        var actionNames: [String]
        var file: String
        var strings: LocalizedStrings?
        var headerBlock: HTTPHeaderBlock?
        var variants: [PageVariant]
        var items: ItemPages?
        var generator: PageGenerator?
        var queryPages: QueryPages?
        /// What responses serving this page tell the access log and metrics (its id), made once.
        var annotations: HTTPResponseAnnotations

        init(
            page: PageModel, pageSize: Int, cacheControl: String, version: String, actionNames: [String],
            file: String, strings: LocalizedStrings?, headerBlock: HTTPHeaderBlock?, variants: [PageVariant]
        ) {
            self.page = page
            self.pageSize = pageSize
            self.cacheControl = cacheControl
            self.version = version
            self.actionNames = actionNames
            self.file = file
            self.strings = strings
            self.headerBlock = headerBlock
            self.variants = variants
            annotations = HTTPResponseAnnotations(subject: page.id)
        }

        func copy() -> Storage {
            let copy = Storage(
                page: page, pageSize: pageSize, cacheControl: cacheControl, version: version,
                actionNames: actionNames, file: file, strings: strings, headerBlock: headerBlock, variants: variants)
            copy.items = items
            copy.generator = generator
            copy.queryPages = queryPages
            return copy
        }
    }

    private var storage: Storage

    /// The storage, copied first when another value shares it.
    private mutating func storageForWriting() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    public var page: PageModel {
        get { storage.page }
        set {
            let storage = storageForWriting()
            storage.page = newValue
            if storage.annotations.subject != newValue.id {
                storage.annotations = HTTPResponseAnnotations(subject: newValue.id)
            }
        }
    }
    /// The page's id (read without copying the page out of its storage).
    public var id: String { storage.page.id }
    /// The annotations of a response serving this page (its id as the subject), shared by all of them.
    var annotations: HTTPResponseAnnotations { storage.annotations }
    /// Sections per chunk; 0 serves the whole page in the first response.
    public var pageSize: Int {
        get { storage.pageSize }
        set { storageForWriting().pageSize = newValue }
    }
    public var cacheControl: String {
        get { storage.cacheControl }
        set {
            let storage = storageForWriting()
            storage.cacheControl = newValue
            storage.headerBlock = Self.headerBlock(newValue, storage.strings)
        }
    }
    /// Content version: the first 16 hex digits of the SHA-256 of the encoded page and its page size. Cursors bind
    /// it, so a cursor issued before an edit is answered with `cursor_expired`.
    public var version: String {
        get { storage.version }
        set { storageForWriting().version = newValue }
    }
    /// Names of the api actions this page file declares.
    public var actionNames: [String] {
        get { storage.actionNames }
        set { storageForWriting().actionNames = newValue }
    }
    /// The file it came from, relative to the pages directory (empty for programmatic pages).
    public var file: String {
        get { storage.file }
        set { storageForWriting().file = newValue }
    }
    /// Localized strings for the page's `$l10n:` markers (`server.strings`), when it has any.
    public var strings: LocalizedStrings? {
        get { storage.strings }
        set {
            let storage = storageForWriting()
            storage.strings = newValue
            storage.headerBlock = Self.headerBlock(storage.cacheControl, newValue)
        }
    }
    /// ``responseHeaders(locale:)`` serialized once, for pages without strings (their headers never vary).
    var headerBlock: HTTPHeaderBlock? { storage.headerBlock }
    /// Documents served instead of this one for matching query parameters (`server.variants`), first match wins.
    var variants: [PageVariant] {
        get { storage.variants }
        set { storageForWriting().variants = newValue }
    }

    /// The page made for each item of a data array (`server.item`), served by the item's query parameter.
    var items: ItemPages? {
        get { storage.items }
        set { storageForWriting().items = newValue }
    }

    /// How to make the page again from other data (a session's copy), for a page made from data.
    var generator: PageGenerator? {
        get { storage.generator }
        set { storageForWriting().generator = newValue }
    }

    /// The page made for the query parameters its templates read (`filterBy`, `sortable`), when it reads some.
    var queryPages: QueryPages? {
        get { storage.queryPages }
        set { storageForWriting().queryPages = newValue }
    }

    /// - Parameter encoded: the page's bytes (`page.encoded()`) when the caller has them already; else the page
    ///   is encoded here, a section at a time, for its version.
    public init(
        page: PageModel, pageSize: Int, cacheControl: String, actionNames: [String] = [], file: String = "",
        strings: LocalizedStrings? = nil, encoded: [UInt8]? = nil
    ) {
        // The encoded page is hashed as it is written, a section at a time: a long page never exists as one buffer.
        let digest = Crypto.sha256 { feed in
            if let encoded { feed(encoded) } else { page.encoded(into: feed) }
            feed(Array("|\(pageSize)".utf8))
            if let strings { feed(strings.fingerprint) }
        }
        storage = Storage(
            page: page, pageSize: pageSize, cacheControl: cacheControl, version: Crypto.hex(digest.prefix(8)),
            actionNames: actionNames, file: file, strings: strings,
            headerBlock: Self.headerBlock(cacheControl, strings), variants: [])
    }

    /// The end of the first chunk: where the first cursor points.
    var firstChunkEnd: Int {
        pageSize == 0 ? page.sections.count : min(pageSize, page.sections.count)
    }

    /// The document a first load returns: header, the first chunk of sections, footer, and pagination when more
    /// sections follow. `postback` makes the cursor for a position.
    public func initialDocument(postback: (Int) -> String) -> PageModel {
        var first = page
        let end = firstChunkEnd
        first.sections = Array(page.sections[0..<end])
        first.pagination = end < page.sections.count ? Pagination(hasMore: true, postback: postback(end)) : nil
        return first
    }

    /// The chunk of sections starting at `position`, or `nil` when the position is past the end. Cost is
    /// proportional to the chunk, not to the page.
    public func chunk(at position: Int, postback: (Int) -> String) -> NextPage? {
        guard position >= 0, position < page.sections.count || (position == page.sections.count && position > 0)
        else { return nil }
        let size = pageSize == 0 ? page.sections.count : pageSize
        let end = min(position + size, page.sections.count)
        let more = end < page.sections.count
        return NextPage(
            sections: Array(page.sections[position..<end]),
            pagination: more ? Pagination(hasMore: true, postback: postback(end)) : .end)
    }
}

/// An api action declared by a page file: `POST /v1/actions/{name}` answers with `response`, or with the first of
/// its ``rules`` whose condition the request meets (pages/README.md § Answers that depend on the request).
public struct CatalogAction: Sendable {
    public var name: String
    public var pageID: String
    /// The answer as declared: the only one of a plain action; the default (else the first response) of an action
    /// with `responses`. Templated strings hold their placeholders.
    public var response: ActionResponse
    /// The answers in declaration order, first match wins; empty for a plain, untemplated action (`response`).
    var rules: [ActionRule] = []
    /// True when written as `{"responses": [...]}`: each answer's JSON path is `…/responses/<i>/response`, even for
    /// a single answer without `when`.
    var isMatched = false

    /// The problems its answers declare (`{"when": …, "problem": {…}}`): legal outcomes of the action, which
    /// `flow-bff verify --pages` expects rather than reports.
    public var declaredProblems: [ProblemDetails] {
        rules.compactMap { if case .problem(let problem) = $0.answer { problem } else { nil } }
    }

    /// Every response it can answer with, placeholders unfilled (for the widgets its answers can bring).
    var responses: [ActionResponse] {
        guard !rules.isEmpty else { return [response] }
        return rules.compactMap {
            if case .response(let response, _) = $0.answer { response } else { nil }
        }
    }
}
