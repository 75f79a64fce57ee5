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
    struct Registration: Sendable {
        var pattern: String
        var handler: ActionHandler
        var options: ActionHandlerOptions
    }

    private let exact = Mutex<[String: Registration]>([:])
    private let prefixes = Mutex<[Registration]>([])
    private let registered = Atomic<Int>(0)
    private let outcomes = LabeledCounter(
        "flow_bff_action_calls_total", help: "Action handler calls, by action and outcome.",
        labels: ["action", "outcome"])
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
        let registration = Registration(pattern: pattern, handler: handler, options: options)
        if pattern.hasSuffix(".*") {
            let prefix = String(pattern.dropLast())
            precondition(ActionName.isValid(prefix.dropLast()), "action patterns are a name or name.*")
            prefixes.withLock { entries in
                entries.removeAll { $0.pattern == pattern }
                entries.append(registration)
                entries.sort { $0.pattern.count > $1.pattern.count }
            }
        } else {
            precondition(ActionName.isValid(pattern), "action names match \(ActionName.pattern)")
            exact.withLock { $0[pattern] = registration }
        }
        registered.add(1, ordering: .relaxed)
    }

    /// The handler for `name`; one atomic load when none is registered.
    func registration(for name: String) -> Registration? {
        guard registered.load(ordering: .relaxed) > 0 else { return nil }
        if let registration = exact.withLock({ $0[name] }) { return registration }
        return prefixes.withLock { entries in entries.first { name.hasPrefix($0.pattern.dropLast()) } }
    }

    /// Names and patterns with a handler, sorted.
    public var patterns: [String] {
        (exact.withLock { Array($0.keys) } + prefixes.withLock { $0.map(\.pattern) }).sorted()
    }

    func count(_ name: String, outcome: String) {
        outcomes.increment([name, outcome])
    }

    /// Handler calls by action and outcome (none before the first call), then the idempotency store's health.
    var families: [MetricFamily] {
        (outcomes.isEmpty ? [] : [outcomes.family]) + ((idempotencyStore as? RedisIdempotencyStore)?.families ?? [])
    }
}
