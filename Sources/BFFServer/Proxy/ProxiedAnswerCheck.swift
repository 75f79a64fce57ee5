import PageModel

/// The live contract check of one upstream answer (docs/proxy.md, "What is validated"): decoded with PageModel and
/// linted with the rules `flow-bff check` applies to a page file — the decoder's diagnostics (`duplicate_id`,
/// `missing_postback`, unknown types, …), ``PageValidator``'s, and the authoring rule for types — plus what the
/// route expects of the envelope: a `page` for a first load, a `nextPage` for a next chunk, an `actionResponse` for
/// an action, a problem document with a `code` for an error status. Pure: bytes in, diagnostics out.
struct ProxiedAnswerCheck: Sendable {
    let catalog: WidgetCatalog
    let authoring: AuthoringTypes

    init(pages: BFFConfiguration.Pages) {
        catalog = .standard
        authoring = pages.authoringTypes
    }

    /// The findings on an answer with `status` and `contentType` to a request for `target`; empty when it obeys the
    /// contract. A 304 has no body to check.
    func check(_ target: ProxyTarget, status: Int, contentType: String?, body: [UInt8]) -> [Diagnostic] {
        if status == 304 || (300..<400).contains(status) { return [] }
        let type = contentType.map { MediaType.essence(of: $0) } ?? ""
        if !(200..<300).contains(status) { return checkProblem(status: status, type: type, body: body) }
        guard type == "application/json" else {
            return [
                .error(
                    "unexpected_content_type", .root,
                    "a \(status) answer is application/json, found \(contentType.map { "\"\($0)\"" } ?? "none")")
            ]
        }
        let decoder = PageDecoder(catalog: catalog)
        let validator = PageValidator(catalog: catalog)
        let json: JSONValue
        do { json = try decoder.parse(body) } catch { return [error.diagnostic] }
        var diagnostics: [Diagnostic]
        do {
            let decoded = try decoder.decodeEnvelope(json: json)
            diagnostics = decoded.diagnostics
            switch (target, decoded.value) {
            case (.page, .page(let page)):
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
        return diagnostics
    }

    static func expectedKind(_ target: ProxyTarget) -> Envelope.Kind {
        switch target {
        case .page: .page
        case .nextPage: .nextPage
        case .action: .actionResponse
        }
    }

    /// An error answer is a problem document (docs/contract.md § 13): `application/problem+json`, an object whose
    /// `status` is the answer's and whose `code` is a snake_case string.
    private func checkProblem(status: Int, type: String, body: [UInt8]) -> [Diagnostic] {
        guard type == ProblemDetails.mediaType else {
            return [
                .error(
                    "not_a_problem", .root,
                    "a \(status) answer is application/problem+json, found \(type.isEmpty ? "no type" : type)")
            ]
        }
        guard case .object(let object)? = try? JSONParser().parse(body) else {
            return [.error("invalid_problem", .root, "a problem document is a JSON object")]
        }
        var diagnostics: [Diagnostic] = []
        if object["code"]?.stringValue?.isEmpty != false {
            diagnostics.append(.error("invalid_problem", "/code", "a problem document has a non-empty string code"))
        }
        if let sent = object["status"], sent.intValue != status {
            diagnostics.append(
                .error("invalid_problem", "/status", "status \(sent) differs from the HTTP status \(status)"))
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
