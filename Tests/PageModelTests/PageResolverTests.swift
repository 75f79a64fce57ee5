import PageModel
import Testing

/// Resolution for a client (capabilities + locale) without sockets: `PageResolver`, `ClientCapabilities`,
/// `LocalizedStrings`, `CapabilityCheck`.
@Suite struct PageResolverTests {
    static let legacy = try! ClientCapabilities(header: "platform=android; version=2.4.0; widgets=text,list_row@1")

    func page(_ json: String) throws -> PageModel {
        try PageDecoder().decodePage(Array(#"{"schemaVersion":1,"kind":"page","page":\#(json)}"#.utf8)).value
    }

    @Test func headerParsesToACanonicalProfileKey() throws {
        let client = try ClientCapabilities(header: " Platform=iOS ;version=3.2; widgets=text@1, button@2,image ; x=y")
        #expect(client.platform == "ios")
        #expect(client.appVersion == AppVersion("3.2.0"))
        #expect(client.widgets == ["text": 1, "button": 2, "image": 1])
        #expect(client.profileKey == "platform=ios; version=3.2; widgets=button@2,image@1,text@1")
        #expect(try ClientCapabilities(header: client.profileKey) == client)
        #expect(client.renders("button", version: 2) && !client.renders("button", version: 3))
        #expect(!client.renders("carousel"))
        #expect(ClientCapabilities.unrestricted.renders("anything", version: 9))
        for bad in ["version=three", "widgets=text@0", "platform", "widgets=te xt"] {
            #expect(throws: CapabilityHeaderError.self) { try ClientCapabilities(header: bad) }
        }
        #expect(AppVersion("2.10.0")! > AppVersion("2.9")!)
    }

    @Test func fallbacksSubstituteGeneralizeAndDrop() throws {
        let source = try page(
            #"""
            {"id":"p","sections":[{"id":"s","widgets":[
              {"id":"c","type":"carousel","children":[{"id":"k","type":"text","content":{"text":"x"}}],
               "fallback":{"widget":{"type":"list_row","content":{"title":"See all"}}}},
              {"id":"card","type":"product_card","content":{"title":"Mug","price":"€5"},"fallback":{"category":"list_row"}},
              {"id":"b","type":"banner","content":{"title":"Hi"}},
              {"id":"t","type":"text","content":{"text":"new"},"minAppVersion":{"android":"3.0.0","*":"1.0"}},
              {"id":"h","type":"text","content":{"text":"buzz"},"requires":["haptics"],"fallback":"drop"}
            ]}]}
            """#)
        let (resolved, degradations) = source.resolved(for: Self.legacy)
        let widgets = resolved.sections[0].widgets
        #expect(widgets.map(\.id) == ["c", "card"])
        #expect(widgets.map(\.type) == ["list_row", "list_row"])
        #expect(widgets[1].content == ["title": "Mug", "trailing": "€5"])
        #expect(widgets.allSatisfy { $0.compatibility.isEmpty })
        #expect(
            degradations.map(\.code) == [
                "widget_replaced", "widget_generalized", "widget_dropped", "widget_dropped", "widget_dropped",
            ])
        #expect(degradations[3].reason == "needs app version 3.0.0, the client has 2.4.0")
        #expect(degradations[4].reason == "the client lacks haptics")
        #expect(CapabilityCheck.problems(in: resolved, for: Self.legacy).isEmpty)
        #expect(CapabilityCheck.problems(in: source, for: Self.legacy).map(\.code).count == 5)
        // A client that declares nothing gets the page as authored, annotations stripped.
        let (plain, none) = source.resolved(for: .unrestricted)
        #expect(none.isEmpty && plain.sections[0].widgets.count == 5)
    }

    @Test func emptiedContainersAndSectionsAreDroppedOrReplaced() throws {
        let source = try page(
            #"""
            {"id":"p","sections":[
              {"id":"a","widgets":[{"id":"acc","type":"accordion","content":{"title":"T"},
                "children":[{"id":"img","type":"image","content":{"url":"u"}}]}]},
              {"id":"b","requires":["video"],"fallback":{"section":{"id":"b2","widgets":[{"id":"x","type":"text","content":{"text":"no video"}}]}},
               "widgets":[{"id":"v","type":"text","content":{"text":"video"}}]},
              {"id":"c","widgets":[{"id":"y","type":"text","content":{"text":"kept"}}]}
            ]}
            """#)
        let client = try ClientCapabilities(header: "widgets=text,accordion")
        let (resolved, degradations) = source.resolved(for: client)
        #expect(resolved.sections.map(\.id) == ["b2", "c"])
        #expect(
            degradations.map(\.code) == ["widget_dropped", "widget_dropped", "section_dropped", "section_replaced"])
        let chunk = PageResolver(capabilities: client).resolve(Array(source.sections[2...]))
        #expect(chunk.sections.map(\.id) == ["c"] && chunk.degradations.isEmpty)
    }

    @Test func localizedStringsResolveWithFallbackToTheDefaultLocale() throws {
        let source = try page(
            #"""
            {"id":"p","title":"$l10n:title","sections":[{"id":"s","title":"$l10n:section","widgets":[
              {"id":"t","type":"button","content":{"title":"$l10n:buy"},"actions":{"tap":{"type":"toast","message":"$l10n:done"}}}]}]}
            """#)
        let strings = LocalizedStrings(
            defaultLocale: "en",
            tables: [
                "en": ["title": "Cart", "section": "Items", "buy": "Buy", "done": "Done"],
                "de": ["title": "Warenkorb", "buy": "Kaufen", "done": "Fertig"],
            ])
        #expect(strings.negotiate(acceptLanguage: "de-AT, en;q=0.5") == "de")
        #expect(strings.negotiate(acceptLanguage: "fr, en;q=0.1") == "en")
        #expect(strings.negotiate(acceptLanguage: "fr") == "en")
        #expect(strings.negotiate(acceptLanguage: "en;q=0.2, de;q=0.9") == "de")
        #expect(strings.negotiate(acceptLanguage: "de;q=0, en") == "en")
        let german = source.resolved(for: .unrestricted, strings: strings, locale: "de").page
        #expect(german.title == "Warenkorb")
        #expect(german.sections[0].title == "Items", "missing de text falls back to en")
        #expect(german.sections[0].widgets[0].content == ["title": "Kaufen"])
        #expect(german.sections[0].widgets[0].actions["tap"] == .toast(message: "Fertig"))
        let diagnostics = strings.check(source)
        #expect(diagnostics.map(\.code) == ["missing_translation"])
        #expect(diagnostics[0].path == "/page/sections/0/title")
        var missing = strings
        missing.tables["en"]!["buy"] = nil
        #expect(missing.check(source).contains { $0.code == "unknown_string_key" && $0.severity == .error })
        #expect(
            CapabilityCheck.problems(in: source, for: .unrestricted).map(\.code).allSatisfy {
                $0 == "unresolved_string"
            })
    }

    @Test func annotationsRoundTripThroughTheCodec() throws {
        let source = try page(
            #"{"id":"p","sections":[{"id":"s","requires":["video@2"],"widgets":[{"id":"w","type":"text","content":{"text":"x"},"fallback":{"category":"list_row"},"minAppVersion":"3.1","requires":["text@2"]}]}]}"#
        )
        let widget = source.sections[0].widgets[0]
        #expect(widget.compatibility.fallback == .category("list_row"))
        #expect(widget.compatibility.requires == [Requirement(name: "text", version: 2)])
        #expect(source.sections[0].compatibility.requires == [Requirement(name: "video", version: 2)])
        let reencoded = try PageDecoder().decodePage(Envelope.page(source).encoded()).value
        #expect(reencoded == source)
        let bad = try PageDecoder().decodePage(
            Array(
                #"{"schemaVersion":1,"kind":"page","page":{"id":"p","sections":[{"id":"s","widgets":[{"id":"w","type":"text","content":{"text":"x"},"fallback":{"category":"video"},"minAppVersion":"x"}]}]}}"#
                    .utf8))
        #expect(bad.diagnostics.map(\.code) == ["invalid_compatibility", "invalid_compatibility"])
    }

    @Test func typedConstructorsPassTheCatalogChecks() throws {
        let page = PageModel(
            id: "swift", title: "Built in Swift",
            sections: [
                Section(
                    id: "s",
                    widgets: [
                        .text(id: "t", "Hello", style: "title"), .productCard(id: "c", title: "Mug", price: "€5"),
                        .stepper(id: "q", value: 1, min: 0, onChange: .api(name: "cart.set", payload: nil)),
                        .accordion(id: "a", title: "More", children: [.keyValue(id: "k", label: "L", value: "V")]),
                        .banner(id: "b", title: "New").fallback(.category("text")).minAppVersion(AppVersion("3.0")!),
                    ])
            ])
        let decoded = try PageDecoder().decodePage(Envelope.page(page).encoded())
        #expect(decoded.diagnostics.isEmpty)
        #expect(PageValidator().validate(decoded.value).isEmpty)
    }
}
