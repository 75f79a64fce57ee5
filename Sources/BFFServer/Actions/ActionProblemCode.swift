/// Problem codes of the action route beyond the request checks' (docs/contract.md § Problem codes).
enum ActionProblemCode {
    /// 422: a value the request sent (`path` names it) cannot be placed in the declared answer.
    static let invalidActionValue = "invalid_action_value"
    /// 500: a handler's answer, or a declared answer whatever the request, is not a valid action response.
    static let invalidActionResponse = "invalid_action_response"
}
