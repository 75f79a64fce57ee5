import PageStore
import Testing

@Suite @MainActor struct WidgetStateStoreTests {
    @Test func typedGetAndSetKeyedByWidgetAndKey() {
        let stateStore = WidgetStateStore()
        stateStore.set(3, widgetID: "qty", key: "count")
        stateStore.set("draft", widgetID: "qty", key: "note")
        stateStore.set(true, widgetID: "faq", key: "expanded")

        let count = stateStore.value(widgetID: "qty", key: "count", as: Int.self)
        let note = stateStore.value(widgetID: "qty", key: "note", as: String.self)
        let wrongType = stateStore.value(widgetID: "qty", key: "count", as: String.self)
        let otherWidget = stateStore.value(widgetID: "faq", key: "count", as: Int.self)
        #expect(count == 3)
        #expect(note == "draft")
        #expect(wrongType == nil)
        #expect(otherWidget == nil)
        #expect(
            stateStore.peekKeys() == [
                WidgetStateKey(widgetID: "faq", key: "expanded"), WidgetStateKey(widgetID: "qty", key: "count"),
                WidgetStateKey(widgetID: "qty", key: "note"),
            ])
    }

    @Test func bindingReadsTheDefaultUntilSetAndWritesThrough() {
        let stateStore = WidgetStateStore()
        let expanded = stateStore.binding(widgetID: "faq", key: "expanded", default: false)
        #expect(expanded.wrappedValue == false)

        expanded.wrappedValue.toggle()

        #expect(expanded.wrappedValue == true)
        let stored = stateStore.peek(widgetID: "faq", key: "expanded", as: Bool.self)
        #expect(stored == true)
    }

    @Test func resetAndRemoveFallBackToDefaults() {
        let stateStore = WidgetStateStore()
        let count = stateStore.binding(widgetID: "qty", key: "count", default: 1)
        count.wrappedValue = 3
        stateStore.set(true, widgetID: "faq", key: "expanded")

        stateStore.removeValue(widgetID: "faq", key: "expanded")
        #expect(stateStore.peekKeys() == [WidgetStateKey(widgetID: "qty", key: "count")])
        stateStore.reset()

        #expect(count.wrappedValue == 1)
        #expect(stateStore.peekKeys().isEmpty)
    }
}
