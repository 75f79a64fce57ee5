import Observation

/// Ephemeral per-widget state: a stepper count, an accordion's expanded flag, a draft.
///
/// Keyed by widget id plus a name the widget chooses. Server data stays in the document; this store is the
/// session inside it. ``PageStore/refresh()`` calls ``reset()``; pagination and mutations do not.
///
/// Each key is its own Observation dependency: reading a key tracks that key only, including a key not set yet;
/// setting or removing a key — the first `set` of a key too — invalidates readers of that key (and readers of
/// its widget's ``entries(widgetID:)``), never readers of other keys. ``reset()`` invalidates every reader of a
/// stored value.
@Observable
@MainActor
public final class WidgetStateStore {
    /// One key's value, so each key is its own Observation dependency. Created on first read or write and kept
    /// (holding `nil` once removed or reset), so a reader that tracked it hears about every later `set`.
    @Observable
    @MainActor
    final class Cell {
        var value: (any Hashable & Sendable)?

        init() {}

        var untrackedValue: (any Hashable & Sendable)? { _value }
    }

    /// The keys of one widget that hold a value: what ``entries(widgetID:)`` tracks.
    @Observable
    @MainActor
    final class Keys {
        var stored: Set<String> = []

        init() {}
    }

    /// Not tracked: creating a cell must not invalidate anyone. Only cells and key sets are tracked.
    @ObservationIgnored private var cells: [WidgetStateKey: Cell] = [:]
    @ObservationIgnored private var keysByWidget: [String: Keys] = [:]

    public init() {}

    private func cell(_ key: WidgetStateKey) -> Cell {
        if let cell = cells[key] { return cell }
        let cell = Cell()
        cells[key] = cell
        return cell
    }

    private func keys(of widgetID: String) -> Keys {
        if let keys = keysByWidget[widgetID] { return keys }
        let keys = Keys()
        keysByWidget[widgetID] = keys
        return keys
    }

    /// The value stored under `widgetID` and `key`, or `nil` when none is stored or it is not a `Value`.
    /// A tracked read of that one key.
    public func value<Value: Hashable & Sendable>(
        widgetID: String, key: String, as type: Value.Type = Value.self
    ) -> Value? {
        cell(WidgetStateKey(widgetID: widgetID, key: key)).value as? Value
    }

    /// Stores `value` under `widgetID` and `key`. Setting the value already stored notifies no one.
    public func set<Value: Hashable & Sendable>(_ value: Value, widgetID: String, key: String) {
        let cell = cell(WidgetStateKey(widgetID: widgetID, key: key))
        if let stored = cell.untrackedValue, AnyHashable(stored) == AnyHashable(value) { return }
        let isNew = cell.untrackedValue == nil
        cell.value = value
        if isNew { keys(of: widgetID).stored.insert(key) }
    }

    /// Removes the value under `widgetID` and `key`, so readers fall back to their default.
    public func removeValue(widgetID: String, key: String) {
        guard let cell = cells[WidgetStateKey(widgetID: widgetID, key: key)], cell.untrackedValue != nil else {
            return
        }
        cell.value = nil
        keysByWidget[widgetID]?.stored.remove(key)
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
        for cell in cells.values where cell.untrackedValue != nil { cell.value = nil }
        for keys in keysByWidget.values where !keys.stored.isEmpty { keys.stored = [] }
    }

    /// Every stored key of `widgetID`, sorted, with its value (a tracked read of that widget's keys and values,
    /// for renderers).
    public func entries(widgetID: String) -> [(key: String, value: any Hashable & Sendable)] {
        keys(of: widgetID).stored.sorted().compactMap { key in
            cell(WidgetStateKey(widgetID: widgetID, key: key)).value.map { (key, $0) }
        }
    }

    /// The stored value without registering an Observation dependency (seed 000's one-time read).
    public func peek<Value: Hashable & Sendable>(
        widgetID: String, key: String, as type: Value.Type = Value.self
    ) -> Value? {
        cells[WidgetStateKey(widgetID: widgetID, key: key)]?.untrackedValue as? Value
    }

    /// Every stored key, sorted, without registering an Observation dependency.
    public func peekKeys() -> [WidgetStateKey] {
        cells.filter { $0.value.untrackedValue != nil }.keys.sorted()
    }
}
