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
    /// The session: `X-Flow-Session`, else the `flow_session` cookie — one rule for every reader — when it matches
    /// ``SessionID/pattern``.
    private let sessionID: String?
    /// Whether a session was sent that does not match ``SessionID/pattern`` (a 400 `invalid_session`).
    private let sessionIsInvalid: Bool
    /// `X-Flow-Scenario`, else `?__scenario=`; read in mock mode only (`nil` in production).
    let scenario: String?
    /// The parsed `X-Flow-Client`.
    private let declaredCapabilities: ClientCapabilities?
    /// Why `X-Flow-Client` is malformed (a 400 `invalid_client_header`), when it is.
    private let clientHeaderError: String?
    /// `Accept-Language`, when sent.
    let acceptLanguage: String?
    /// The request's server span when tracing is on and the request sampled (set by ``EdgeResponder``).
    var span: Span? = nil
    /// Where the proxy notes what it forwarded, for the mock journal (set by the mock layer while a proxy runs).
    var forwarding: ForwardingNote? = nil

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
        let id = session ?? Self.cookieSession(cookies)
        sessionIsInvalid = id.map { !SessionID.isValid($0) } ?? false
        sessionID = sessionIsInvalid ? nil : id
        if mock, scenario == nil { scenario = request.queryItem(FlowHeader.scenarioQuery) }
        self.scenario = scenario?.isEmpty == false ? scenario : nil
        var declared: ClientCapabilities?
        var clientError: String?
        if let client {
            do { declared = try ClientCapabilities(header: client) } catch { clientError = error.description }
        }
        declaredCapabilities = declared
        clientHeaderError = clientError
        self.acceptLanguage = acceptLanguage
    }

    /// The session, `nil` when none is sent.
    /// - Throws: 400 `invalid_session` for a session id outside ``SessionID/pattern`` (mock mode answers it; a
    ///   production route reads ``validSession`` instead).
    func session() throws(ProblemDetails) -> String? {
        guard !sessionIsInvalid else {
            throw ProblemDetails(
                .invalidSession,
                detail: "Session ids (X-Flow-Session or the flow_session cookie) match \(SessionID.pattern).")
        }
        return sessionID
    }

    /// The session when one is sent and well formed, else `nil`.
    var validSession: String? { sessionID }

    /// The client's `X-Flow-Client` declaration, `nil` when absent.
    /// - Throws: 400 `invalid_client_header` for a malformed value.
    func capabilities() throws(ProblemDetails) -> ClientCapabilities? {
        if let clientHeaderError { throw ProblemDetails(.invalidClientHeader, detail: clientHeaderError) }
        return declaredCapabilities
    }

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

    // The one session rule: the header, else the `flow_session` cookie.
    private static func cookieSession(_ cookies: [String]) -> String? {
        var id: String?
        for cookie in cookies {
            for pair in cookie.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, trimmed(parts[0]) == FlowHeader.sessionCookie { id = trimmed(parts[1]) }
            }
        }
        return id
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
}
