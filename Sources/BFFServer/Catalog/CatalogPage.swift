import HTTPCore
import PageModel

/// One servable page: the normalised document, its settings, its content version and the api actions it declares.
public struct CatalogPage: Sendable {
    public var page: PageModel
    /// Sections per chunk; 0 serves the whole page in the first response.
    public var pageSize: Int
    public var cacheControl: String { didSet { headerBlock = Self.headerBlock(cacheControl, strings) } }
    /// Content version: the first 16 hex digits of the SHA-256 of the encoded page and its page size. Cursors bind
    /// it, so a cursor issued before an edit is answered with `cursor_expired`.
    public var version: String
    /// Names of the api actions this page file declares.
    public var actionNames: [String]
    /// The file it came from, relative to the pages directory (empty for programmatic pages).
    public var file: String
    /// Localized strings for the page's `$l10n:` markers (`server.strings`), when it has any.
    public var strings: LocalizedStrings? { didSet { headerBlock = Self.headerBlock(cacheControl, strings) } }
    /// ``responseHeaders(locale:)`` serialized once, for pages without strings (their headers never vary).
    private(set) var headerBlock: HTTPHeaderBlock?
    /// Documents served instead of this one for matching query parameters (`server.variants`), first match wins.
    var variants: [PageVariant] = []

    public init(
        page: PageModel, pageSize: Int, cacheControl: String, actionNames: [String] = [], file: String = "",
        strings: LocalizedStrings? = nil
    ) {
        self.page = page
        self.pageSize = pageSize
        self.cacheControl = cacheControl
        self.actionNames = actionNames
        self.file = file
        self.strings = strings
        headerBlock = Self.headerBlock(cacheControl, strings)
        // The encoded page is hashed as it is written, a section at a time: a long page never exists as one buffer.
        let digest = Crypto.sha256 { feed in
            page.encoded(into: feed)
            feed(Array("|\(pageSize)".utf8))
            if let strings { feed(strings.fingerprint) }
        }
        self.version = Crypto.hex(digest.prefix(8))
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

    /// Every response it can answer with, placeholders unfilled (for the widgets its answers can bring).
    var responses: [ActionResponse] {
        guard !rules.isEmpty else { return [response] }
        return rules.compactMap {
            if case .response(let response, _) = $0.answer { response } else { nil }
        }
    }
}
