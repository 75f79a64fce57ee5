import PageModel

/// Something the host must show because an action asked for it; recorded by ``ActionDispatcher/effects``.
public enum HostEffect: Sendable, Hashable {
    /// Show a transient message.
    case toast(message: String)
    /// Close the presenting sheet or screen.
    case dismiss
    /// Present another page (the host creates a ``PageStore`` for it).
    case openBottomSheet(pageID: String, parameters: [String: String])
    /// An api action failed; the host may show `message`.
    case actionFailed(name: String, message: String)
}

/// What ``ActionDispatcher`` did with one action.
public enum DispatchOutcome: Sendable, Hashable {
    /// A built-in ran (a toast, dismiss or sheet was recorded, a refresh finished) or a host handler took it.
    case handled
    /// The widget has no action for that event.
    case noAction
    /// An api round trip landed: its mutations were applied and its effects run.
    case applied(ActionResponse)
    /// An api round trip was cancelled (``ActionDispatcher/cancelInFlight()``); nothing was applied.
    case dropped
    /// An api round trip failed; nothing was applied.
    case failed(PageLoadError)
    /// A deeplink without a handler that took it, or an action type this client does not know.
    case unhandled(Action)
}
