import PageModel
import PageStore
import Testing

/// Snapshot tests of the headless outline renderer.
@Suite @MainActor struct WidgetRegistryTests {
    static let body = Fixtures.page(
        #"""
        {"id": "shop", "title": "Shop",
         "header": [{"id": "hero", "type": "banner", "content": {"title": "Sale", "subtitle": "Today only"}}],
         "sections": [{"id": "s1", "title": "Picks", "widgets": [
           {"id": "faq", "type": "accordion", "content": {"title": "FAQ"},
            "children": [{"id": "faq-a", "type": "text", "content": {"text": "Free returns", "style": "body"}}]},
           {"id": "map", "type": "map_view", "content": {"lat": 1.5}},
           {"id": "broken", "type": "button", "content": {}},
           {"id": "qty", "type": "stepper", "content": {"value": 1, "label": "Quantity"}}]}],
         "footer": [{"id": "pay", "type": "button", "content": {"title": "Pay", "enabled": true}}],
         "pagination": {"hasMore": true, "postback": "c"}}
        """#)

    @Test func outlineShowsTypeIDContentAndEphemeralState() throws {
        let page = try Fixtures.decoded(Self.body)
        let stateStore = WidgetStateStore()
        stateStore.set(3, widgetID: "qty", key: "count")
        stateStore.set(true, widgetID: "faq", key: "expanded")
        let registry = WidgetRegistry(unknownWidgetPolicy: .placeholder)

        let outline = registry.outline(of: page, state: stateStore)

        #expect(
            outline == """
                page #shop "Shop"
                header
                  banner #hero title="Sale" subtitle="Today only"
                section #s1 "Picks"
                  accordion #faq title="FAQ" [state expanded=true]
                    text #faq-a text="Free returns" style="body"
                  placeholder #map (map_view) unknown_type
                  placeholder #broken (button) invalid_content
                  stepper #qty value=1 label="Quantity" [state count=3]
                footer
                  button #pay title="Pay" enabled=true
                pagination hasMore

                """)
    }

    @Test func skipPolicyLeavesUnknownTypesOutAndNothingIsStoredAsState() throws {
        let page = try Fixtures.decoded(Self.body)
        let stateStore = WidgetStateStore()
        let registry = WidgetRegistry(unknownWidgetPolicy: .skip)

        let outline = registry.outline(of: page, state: stateStore)

        #expect(!outline.contains("map"))
        #expect(outline.contains("placeholder #broken (button) invalid_content"))
        #expect(stateStore.peekKeys().isEmpty)
        _ = WidgetRegistry(unknownWidgetPolicy: .placeholder).outline(of: page, state: stateStore)
        #expect(stateStore.peekKeys().isEmpty)
    }

    @Test func defaultPolicyIsPlaceholderInDebugBuilds() {
        #if DEBUG
            #expect(UnknownWidgetPolicy.default == .placeholder)
        #else
            #expect(UnknownWidgetPolicy.default == .skip)
        #endif
        #expect(WidgetRegistry().unknownWidgetPolicy == .default)
    }

    @Test func registeredRendererDrawsItsTypeIncludingUnknownOnes() throws {
        let page = try Fixtures.decoded(Self.body)
        var registry = WidgetRegistry(unknownWidgetPolicy: .skip)
        registry.register("map_view", renderer: WidgetRenderer { widget, _ in "MAP \(widget.id)" })
        registry.register(
            "stepper",
            renderer: WidgetRenderer { widget, context in
                let initial = widget.content["value"]?.intValue ?? 0
                let count = context.state.binding(widgetID: context.widgetID, key: "count", default: initial)
                return "STEPPER \(count.wrappedValue)"
            })

        let outline = registry.outline(of: page, state: WidgetStateStore())

        #expect(outline.contains("\n  MAP map\n"))
        #expect(outline.contains("\n  STEPPER 1\n"))
    }
}
