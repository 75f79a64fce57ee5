/// A get/set accessor for one ``WidgetStateStore`` value with a default: the headless `Binding`.
///
/// Reading `wrappedValue` is a tracked read of that one key; writing stores the value.
@MainActor
public struct WidgetStateBinding<Value: Hashable & Sendable> {
    let store: WidgetStateStore
    public let widgetID: String
    public let key: String
    /// What the binding reads until a value is stored (typically the payload's initial value).
    public let defaultValue: Value

    public var wrappedValue: Value {
        get { store.value(widgetID: widgetID, key: key, as: Value.self) ?? defaultValue }
        nonmutating set { store.set(newValue, widgetID: widgetID, key: key) }
    }
}
