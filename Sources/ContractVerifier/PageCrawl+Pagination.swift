import Foundation
import PageModel
import PageStore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension PageCrawl {
    /// Paginates to the end through ``PageStore/loadNextPage()``, bounded by `maximumChunks`: every chunk must
    /// load, bring no error diagnostic or repeated id, replay identically, and the cursors must end with
    /// `hasMore == false`. Widget state set before the first next page must survive it; the first postback is
    /// also sent tampered and must be rejected.
    func paginate(_ store: PageStore, log: DiagnosticLog) async {
        guard let first = store.peek(\.page), first.hasMore else { return }
        begin("pagination")
        begin("replay")
        // A device can act on the first page before it asks for more: its actions run against that document.
        await fireActions(at: 0, widgets: DocumentScan(first).apiActions, store: store, log: log)
        let probeWidget = first.firstTopLevelWidget
        if let probeWidget { store.stateStore.set(Self.probeValue, widgetID: probeWidget.id, key: Self.probeKey) }
        var seenPostbacks: Set<String> = []
        var diagnosticsSeen = log.count
        var chunks = 0
        // Only scalars of the document are read between chunks: holding the document across `loadNextPage()` would
        // make the store copy every section to append a chunk.
        while store.peek(\.page?.hasMore) == true {
            guard let postback = store.peek(\.page?.pagination?.postback) else {
                record(
                    ViolationCode.paginationNotTerminated, "pagination", request: describeLastRequest(),
                    path: "/pagination", message: "hasMore is true but there is no postback to continue with")
                break
            }
            guard seenPostbacks.insert(postback).inserted else {
                record(
                    ViolationCode.paginationNotTerminated, "pagination", request: describeLastRequest(),
                    path: "/pagination/postback",
                    message:
                        "the postback repeats after \(chunks) chunks: the cursors loop and never reach hasMore false")
                break
            }
            guard chunks < configuration.maximumChunks else {
                record(
                    ViolationCode.paginationNotTerminated, "pagination", request: describeLastRequest(),
                    path: "/pagination/hasMore",
                    message: "still hasMore after \(chunks) chunks (the limit, --max-chunks)")
                break
            }
            let request = PageRequest(pageID: target.pageID, kind: .nextPage(postback: postback))
            let requestText = loader.describe(request)
            if chunks == 0 { await checkTamperedPostback(postback) }
            let sectionsBefore = store.peek(\.page?.sections.count) ?? 0
            await store.loadNextPage()
            chunks += 1
            if chunks % VerifierProgress.chunkInterval == 0 {
                verifier.reportProgress(.chunks, page: target.description, chunks: chunks)
            }
            if let error = store.peek(\.paginationStatus.error) {
                record(ViolationCode.paginationFailed, "pagination", request: requestText, message: error.message)
                break
            }
            record(log.since(diagnosticsSeen), check: "pagination", request: requestText)
            let arrived = store.peek(\.page).map { Array($0.sections.dropFirst(sectionsBefore)) } ?? []
            lint(chunk: arrived, check: "pagination", request: requestText)
            if let bytes = loader.takeNextPageBytes() {
                await checkReplay(request, original: bytes)
                await checkPostSpelling(postback, original: bytes)
                if chunks == 1 { await checkCursorBinding(request, original: bytes) }
            }
            if chunks == 1, let probeWidget,
                store.stateStore.peek(widgetID: probeWidget.id, key: Self.probeKey, as: String.self) != Self.probeValue
            {
                record(
                    ViolationCode.widgetStateLostOnPagination, "lifecycle", request: requestText,
                    message: "state of widget \"\(probeWidget.id)\" set before loadNextPage() is gone after it",
                    expected: Self.probeValue, actual: "(absent)")
            }
            // The device may act again before the next chunk: the chunk's actions run against this document.
            if store.peek(\.page)?.hasMore ?? false {
                let widgets = arrived.flatMap(\.widgets)
                await fireActions(
                    at: chunks, widgets: DocumentScan(widgets: widgets).apiActions, store: store, log: log)
            }
            diagnosticsSeen = log.count
            log.forget(before: diagnosticsSeen)
        }
        report.cursors = chunks
        if chunks > 0 { begin("lifecycle") }
    }

    func describeLastRequest() -> String {
        guard let postback = storeLastPostback else { return loader.describe(initialRequest) }
        return loader.describe(PageRequest(pageID: target.pageID, kind: .nextPage(postback: postback)))
    }

    /// The postback of the latest next-page request the loader sent, if any.
    var storeLastPostback: String? {
        if case .nextPage(let postback)? = loader.lastRequest?.kind { return postback }
        return nil
    }

    /// Sends the postback again with raw HTTP: the answer must be the same chunk (cursors aside).
    func checkReplay(_ request: PageRequest, original: [UInt8]) async {
        await resend(
            loader.http.urlRequest(for: request), original: original, request: loader.describe(request),
            what: "replaying the postback", code: ViolationCode.replayMismatch, checksLocale: true)
    }

    /// Sends a postback again (`urlRequest`, with `headers` set and `removing` left out): the answer must be
    /// `original`'s chunk, reported as `code` — or a well-formed `410 cursor_expired` for a page that has changed
    /// (``checkExpiryIsReal(request:)``). With `checksLocale`, a chunk that names a locale must name the first
    /// page's (``checkChunkLocale(_:request:)``).
    func resend(
        _ urlRequest: URLRequest, original: [UInt8], request requestText: String, what: String, code: String,
        headers: [String: String] = [:], removing: [String] = [], checksLocale: Bool = false
    ) async {
        let response: HTTPProbe.Response
        do {
            response = try await probe.send(urlRequest, headers: headers, removing: removing)
        } catch {
            record(code, "replay", request: requestText, message: "\(what): no answer: \(error)")
            return
        }
        checkRequestID(response, check: "replay", request: requestText)
        if response.status == 410 {
            checkProblem(response, check: "replay", request: requestText, expectedCode: "cursor_expired")
            await checkExpiryIsReal(request: requestText)
            return
        }
        guard response.status == 200 else {
            record(
                code, "replay", request: requestText,
                message: "the first request was answered 200, \(what) \(response.status)", expected: "200",
                actual: String(response.status))
            return
        }
        checkContentType(response, expected: "application/json", check: "replay", request: requestText)
        if checksLocale { checkChunkLocale(response, request: requestText) }
        compareChunk(response.body, with: original, request: requestText, what: what, code: code)
    }

    /// `answer` must hold the chunk `original` holds, cursors aside (a server may mint new ones per request); a
    /// difference is reported as `code`.
    func compareChunk(
        _ answer: [UInt8], with original: [UInt8], request: String, what: String,
        code: String = ViolationCode.replayMismatch
    ) {
        guard answer != original else { return }
        guard let first = try? decoder.decodeNextPage(original).value else {
            return  // the crawl already reported the undecodable chunk
        }
        let second: NextPage
        do {
            second = try decoder.decodeNextPage(answer).value
        } catch {
            record(code, "replay", request: request, message: "\(what) returned a chunk that does not decode: \(error)")
            return
        }
        let differences = JSONDiff.differences(
            expected: Envelope.nextPage(first.withoutPostback).json,
            actual: Envelope.nextPage(second.withoutPostback).json)
        guard let difference = differences.first else { return }
        record(
            code, "replay", request: request, path: difference.path,
            message: "\(what) returned a different chunk (\(differences.count) differences)",
            expected: difference.expected, actual: difference.actual)
    }

    /// Sends the postback the other way the contract allows, `POST /v1/pages/{pageID}/next` with
    /// `{"postback": …}` (for postbacks too long for a URL): the answer must be the chunk the `GET` brought.
    func checkPostSpelling(_ postback: String, original: [UInt8]) async {
        let get = loader.http.urlRequest(for: PageRequest(pageID: target.pageID, kind: .nextPage(postback: postback)))
        var post = get
        if let url = get.url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
            components.percentEncodedQuery = nil
            post.url = components.url
        }
        post.httpMethod = "POST"
        post.httpBody = Data(JSONWriter().write(["postback": .string(postback)] as JSONValue))
        post.setValue("application/json", forHTTPHeaderField: "Content-Type")
        await resend(
            post, original: original, request: HTTPProbe.describe(post) + " {\"postback\": …}",
            what: "the POST spelling of the postback", code: ViolationCode.replayMismatch)
    }

    /// Sends the first postback with one character changed: the server must reject it with a 4xx problem+json.
    func checkTamperedPostback(_ postback: String) async {
        begin("tampered_cursor")
        let tampered = Self.tamper(postback)
        let request = PageRequest(pageID: target.pageID, kind: .nextPage(postback: tampered))
        let requestText = loader.describe(request)
        let response: HTTPProbe.Response
        do {
            response = try await probe.send(loader.http.urlRequest(for: request))
        } catch {
            record(
                ViolationCode.invalidProblemResponse, "tampered_cursor", request: requestText,
                message: "no HTTP answer to a tampered postback: \(error)")
            return
        }
        checkRequestID(response, check: "tampered_cursor", request: requestText)
        if (200..<400).contains(response.status) {
            record(
                ViolationCode.tamperedCursorAccepted, "tampered_cursor", request: requestText,
                message: "a postback with one character changed was answered \(response.status)",
                expected: "4xx application/problem+json", actual: String(response.status))
            return
        }
        checkProblem(response, check: "tampered_cursor", request: requestText)
    }

    /// `postback` with its middle character replaced by another URL-safe one.
    static func tamper(_ postback: String) -> String {
        var characters = Array(postback)
        guard !characters.isEmpty else { return "tampered" }
        let index = characters.count / 2
        characters[index] = characters[index] == "A" ? "B" : "A"
        return String(characters)
    }
}

extension PageModel {
    /// The first widget of the header, sections or footer.
    var firstTopLevelWidget: Widget? {
        header.first ?? sections.lazy.compactMap(\.widgets.first).first ?? footer.first
    }
}
