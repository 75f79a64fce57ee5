import Observation

/// Ephemeral per-widget state: a stepper count, an accordion's expanded flag, a draft.
///
/// Keyed by widget id plus a name the widget chooses. Server data stays in the document; this store is the
/// session inside it. ``PageStore/refresh()`` calls ``reset()``; pagination and mutations do not.
///
/// Each value is tracked on its own: setting one key invalidates readers of that key (and readers of keys not
/// yet set), not readers of other keys; ``reset()`` invalidates every reader.
@Observable
@MainActor
public final class WidgetStateStore {
    /// One value's cell, so each key is its own Observation dependency.
    @Observable
    @MainActor
    final class Cell {
        var value: any Hashable & Sendable

        init(_ value: any Hashable & Sendable) { self.value = value }

        var untrackedValue: any Hashable & Sendable { _value }
    }

    private var cells: [WidgetStateKey: Cell] = [:]

    public init() {}

    /// The value stored under `widgetID` and `key`, or `nil` when none is stored or it is not a `Value`.
    public func value<Value: Hashable & Sendable>(
        widgetID: String, key: String, as type: Value.Type = Value.self
    ) -> Value? {
        cells[WidgetStateKey(widgetID: widgetID, key: key)]?.value as? Value
    }

    /// Stores `value` under `widgetID` and `key`. Setting the value already stored notifies no one.
    public func set<Value: Hashable & Sendable>(_ value: Value, widgetID: String, key: String) {
        let stateKey = WidgetStateKey(widgetID: widgetID, key: key)
        if let cell = _cells[stateKey] {
            if AnyHashable(cell.untrackedValue) != AnyHashable(value) { cell.value = value }
        } else {
            cells[stateKey] = Cell(value)
        }
    }

    /// Removes the value under `widgetID` and `key`, so readers fall back to their default.
    public func removeValue(widgetID: String, key: String) {
        let stateKey = WidgetStateKey(widgetID: widgetID, key: key)
        if _cells[stateKey] != nil { cells[stateKey] = nil }
    }

    /// A get/set accessor for one value that reads `defaultValue` until something is stored.
    ///
    /// ```swift
    /// let expanded = context.state.binding(widgetID: context.widgetID, key: "expanded", default: false)
    /// expanded.wrappedValue.toggle()
    /// ```
    public func binding<Value: Hashable & Sendable>(
        widgetID: String, key: String, default defaultValue: Value
    ) -> WidgetStateBinding<Value> {
        WidgetStateBinding(store: self, widgetID: widgetID, key: key, defaultValue: defaultValue)
    }

    /// Clears everything. Refresh calls it: new content must not inherit yesterday's stepper.
    public func reset() {
        if !_cells.isEmpty { cells = [:] }
    }

    /// Every stored key of `widgetID`, sorted, with its value (a tracked read, for renderers).
    public func entries(widgetID: String) -> [(key: String, value: any Hashable & Sendable)] {
        cells.filter { $0.key.widgetID == widgetID }.sorted { $0.key < $1.key }.map { ($0.key.key, $0.value.value) }
    }

    /// The stored value without registering an Observation dependency (seed 000's one-time read).
    public func peek<Value: Hashable & Sendable>(
        widgetID: String, key: String, as type: Value.Type = Value.self
    ) -> Value? {
        _cells[WidgetStateKey(widgetID: widgetID, key: key)]?.untrackedValue as? Value
    }

    /// Every stored key, sorted, without registering an Observation dependency.
    public func peekKeys() -> [WidgetStateKey] {
        _cells.keys.sorted()
    }
}
