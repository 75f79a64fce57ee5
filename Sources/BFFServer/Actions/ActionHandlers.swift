import PageModel
import Synchronization

/// The Swift action handlers of a server, by action name or `prefix.*` pattern. Register before or while serving:
///
/// ```swift
/// service.application.actions.register("cart.add") { context in
///     ActionResponse(mutations: [.replaceWidget(id: "cart.badge", widget: badge)], effects: [.toast(message: "Added")])
/// }
/// ```
///
/// A handler takes precedence over a page file's declared answer of the same name. Retried requests carrying an
/// `Idempotency-Key` are answered once (``idempotencyStore``), for handlers and declared answers alike.
public final class ActionHandlers: Sendable {
    typealias Registration = CodeRegistry<ActionHandler, ActionHandlerOptions>.Registration

    let code = CodeRegistry<ActionHandler, ActionHandlerOptions>(
        .init(
            subject: "action handler", label: "action", metric: "flow_bff_action_calls_total",
            help: "Action handler calls, by action and outcome.", timeoutCode: .actionTimeout,
            invalidCode: .invalidActionResponse, allowsPatterns: true))
    private let store = Mutex<any IdempotencyStore>(MemoryIdempotencyStore())

    init() {}

    /// Where answers to requests with an `Idempotency-Key` are kept: in memory by default (one replica). Set a
    /// shared store before serving so a retry that lands on another replica is replayed too.
    public var idempotencyStore: any IdempotencyStore {
        get { store.withLock { $0 } }
        set { store.withLock { $0 = newValue } }
    }

    /// Answers `pattern` — an action name, or `prefix.*` for every name starting with `prefix.` — with `handler`
    /// from now on. A later registration of the same pattern replaces the earlier one; exact names win over
    /// patterns, longer prefixes over shorter ones.
    /// - Precondition: `pattern` is a valid action name, optionally followed by `.*`.
    public func register(
        _ pattern: String, options: ActionHandlerOptions = ActionHandlerOptions(), _ handler: @escaping ActionHandler
    ) {
        if pattern.hasSuffix(".*") {
            precondition(ActionName.isValid(pattern.dropLast(2)), "action patterns are a name or name.*")
        } else {
            precondition(ActionName.isValid(pattern), "action names match \(ActionName.pattern)")
        }
        code.register(pattern, options: options, handler)
    }

    func registration(for name: String) -> Registration? { code.registration(for: name) }

    /// Names and patterns with a handler, sorted.
    public var patterns: [String] { code.patterns }

    /// Handler calls by action and outcome (none before the first call), then the idempotency store's health.
    var families: [MetricFamily] {
        code.families + ((idempotencyStore as? any MetricsSource)?.families ?? [])
    }
}
