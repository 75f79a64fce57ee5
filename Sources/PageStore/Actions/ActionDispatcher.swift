import Foundation
import Observation
import PageModel

/// Runs the actions widgets fire: the built-ins `toast`, `dismiss`, `refresh_page`, `open_bottom_sheet` and
/// `api`; deeplinks go to the host's handler (there is no router).
///
/// Effects the host must show are appended to ``effects``, an observable log. An `api` action is a loader
/// round trip through ``PageStore/performAction(_:)`` in a task this dispatcher tracks; hosts call
/// ``cancelInFlight()`` when the page goes away so no late response lands on it.
@Observable
@MainActor
public final class ActionDispatcher {
    /// Every effect the host must show, oldest first.
    public private(set) var effects: [HostEffect] = []

    public let store: PageStore
    /// Takes a deeplink URL; returns `true` when it handled it. Without one, deeplinks are `unhandled`.
    @ObservationIgnored public var deeplinkHandler: (@MainActor (String) -> Bool)?

    @ObservationIgnored private var inFlight: [Int: Task<DispatchOutcome, Never>] = [:]
    @ObservationIgnored private var nextTaskID = 0

    /// Makes the `Idempotency-Key` of each api round trip (its retries reuse it). Default a random UUID.
    @ObservationIgnored private let makeIdempotencyKey: @Sendable () -> String

    public init(
        store: PageStore, deeplinkHandler: (@MainActor (String) -> Bool)? = nil,
        makeIdempotencyKey: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() }
    ) {
        self.store = store
        self.deeplinkHandler = deeplinkHandler
        self.makeIdempotencyKey = makeIdempotencyKey
    }

    /// Runs the action `widget` declares for `event` (`tap`, `change`).
    ///
    /// - Parameter value: the widget's new value, sent with an api action's `change` event.
    @discardableResult
    public func dispatch(_ event: String, of widget: Widget, value: JSONValue? = nil) async -> DispatchOutcome {
        guard let action = widget.actions[event] else { return .noAction }
        return await perform(action, widgetID: widget.id, event: event, value: value)
    }

    /// Runs `action` on behalf of the widget `widgetID`.
    @discardableResult
    public func perform(
        _ action: Action, widgetID: String, event: String, value: JSONValue? = nil
    ) async -> DispatchOutcome {
        switch action {
        case .toast(let message):
            effects.append(.toast(message: message))
        case .dismiss:
            effects.append(.dismiss)
        case .openBottomSheet(let pageID, let parameters):
            effects.append(.openBottomSheet(pageID: pageID, parameters: parameters))
        case .refreshPage:
            await store.refresh()
        case .deeplink(let url):
            guard let deeplinkHandler, deeplinkHandler(url) else { return .unhandled(action) }
        case .api(let name, let payload):
            let request = ActionRequest(
                name: name, pageID: store.pageID, widgetID: widgetID, event: event, value: value, payload: payload,
                idempotencyKey: makeIdempotencyKey())
            return await roundTrip(request)
        case .unknown:
            return .unhandled(action)
        }
        return .handled
    }

    /// Cancels every api round trip in flight: their responses are dropped, not applied, and their effects
    /// do not run. Call it when tearing the page down.
    public func cancelInFlight() {
        for task in inFlight.values { task.cancel() }
        inFlight.removeAll()
    }

    /// The number of api round trips in flight.
    public var inFlightCount: Int { inFlight.count }

    /// Returns the recorded effects and clears the log, for hosts that consume effects as they show them.
    public func takeEffects() -> [HostEffect] {
        let taken = effects
        if !taken.isEmpty { effects = [] }
        return taken
    }

    /// The recorded effects, without registering an Observation dependency (for assertions).
    public func peekEffects() -> [HostEffect] { _effects }

    private func roundTrip(_ request: ActionRequest) async -> DispatchOutcome {
        let id = nextTaskID
        nextTaskID += 1
        let task = Task { [store] () -> DispatchOutcome in
            let response: ActionResponse
            do throws(PageLoadError) {
                response = try await store.performAction(request)
            } catch  where error.code == "cancelled" {
                return .dropped
            } catch {
                effects.append(.actionFailed(name: request.name, message: error.message))
                return .failed(error)
            }
            for effect in response.effects {
                guard !Task.isCancelled else { return .dropped }
                await perform(effect, widgetID: request.widgetID, event: request.event)
            }
            return .applied(response)
        }
        inFlight[id] = task
        let outcome = await task.value
        inFlight[id] = nil
        return outcome
    }
}
