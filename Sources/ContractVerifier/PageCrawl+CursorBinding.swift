import Foundation
import PageModel
import PageStore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension PageCrawl {
    /// Another client's declaration, for postbacks sent with other headers: an old Android app that renders text
    /// only.
    static let otherClient = "platform=android; version=1.0.0; widgets=text@1"

    /// The cursor binds the profile and locale of its first page (contract § 17, "every chunk is resolved like its
    /// first page even if the next request omits the header"; § 18, "cursors bind it"): the first postback of a
    /// page, sent again by a device that lost its headers and with another client's headers, brings the same chunk.
    func checkCursorBinding(_ request: PageRequest, original: [UInt8]) async {
        let client = ClientCapabilities.headerName
        await checkRebound(
            request, original: original, label: "without \(client) and Accept-Language",
            removing: [client, "Accept-Language"])
        await checkRebound(
            request, original: original, label: "with \(client): \(Self.otherClient) and Accept-Language: de-AT",
            headers: [client: Self.otherClient, "Accept-Language": "de-AT"])
    }

    /// Sends `request` (a next page) with `headers` set and `removing` left out: the answer must be `original`'s
    /// chunk (``ViolationCode/cursorNotBound``), or a well-formed `410 cursor_expired` for a page that changed.
    func checkRebound(
        _ request: PageRequest, original: [UInt8], label: String, headers: [String: String] = [:],
        removing: [String] = []
    ) async {
        await resend(
            loader.http.urlRequest(for: request), original: original,
            request: loader.describe(request) + " (\(label))", what: "the postback sent \(label)",
            code: ViolationCode.cursorNotBound, headers: ["Accept-Encoding": "identity"].merging(headers) { $1 },
            removing: removing)
    }

    /// A `410 cursor_expired` says the page version a postback was issued for no longer exists (contract § 13): the
    /// page must have changed since the first load. Asked for again now, an unchanged page makes the 410 a postback
    /// that works once and fails when sent again — as a device sends it after a timeout.
    /// The first chunk is all the crawl compares of the page, so a new `ETag` or a new postback (a server's cursor
    /// names its page version: an edit in a later chunk) count as a change too.
    func checkExpiryIsReal(request: String) async {
        guard let first = firstAnswer, let before = try? decoder.decodePage(first.body).value,
            let now = try? await probe.send(
                loader.http.urlRequest(for: initialRequest), headers: ["Accept-Encoding": "identity"]),
            now.status == 200, let after = try? decoder.decodePage(now.body).value,
            after.withoutPostbacks == before.withoutPostbacks, after.pagination == before.pagination,
            now.header("ETag") == first.header("ETag")
        else { return }
        record(
            ViolationCode.replayMismatch, "replay", request: request,
            message:
                "a postback answered before was answered 410 cursor_expired when sent again, but the page has not changed: cursor_expired is for a page version that no longer exists",
            expected: "the same chunk", actual: "410 cursor_expired")
    }

    /// A chunk of a localized page stays in the first page's locale (contract § 18): the locale it names (envelope
    /// `locale`, else `Content-Language`) is the first answer's, and the two agree.
    func checkChunkLocale(_ chunk: HTTPProbe.Response, request: String) {
        let named = Variant.locale(ofEnvelope: chunk.body)
        checkLocale(chunk, locale: named, request: request)
        guard let first = firstAnswer, case .string(let locale)? = Variant.locale(ofEnvelope: first.body),
            let chunkLocale = named?.stringValue ?? chunk.header("Content-Language"),
            chunkLocale.lowercased() != locale.lowercased()
        else { return }
        record(
            ViolationCode.localeMismatch, "replay", request: request, path: "/locale",
            message: "the first page is in \(locale) but its chunk in \(chunkLocale): the cursor binds the locale",
            expected: locale, actual: chunkLocale)
    }
}
