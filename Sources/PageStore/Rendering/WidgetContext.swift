import PageModel

/// What a renderer gets besides the widget: its id, the page's widget state, and a way to fire events.
@MainActor
public struct WidgetContext {
    public let widgetID: String
    /// The page's ephemeral state; bindings come from ``WidgetStateStore/binding(widgetID:key:default:)``.
    public let state: WidgetStateStore
    /// Nesting depth of the widget in the outline (0 for header, section and footer widgets).
    public let depth: Int
    let dispatcher: ActionDispatcher?

    public init(widgetID: String, state: WidgetStateStore, depth: Int = 0, dispatcher: ActionDispatcher? = nil) {
        self.widgetID = widgetID
        self.state = state
        self.depth = depth
        self.dispatcher = dispatcher
    }

    /// Fires `event` (`tap`, `change`) of `widget` through the ``ActionDispatcher``, if the page has one.
    ///
    /// - Returns: what the dispatcher did, or `nil` without a dispatcher.
    @discardableResult
    public func dispatch(_ event: String, of widget: Widget, value: JSONValue? = nil) async -> DispatchOutcome? {
        guard let dispatcher else { return nil }
        return await dispatcher.dispatch(event, of: widget, value: value)
    }
}
