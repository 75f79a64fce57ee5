import Observation
import PageStore
import Testing

/// Issue 18, defect 4: each `WidgetStateStore` key is its own Observation dependency, including the first `set`
/// of a key and `removeValue`; `reset()` invalidates every reader of a stored value.
@Suite @MainActor struct WidgetStateObservationTests {
    @Test func theFirstSetOfAKeyDoesNotInvalidateReadersOfOtherKeys() {
        let stateStore = WidgetStateStore()
        stateStore.set(false, widgetID: "faq", key: "expanded")
        let accordionReader = track {
            let expanded = stateStore.value(widgetID: "faq", key: "expanded", as: Bool.self)
            _ = expanded
        }
        let stepperReader = track {
            let quantity = stateStore.binding(widgetID: "qty", key: "count", default: 1)
            _ = quantity.wrappedValue
        }

        stateStore.set(1, widgetID: "qty", key: "count")  // the first tick of a stepper

        #expect(!accordionReader.hasFired)
        #expect(stepperReader.hasFired)  // a reader of a key not yet set sees its first value
    }

    @Test func removeValueInvalidatesOnlyThatKeysReaders() {
        let stateStore = WidgetStateStore()
        stateStore.set(true, widgetID: "faq", key: "expanded")
        stateStore.set(2, widgetID: "qty", key: "count")
        let accordionReader = track {
            let expanded = stateStore.value(widgetID: "faq", key: "expanded", as: Bool.self)
            _ = expanded
        }
        let stepperReader = track {
            let count = stateStore.value(widgetID: "qty", key: "count", as: Int.self)
            _ = count
        }

        stateStore.removeValue(widgetID: "qty", key: "count")

        #expect(!accordionReader.hasFired)
        #expect(stepperReader.hasFired)
        let keys = stateStore.peekKeys()
        #expect(keys == [WidgetStateKey(widgetID: "faq", key: "expanded")])
    }

    @Test func aWidgetsEntriesAreTrackedPerWidget() {
        let stateStore = WidgetStateStore()
        stateStore.set(true, widgetID: "faq", key: "expanded")
        let accordionEntries = track {
            let entries = stateStore.entries(widgetID: "faq")
            _ = entries
        }
        let stepperEntries = track {
            let entries = stateStore.entries(widgetID: "qty")
            _ = entries
        }

        stateStore.set(1, widgetID: "qty", key: "count")

        #expect(!accordionEntries.hasFired)
        #expect(stepperEntries.hasFired)
    }

    @Test func resetInvalidatesEveryReaderOfAStoredValueAndReadersSeeLaterSets() {
        let stateStore = WidgetStateStore()
        stateStore.set(true, widgetID: "faq", key: "expanded")
        stateStore.set(2, widgetID: "qty", key: "count")
        let accordionReader = track {
            let expanded = stateStore.value(widgetID: "faq", key: "expanded", as: Bool.self)
            _ = expanded
        }
        let stepperReader = track {
            let count = stateStore.value(widgetID: "qty", key: "count", as: Int.self)
            _ = count
        }

        stateStore.reset()

        #expect(accordionReader.hasFired)
        #expect(stepperReader.hasFired)
        #expect(stateStore.peekKeys().isEmpty)
        let rereader = track {
            let count = stateStore.value(widgetID: "qty", key: "count", as: Int.self)
            _ = count
        }
        stateStore.set(5, widgetID: "qty", key: "count")
        #expect(rereader.hasFired)
        let count = stateStore.peek(widgetID: "qty", key: "count", as: Int.self)
        #expect(count == 5)
    }
}
