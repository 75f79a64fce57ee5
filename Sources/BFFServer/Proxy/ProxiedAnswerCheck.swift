import PageModel

/// The live contract check of one upstream answer (docs/proxy.md, "What is validated"): decoded with PageModel and
/// linted with the rules `flow-bff check` applies to a page file — the decoder's diagnostics (`duplicate_id`,
/// `missing_postback`, unknown types, …), ``PageValidator``'s, and the authoring rule for types — plus the
/// per-answer rules of `flow-bff verify`, under its codes: the envelope the route expects (a `page` for a first
/// load, whose id is the requested one — `page_id_mismatch` —, a `nextPage` for a next chunk, an `actionResponse`
/// for an action), `wrong_content_type`, `request_id_not_echoed`, and for an error status a problem document whose
/// `status` matches (`invalid_problem_response`). Pure: bytes in, diagnostics out.
struct ProxiedAnswerCheck: Sendable {
    let catalog: WidgetCatalog
    let authoring: AuthoringTypes

    init(pages: BFFConfiguration.Pages) {
        catalog = .standard
        authoring = pages.authoringTypes
    }

    /// The findings on an answer with `status` and `contentType` to a request for `target`; empty when it obeys the
    /// contract. A redirect or a 304 has no body to check.
    /// - Parameters:
    ///   - requestID: the `X-Request-ID` the proxy sent; `echoed`, the one the answer carries.
    ///   - contentLanguage: the answer's `Content-Language`, which must name the envelope's `locale` when it has one.
    func check(
        _ target: ProxyTarget, status: Int, contentType: String?, body: [UInt8], requestID: String? = nil,
        echoed: String? = nil, contentLanguage: String? = nil
    ) -> [Diagnostic] {
        var findings: [Diagnostic] = []
        if let requestID, echoed != requestID {
            findings.append(
                .error(
                    "request_id_not_echoed", .root,
                    "the answer carries X-Request-ID \(echoed.map { "\"\($0)\"" } ?? "(none)"), not the request's \"\(requestID)\""
                ))
        }
        return findings
            + checkBody(target, status: status, contentType: contentType, body: body, language: contentLanguage)
    }

    private func checkBody(
        _ target: ProxyTarget, status: Int, contentType: String?, body: [UInt8], language: String?
    ) -> [Diagnostic] {
        if (300..<400).contains(status) { return [] }
        let type = contentType.map { MediaType.essence(of: $0) } ?? ""
        if !(200..<300).contains(status) { return checkProblem(status: status, type: type, body: body) }
        guard type == "application/json" else {
            return [
                .error(
                    "wrong_content_type", .root,
                    "a \(status) answer is application/json, found \(contentType.map { "\"\($0)\"" } ?? "none")")
            ]
        }
        let decoder = PageDecoder(catalog: catalog)
        let validator = PageValidator(catalog: catalog)
        let json: JSONValue
        do { json = try decoder.parse(body) } catch { return [error.diagnostic] }
        var diagnostics: [Diagnostic]
        var localeFinding: [Diagnostic] = []
        if case .string(let locale)? = json["locale"], language?.lowercased() != locale.lowercased() {
            localeFinding.append(
                .error(
                    "locale_mismatch", "/locale",
                    "the envelope's locale \"\(locale)\" and Content-Language \(language.map { "\"\($0)\"" } ?? "(none)") disagree"
                ))
        }
        do {
            let decoded = try decoder.decodeEnvelope(json: json)
            diagnostics = decoded.diagnostics
            switch (target, decoded.value) {
            case (.page(let requested), .page(let page)):
                if page.id != requested {
                    diagnostics.append(
                        .error(
                            "page_id_mismatch", "/page/id",
                            "a first load of \"\(requested)\" answered page \"\(page.id)\""))
                }
                diagnostics += validator.validate(page)
            case (.nextPage, .nextPage(let next)):
                for (index, section) in next.sections.enumerated() {
                    diagnostics += validator.validate(section, at: JSONPointer("/sections") / index)
                }
            case (.action, .actionResponse(let response)):
                diagnostics += validator.validate(response)
            case (_, let envelope):
                diagnostics.append(
                    .error(
                        "unexpected_kind", "/kind",
                        "\(target.route) expects kind \"\(Self.expectedKind(target).rawValue)\", found \"\(envelope.kind.rawValue)\""
                    ))
            }
        } catch {
            return [error.diagnostic]
        }
        if diagnostics.contains(where: { AuthoringTypes.reviewedCodes.contains($0.code) }) {
            diagnostics = authoring.review(diagnostics, in: json, catalog: catalog)
        }
        return localeFinding + diagnostics
    }

    static func expectedKind(_ target: ProxyTarget) -> Envelope.Kind {
        switch target {
        case .page: .page
        case .nextPage: .nextPage
        case .action: .actionResponse
        }
    }

    /// An error answer is a problem document (docs/contract.md § 13): `application/problem+json`, an object with
    /// string `type`, `title`, `detail` and `code`, whose `status` is the answer's.
    private func checkProblem(status: Int, type: String, body: [UInt8]) -> [Diagnostic] {
        guard type == ProblemDetails.mediaType else {
            return [
                .error(
                    "wrong_content_type", .root,
                    "a \(status) answer is application/problem+json, found \(type.isEmpty ? "no type" : type)")
            ]
        }
        guard case .object(let object)? = try? JSONParser().parse(body) else {
            return [.error("invalid_problem_response", .root, "a problem document is a JSON object")]
        }
        var diagnostics: [Diagnostic] = []
        for member in ["type", "title", "detail", "code"] where object[member]?.stringValue == nil {
            diagnostics.append(
                .error(
                    "invalid_problem_response", JSONPointer.root / member, "a problem document has a string \(member)"))
        }
        if object["status"]?.intValue != status {
            diagnostics.append(
                .error(
                    "invalid_problem_response", "/status",
                    "status \(object["status"].map { "\($0)" } ?? "(none)") differs from the HTTP status \(status)"))
        }
        return diagnostics
    }

    /// The `X-Flow-Contract` value for `diagnostics`: `ok`, or the counts and the first findings, e.g.
    /// `2 errors, 0 warnings; duplicate_id /page/sections/1/widgets/0/id; …` (at most three, one line).
    static func summary(_ diagnostics: [Diagnostic]) -> String {
        let errors = diagnostics.count { $0.severity == .error }
        let warnings = diagnostics.count { $0.severity == .warning }
        guard errors + warnings > 0 else { return "ok" }
        var text = "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")"
        for diagnostic in diagnostics.filter({ $0.severity != .info }).sorted(by: { $0.severity > $1.severity })
            .prefix(3)
        {
            text += "; \(diagnostic.code) \(diagnostic.path)"
        }
        return String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F }.map(Character.init))
    }
}
