import PageModel

/// One answer of an api action: sent when the request meets ``when`` (always, without one). Declared in a page
/// file's `server.actions` (pages/README.md § Answers that depend on the request).
struct ActionRule: Sendable {
    enum Answer: Sendable {
        /// An action response; with a template when its strings hold placeholders (filled per request, then
        /// decoded and checked by the codec).
        case response(ActionResponse, template: ResponseTemplate?)
        /// A problem+json answer (`{"status": 409, "code": "out_of_stock", "title": …, "detail": …}`).
        case problem(ProblemDetails)
    }

    var when: RequestCondition?
    var answer: Answer
    /// What the answer changes in the session's copy of the data (mock mode, with a session).
    var dataChanges: [DataChange] = []
}
