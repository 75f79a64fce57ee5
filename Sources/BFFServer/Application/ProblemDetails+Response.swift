import HTTPCore
import PageModel

/// A thrown ``ProblemDetails`` is answered by HTTPCore like any ``HTTPResponseConvertible``.
extension ProblemDetails: HTTPResponseConvertible {
    /// The `application/problem+json` response for this problem (`Cache-Control: no-store`).
    public func makeResponse() -> HTTPResponse {
        var headers = HTTPFields()
        headers.set("Content-Type", ProblemDetails.mediaType)
        headers.set("Cache-Control", "no-store")
        var response = HTTPResponse(status: HTTPStatus(code: status), headers: headers, body: .bytes(encoded()))
        response.errorCode = code
        return response
    }
}

extension ProblemDetails {

    static func pageNotFound(_ id: String, suggestion: String?) -> ProblemDetails {
        ProblemDetails(
            .pageNotFound, detail: "There is no page \"\(id)\"." + (suggestion.map { " Did you mean \"\($0)\"?" } ?? "")
        )
    }

    static func invalidPageID(_ id: String) -> ProblemDetails {
        ProblemDetails(
            .invalidPageID, detail: "Page ids match \(PageID.pattern).")
    }

    static func invalidCursor(_ reason: String) -> ProblemDetails {
        ProblemDetails(.invalidCursor, detail: reason + ".")
    }

    static let cursorExpired = ProblemDetails(
        .cursorExpired,
        detail: "The page changed after this cursor was issued. Load the page again (refresh) and paginate from there.")

    static func invalidJSON(_ message: String) -> ProblemDetails {
        ProblemDetails(.invalidJSON, detail: message + ".", path: "")
    }

    static func invalidRequest(_ path: JSONPointer, _ message: String) -> ProblemDetails {
        ProblemDetails(
            .invalidRequest, detail: message, path: path.string)
    }

    static func bodyTooLarge(_ limit: Int) -> ProblemDetails {
        ProblemDetails(
            .bodyTooLarge, detail: "Request bodies are limited to \(limit) bytes.")
    }

    static func unsupportedMediaType(_ type: String?) -> ProblemDetails {
        ProblemDetails(
            .unsupportedMediaType,
            detail: type.map { "Send application/json, not \($0)." }
                ?? "The body has no Content-Type: send Content-Type: application/json.")
    }

    static func unknownAction(_ name: String, suggestion: String?) -> ProblemDetails {
        ProblemDetails(
            .unknownAction,
            detail: "There is no api action \"\(name)\"." + (suggestion.map { " Did you mean \"\($0)\"?" } ?? ""))
    }

    /// The action request names a widget the page (as any device could hold it) does not have.
    static func unknownWidget(_ request: ActionRequest, suggestion: String?) -> ProblemDetails {
        ProblemDetails(
            .unknownWidget,
            detail: "Page \"\(request.pageID)\" has no widget \"\(request.widgetID)\" that can fire an action."
                + (suggestion.map { " Did you mean \"\($0)\"?" } ?? ""),
            path: "/widgetID")
    }

    /// The widget exists but declares no action for the request's event.
    static func undeclaredEvent(_ request: ActionRequest, declared: [String]) -> ProblemDetails {
        ProblemDetails(
            .undeclaredEvent,
            detail:
                "Widget \"\(request.widgetID)\" of page \"\(request.pageID)\" declares no \"\(request.event)\" action"
                + (declared.isEmpty ? "." : " (it declares \(declared.map { "\"\($0)\"" }.joined(separator: ", ")))."),
            path: "/event")
    }

    static let notReady = ProblemDetails(
        .notReady, detail: "The server is starting or shutting down.")
}
