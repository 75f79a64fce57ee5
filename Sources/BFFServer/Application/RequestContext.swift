import HTTPCore
import PageModel

/// The request fields flow-bff reads beyond HTTP's own, named once: every `X-Flow-*` header, the session cookie and
/// the scenario query parameter (docs/contract.md, docs/mock.md).
enum FlowHeader {
    /// The session a mock backend keeps state for, and that idempotency keys are scoped to.
    static let session = "X-Flow-Session"
    /// The scenario a mock backend serves.
    static let scenario = "X-Flow-Scenario"
    /// The network simulation a mock backend applies (docs/mock.md).
    static let mock = "X-Flow-Mock"
    /// The field a state-changing admin request carries (a web page cannot send it without a preflight).
    static let admin = "X-Flow-Admin"
    /// The client's capability declaration (docs/contract.md § 17).
    static let client = ClientCapabilities.headerName
    static let requestID = "X-Request-ID"
    /// Answer fields of mock mode.
    static let mockApplied = "X-Flow-Mock-Applied"
    static let mockStale = "X-Flow-Mock-Stale"
    static let scenarioMissing = "X-Flow-Scenario-Missing"
    /// The session when no `X-Flow-Session` is sent (a browser).
    static let sessionCookie = "flow_session"
    /// The scenario, as a query parameter (not a page parameter).
    static let scenarioQuery = "__scenario"
}

/// What flow-bff reads from a request once, where it enters the responder chain (``EdgeResponder``), and hands to
/// every responder below it: the request id, the session, the scenario, the client's declaration. Nothing below
/// reads those fields again — the session is parsed here and nowhere else (its rule is private to this type), so the
/// journal, the session store, the idempotency scope, `when` conditions, providers and handlers all see the same one.
struct RequestContext: Sendable {
    /// `X-Request-ID` when it is 1–128 visible ASCII characters, else a generated one.
    let requestID: String
    /// The session: `X-Flow-Session`, else the `flow_session` cookie — one rule for every reader — or its
    /// 400 `invalid_session` when it does not match ``SessionID/pattern``.
    private let sessionResult: Result<String?, ProblemDetails>
    /// `X-Flow-Scenario`, else `?__scenario=`; read in mock mode only (`nil` in production).
    let scenario: String?
    /// The parsed `X-Flow-Client`, or its 400 `invalid_client_header`.
    private let capabilitiesResult: Result<ClientCapabilities?, ProblemDetails>
    /// `Accept-Language`, when sent.
    let acceptLanguage: String?

    /// Reads `request`'s fields in one pass over its header section.
    /// - Parameter mock: whether the scenario is read (mock mode).
    init(_ request: borrowing HTTPRequest, mock: Bool) {
        var requestID: String?
        var session: String?
        var scenario: String?
        var client: String?
        var acceptLanguage: String?
        var cookies: [String] = []
        for field in request.headers {
            let name = field.name
            switch name.utf8.count {
            case 12 where name.asciiCaseInsensitiveEquals(FlowHeader.requestID): requestID = requestID ?? field.value
            case 14 where name.asciiCaseInsensitiveEquals(FlowHeader.session): session = session ?? field.value
            case 15 where mock && name.asciiCaseInsensitiveEquals(FlowHeader.scenario):
                scenario = scenario ?? field.value
            case 13 where name.asciiCaseInsensitiveEquals(FlowHeader.client): client = client ?? field.value
            case 15 where name.asciiCaseInsensitiveEquals("Accept-Language"):
                acceptLanguage = acceptLanguage ?? field.value
            case 6 where name.asciiCaseInsensitiveEquals("Cookie"): cookies.append(field.value)
            default: break
            }
        }
        self.requestID = RequestID.accept(requestID)
        sessionResult = Self.session(header: session, cookies: cookies)
        if mock, scenario == nil { scenario = request.queryItem(FlowHeader.scenarioQuery) }
        self.scenario = scenario?.isEmpty == false ? scenario : nil
        capabilitiesResult = Self.capabilities(client)
        self.acceptLanguage = acceptLanguage
    }

    /// The session, `nil` when none is sent.
    /// - Throws: 400 `invalid_session` for a session id outside ``SessionID/pattern`` (mock mode answers it; a
    ///   production route reads ``validSession`` instead).
    func session() throws(ProblemDetails) -> String? { try sessionResult.get() }

    /// The session when one is sent and well formed, else `nil`.
    var validSession: String? { (try? sessionResult.get()) ?? nil }

    /// The client's `X-Flow-Client` declaration, `nil` when absent.
    /// - Throws: 400 `invalid_client_header` for a malformed value.
    func capabilities() throws(ProblemDetails) -> ClientCapabilities? { try capabilitiesResult.get() }

    /// The negotiated locale of a page with `strings` when it is not the default one (`nil` otherwise, and for
    /// pages without strings).
    func locale(strings: LocalizedStrings?) -> String? {
        guard let strings, let acceptLanguage else { return nil }
        let locale = strings.negotiate(acceptLanguage: acceptLanguage)
        return locale == strings.defaultLocale ? nil : locale
    }

    /// The variant a first load of `page` asks for.
    /// - Throws: 400 `invalid_client_header` for a malformed `X-Flow-Client`.
    func variant(for page: CatalogPage) throws(ProblemDetails) -> ClientVariant {
        ClientVariant(capabilities: try capabilities(), locale: locale(strings: page.strings))
    }

    // The one session rule.
    private static func session(header: String?, cookies: [String]) -> Result<String?, ProblemDetails> {
        var id = header
        if id == nil {
            for cookie in cookies {
                for pair in cookie.split(separator: ";") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    if parts.count == 2, trimmed(parts[0]) == FlowHeader.sessionCookie { id = trimmed(parts[1]) }
                }
            }
        }
        guard let id else { return .success(nil) }
        guard SessionID.isValid(id) else {
            return .failure(
                ProblemDetails(
                    .invalidSession,
                    detail: "Session ids (X-Flow-Session or the flow_session cookie) match \(SessionID.pattern)."))
        }
        return .success(id)
    }

    private static func trimmed(_ text: Substring) -> String {
        var bytes = text.utf8[...]
        while let first = bytes.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
            bytes = bytes.dropFirst()
        }
        while let last = bytes.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") {
            bytes = bytes.dropLast()
        }
        return String(Substring(bytes))
    }

    private static func capabilities(_ header: String?) -> Result<ClientCapabilities?, ProblemDetails> {
        guard let header else { return .success(nil) }
        do {
            return .success(try ClientCapabilities(header: header))
        } catch {
            return .failure(ProblemDetails(.invalidClientHeader, detail: error.description))
        }
    }
}
