import Foundation
import PageModel
import PageStore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension PageCrawl {
    /// The `Accept-Language` values every page is fetched with, as devices in many regions send them: an exact
    /// tag, a regional tag that falls back to its language, and one no server supports.
    static let probeLanguages = ["en", "de-AT", "zz-ZZ"]

    /// The language no server supports: it must be answered in the default locale (contract § 18).
    static let unsupportedLanguage = "zz-ZZ"

    /// A small, valid `X-Flow-Client` declaration (contract § 17).
    /// It declares a platform only: every type at every version, so the page resolves to everything it holds
    /// (a narrower profile could legally drop a whole first chunk; `--capabilities` crawls as a real old app).
    static let probeClient = "platform=ios"

    /// A parameter no version of the contract defines: servers must ignore it (contract § 17, "unknown names
    /// ignored (clients may send more later)").
    static let unknownClientParameter = "flow-bff-verify-probe=1"

    /// One way another device asks for the first page: the headers it sets and the ones it does not send.
    struct VariantProbe {
        /// What the probe changes, for messages: `Accept-Language: de-AT`, `no Accept-Language`.
        var label: String
        /// The request header the answer may depend on (the one `Vary` must name).
        var header: String
        var headers: [String: String] = [:]
        var removing: [String] = []
        /// Why the probe must be answered 200, when that is a rule of its own.
        var rule: String?
    }

    /// The variant probes: each of ``probeLanguages``, no `Accept-Language` at all (which teaches the crawl the
    /// server's default locale), and the first page for another client — ``probeClient`` (or, with
    /// `--capabilities`, no `X-Flow-Client`: the unresolved page) and the same declaration with an unknown
    /// parameter.
    var variantProbes: [VariantProbe] {
        let language = "Accept-Language"
        let client = ClientCapabilities.headerName
        var probes = Self.probeLanguages.map {
            VariantProbe(label: "\(language): \($0)", header: language, headers: [language: $0])
        }
        probes.append(VariantProbe(label: "no \(language)", header: language, removing: [language]))
        let declaration = configuration.capabilities?.header ?? Self.probeClient
        if configuration.capabilities != nil {
            probes.append(VariantProbe(label: "no \(client)", header: client, removing: [client]))
        } else {
            probes.append(
                VariantProbe(label: "\(client): \(declaration)", header: client, headers: [client: declaration]))
        }
        probes.append(
            VariantProbe(
                label: "\(client) with an unknown parameter", header: client,
                headers: [client: declaration + "; " + Self.unknownClientParameter],
                rule: "unknown X-Flow-Client parameters must be ignored (contract § 17)"))
        return probes
    }

    /// Fetches the first page as other devices would ask for it (``variantProbes``) and checks each answer like the
    /// first load: 200, `application/json`, a page that decodes and lints without error. When an answer differs
    /// from `identity` (the plain answer) and the difference reproduces, `Vary` must name the header it depends on
    /// and the plain answer's `ETag` must not revalidate it (``checkVariantETag``); a localized variant's first
    /// chunk must stay in its locale (``checkLocalizedChunk``). A gzipped answer must name `Accept-Encoding`. An
    /// unsupported language must be answered in the locale a request without `Accept-Language` gets, and every
    /// `X-Flow-Client` answer must be the contract's resolution of the unresolved page (``checkResolutions``).
    func checkVariants(identity: HTTPProbe.Response, gzip: HTTPProbe.Response, urlRequest: URLRequest) async {
        let request = loader.describe(initialRequest)
        if gzip.header("Content-Encoding")?.lowercased().contains("gzip") ?? false {
            checkVary(gzip, names: "Accept-Encoding", request: request + " (Accept-Encoding: gzip)")
        }
        let plain = (try? decoder.decodePage(identity.body).value.withoutPostbacks).map {
            Variant(page: $0, envelope: identity.body)
        }
        checkLocale(identity, locale: plain?.locale, request: request)
        // Whether the plain answer repeats itself: a page with live data (an upstream's stock, a timed-out
        // degradable section) can differ between two identical requests, which says nothing about a header.
        var plainRepeats: Bool?
        var answers: [String: VariantAnswer] = [:]
        for variantProbe in variantProbes {
            let variantRequest = request + " (\(variantProbe.label))"
            let headers = ["Accept-Encoding": "identity"].merging(variantProbe.headers) { $1 }
            let response: HTTPProbe.Response
            do {
                response = try await probe.send(urlRequest, headers: headers, removing: variantProbe.removing)
            } catch {
                record(ViolationCode.pageFailed, "http", request: variantRequest, message: "\(error)")
                continue
            }
            guard response.status == 200 else {
                record(
                    ViolationCode.pageFailed, "http", request: variantRequest,
                    message: "the page answered \(response.status) to \(variantProbe.label)"
                        + (variantProbe.rule.map { ": \($0)" } ?? ""),
                    expected: "200", actual: String(response.status))
                continue
            }
            checkContentType(response, expected: "application/json", check: "http", request: variantRequest)
            let decoded: Decoded<PageModel>
            do {
                decoded = try decoder.decodePage(response.body)
            } catch {
                record(
                    ViolationCode.pageFailed, "http", request: variantRequest,
                    message: "the answer to \(variantProbe.label) does not decode: \(error)")
                continue
            }
            let variant = Variant(page: decoded.value.withoutPostbacks, envelope: response.body)
            answers[variantProbe.label] = VariantAnswer(response: response, page: decoded.value, variant: variant)
            checkLocale(response, locale: variant.locale, request: variantRequest)
            if response.body == identity.body, let etag = identity.header("ETag"), let tag = response.header("ETag"),
                tag != etag
            {
                record(
                    ViolationCode.etagInconsistent, "http", request: variantRequest,
                    message: "the same bytes came with another ETag: tags must be stable for identical bodies",
                    expected: etag, actual: tag)
            }
            // The same document as the plain answer was checked by the load; only another one needs checking.
            guard variant != plain else { continue }
            record(decoded.diagnostics, check: "http", request: variantRequest)
            lint(decoded.value, check: "http", request: variantRequest)
            // The answer depends on the header when the difference reproduces: the plain answer and this one,
            // each asked again, come back the same.
            if plainRepeats == nil {
                plainRepeats = await fetchVariant(urlRequest, headers: ["Accept-Encoding": "identity"]) == plain
            }
            guard plainRepeats == true,
                await fetchVariant(urlRequest, headers: headers, removing: variantProbe.removing) == variant
            else { continue }
            checkVary(response, names: variantProbe.header, request: variantRequest)
            await checkVariantETag(
                plain: identity, variant: response, urlRequest: urlRequest, probe: variantProbe,
                request: variantRequest)
            if case .string(let locale)? = variant.locale, variant.locale != plain?.locale {
                await checkLocalizedChunk(
                    decoded.value, locale: locale, probe: variantProbe, request: variantRequest)
            }
        }
        checkDefaultLocale(answers, request: request)
        await checkResolutions(identity: identity, answers: answers, urlRequest: urlRequest, request: request)
    }

    /// The first page asked again with `headers`, as a ``Variant``; nil when it fails or does not decode.
    private func fetchVariant(_ urlRequest: URLRequest, headers: [String: String], removing: [String] = []) async
        -> Variant?
    {
        guard let response = try? await probe.send(urlRequest, headers: headers, removing: removing),
            response.status == 200, let page = try? decoder.decodePage(response.body).value.withoutPostbacks
        else { return nil }
        return Variant(page: page, envelope: response.body)
    }

    /// Each variant has its own `ETag` (contract § 17, "each profile has its own ETag"; § 18, bodies are cached
    /// per locale): a variant that holds another document must neither carry the plain answer's tag nor be
    /// answered 304 to it — a device (or a cache) holding the plain answer would keep the wrong variant.
    func checkVariantETag(
        plain: HTTPProbe.Response, variant: HTTPProbe.Response, urlRequest: URLRequest,
        probe variantProbe: VariantProbe,
        request: String
    ) async {
        guard let etag = plain.header("ETag") else { return }
        if variant.header("ETag") == etag {
            record(
                ViolationCode.etagInconsistent, "http", request: request,
                message:
                    "the answer to \(variantProbe.label) holds another document than the plain answer but the same ETag",
                expected: "an ETag of its own", actual: etag)
            return
        }
        let headers = ["Accept-Encoding": "identity", "If-None-Match": etag].merging(variantProbe.headers) { $1 }
        guard
            let conditional = try? await probe.send(urlRequest, headers: headers, removing: variantProbe.removing),
            conditional.status == 304
        else { return }
        record(
            ViolationCode.etagInconsistent, "http", request: request + " (If-None-Match: \(etag))",
            message:
                "If-None-Match with the plain answer's ETag was answered 304 to \(variantProbe.label), whose document differs: the device would keep the wrong variant",
            expected: "200", actual: "304")
    }

    /// An unsupported language is answered in the default locale (contract § 18, "anything else →
    /// `defaultLocale`"), which the crawl learns from the answer to a request without `Accept-Language`.
    func checkDefaultLocale(_ answers: [String: VariantAnswer], request: String) {
        guard case .string(let defaultLocale)? = answers["no Accept-Language"]?.variant.locale,
            case .string(let chosen)? = answers["Accept-Language: \(Self.unsupportedLanguage)"]?.variant.locale,
            chosen.lowercased() != defaultLocale.lowercased()
        else { return }
        record(
            ViolationCode.localeMismatch, "http", request: request + " (Accept-Language: \(Self.unsupportedLanguage))",
            path: "/locale",
            message:
                "a language the server does not support was answered in \(chosen), not in the default locale (the one a request without Accept-Language gets)",
            expected: defaultLocale, actual: chosen)
    }

    /// A localized first page continues in its locale (contract § 18, "cursors bind it"): its first chunk, asked
    /// for as the same device, names no other locale (envelope `locale`, `Content-Language`), and the same postback
    /// sent without `Accept-Language` brings the same chunk.
    func checkLocalizedChunk(_ page: PageModel, locale: String, probe variantProbe: VariantProbe, request: String) async
    {
        guard page.hasMore, let postback = page.pagination?.postback else { return }
        let next = PageRequest(pageID: target.pageID, kind: .nextPage(postback: postback))
        let urlRequest = loader.http.urlRequest(for: next)
        let chunkRequest = loader.describe(next) + " (\(variantProbe.label))"
        let headers = ["Accept-Encoding": "identity"].merging(variantProbe.headers) { $1 }
        guard let chunk = try? await probe.send(urlRequest, headers: headers, removing: variantProbe.removing) else {
            return
        }
        guard chunk.status == 200 else {
            record(
                ViolationCode.paginationFailed, "http", request: chunkRequest,
                message: "the next page of the page asked for with \(variantProbe.label) answered \(chunk.status)",
                expected: "200", actual: String(chunk.status))
            return
        }
        let named = Variant.locale(ofEnvelope: chunk.body)
        checkLocale(chunk, locale: named, request: chunkRequest)
        let chunkLocale = named?.stringValue ?? chunk.header("Content-Language")
        if let chunkLocale, chunkLocale.lowercased() != locale.lowercased() {
            record(
                ViolationCode.localeMismatch, "http", request: chunkRequest, path: "/locale",
                message:
                    "the first page is in \(locale) but its next chunk in \(chunkLocale): the cursor binds the locale",
                expected: locale, actual: chunkLocale)
        }
        await checkRebound(next, original: chunk.body, label: "without Accept-Language", removing: ["Accept-Language"])
    }
}

/// One variant answer of the first page: the response, its page (cursors kept) and its ``Variant``.
struct VariantAnswer {
    var response: HTTPProbe.Response
    var page: PageModel
    var variant: Variant
}

extension PageCrawl {
    /// A localized answer names its locale twice, in the envelope's `locale` and in `Content-Language` (contract
    /// § 18): they must agree.
    func checkLocale(_ response: HTTPProbe.Response, locale: JSONValue?, request: String) {
        guard case .string(let locale)? = locale else { return }
        let header = response.header("Content-Language")
        guard header?.lowercased() != locale.lowercased() else { return }
        record(
            ViolationCode.localeMismatch, "http", request: request, path: "/locale",
            message: "the envelope's locale and the Content-Language header disagree", expected: locale,
            actual: header.map { "Content-Language: \($0)" } ?? "(no Content-Language)")
    }

    /// `response` depends on the request header `name`: its `Vary` must list it (or be `*`), or caches in
    /// between hand one device's variant to another.
    func checkVary(_ response: HTTPProbe.Response, names name: String, request: String) {
        let listed = (response.header("Vary") ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard !listed.contains(name.lowercased()), !listed.contains("*") else { return }
        record(
            ViolationCode.varyIncomplete, "http", request: request,
            message: "the answer depends on \(name) but Vary does not name it", expected: "Vary: …, \(name)",
            actual: response.header("Vary").map { "Vary: \($0)" } ?? "(no Vary)")
    }
}

/// What a variant answer holds for a device: the document (cursors aside) and the envelope members that say how it
/// was resolved (`locale`, `degradations`).
struct Variant: Equatable {
    var page: PageModel
    var locale: JSONValue?
    var degradations: JSONValue?

    init(page: PageModel, envelope: [UInt8]) {
        self.page = page
        let root = try? JSONParser().parse(envelope)
        locale = root?["locale"]
        degradations = root?["degradations"]
    }

    /// The envelope's `locale` member, if the bytes parse.
    static func locale(ofEnvelope bytes: [UInt8]) -> JSONValue? {
        (try? JSONParser().parse(bytes))?["locale"]
    }
}
