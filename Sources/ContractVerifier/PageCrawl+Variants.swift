import Foundation
import PageModel

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension PageCrawl {
    /// The `Accept-Language` values every page is fetched with, as devices in many regions send them: an exact
    /// tag, a regional tag that falls back to its language, and one no server supports.
    static let probeLanguages = ["en", "de-AT", "zz-ZZ"]

    /// A small, valid `X-Flow-Client` declaration (contract § 17).
    /// It declares a platform only: every type at every version, so the page resolves to everything it holds
    /// (a narrower profile could legally drop a whole first chunk; `--capabilities` crawls as a real old app).
    static let probeClient = "platform=ios"

    /// Fetches the first page as other devices would ask for it — each of ``probeLanguages`` and, unless the
    /// crawl declares a client itself, ``probeClient`` — and checks each answer like the first load: 200,
    /// `application/json`, a page that decodes and lints without error. When an answer differs from
    /// `identity` (the plain answer), `Vary` must name the header it depends on; a gzipped answer must name
    /// `Accept-Encoding`.
    func checkVariants(identity: HTTPProbe.Response, gzip: HTTPProbe.Response, urlRequest: URLRequest) async {
        let request = loader.describe(initialRequest)
        if gzip.header("Content-Encoding")?.lowercased().contains("gzip") ?? false {
            checkVary(gzip, names: "Accept-Encoding", request: request + " (Accept-Encoding: gzip)")
        }
        let plain = (try? decoder.decodePage(identity.body).value.withoutPostbacks).map {
            Variant(page: $0, envelope: identity.body)
        }
        checkLocale(identity, variant: plain, request: request)
        // Whether the plain answer repeats itself: a page with live data (an upstream's stock, a timed-out
        // degradable section) can differ between two identical requests, which says nothing about a header.
        var plainRepeats: Bool?
        var variants = Self.probeLanguages.map { ("Accept-Language", $0) }
        if configuration.capabilities == nil { variants.append((ClientCapabilities.headerName, Self.probeClient)) }
        for (name, value) in variants {
            let variantRequest = request + " (\(name): \(value))"
            let response: HTTPProbe.Response
            do {
                response = try await probe.send(urlRequest, headers: ["Accept-Encoding": "identity", name: value])
            } catch {
                record(ViolationCode.pageFailed, "http", request: variantRequest, message: "\(error)")
                continue
            }
            guard response.status == 200 else {
                record(
                    ViolationCode.pageFailed, "http", request: variantRequest,
                    message: "the page answered \(response.status) to \(name): \(value)", expected: "200",
                    actual: String(response.status))
                continue
            }
            checkContentType(response, expected: "application/json", check: "http", request: variantRequest)
            let decoded: Decoded<PageModel>
            do {
                decoded = try decoder.decodePage(response.body)
            } catch {
                record(
                    ViolationCode.pageFailed, "http", request: variantRequest,
                    message: "the answer to \(name): \(value) does not decode: \(error)")
                continue
            }
            // The same document as the plain answer was checked by the load; only another one needs checking.
            let variant = Variant(page: decoded.value.withoutPostbacks, envelope: response.body)
            checkLocale(response, variant: variant, request: variantRequest)
            guard variant != plain else { continue }
            record(decoded.diagnostics, check: "http", request: variantRequest)
            lint(decoded.value, check: "http", request: variantRequest)
            // The answer depends on the header when the difference reproduces: the plain answer and this one,
            // each asked again, come back the same.
            if plainRepeats == nil {
                plainRepeats = await fetchVariant(urlRequest, headers: ["Accept-Encoding": "identity"]) == plain
            }
            guard plainRepeats == true,
                await fetchVariant(urlRequest, headers: ["Accept-Encoding": "identity", name: value]) == variant
            else { continue }
            checkVary(response, names: name, request: variantRequest)
        }
    }

    /// The first page asked again with `headers`, as a ``Variant``; nil when it fails or does not decode.
    private func fetchVariant(_ urlRequest: URLRequest, headers: [String: String]) async -> Variant? {
        guard let response = try? await probe.send(urlRequest, headers: headers), response.status == 200,
            let page = try? decoder.decodePage(response.body).value.withoutPostbacks
        else { return nil }
        return Variant(page: page, envelope: response.body)
    }

    /// A localized answer names its locale twice, in the envelope's `locale` and in `Content-Language` (contract
    /// § 18): they must agree.
    func checkLocale(_ response: HTTPProbe.Response, variant: Variant?, request: String) {
        guard case .string(let locale)? = variant?.locale else { return }
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
}
