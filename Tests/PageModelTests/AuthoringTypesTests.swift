import Testing

@testable import PageModel

@Suite struct AuthoringTypesTests {
    let document: JSONValue = [
        "page": [
            "sections": [
                ["widgets": [["type": "list_rwo", "actions": ["tap": ["type": "tosat"]]], ["type": "x-map"]]]
            ]
        ],
        "effects": [["type": "taost"], ["type": "confetti"]],
    ]

    var decoderDiagnostics: [Diagnostic] {
        [
            .warning("unknown_widget_type", "/page/sections/0/widgets/0/type", widgetID: "a", "unknown widget type"),
            .warning("unknown_action_type", "/page/sections/0/widgets/0/actions/tap/type", "unknown action type"),
            .warning("unknown_widget_type", "/page/sections/0/widgets/1/type", widgetID: "b", "unknown widget type"),
            .warning("unknown_action_type", "/effects/0/type", "unknown action type"),
            .warning("unknown_action_type", "/effects/1/type", "unknown action type"),
            .warning("empty_section", "/page/sections/0/widgets", "kept as it is"),
        ]
    }

    @Test func unknownTypesBecomeErrorsNamingTheClosestKnownType() {
        let reviewed = AuthoringTypes().review(decoderDiagnostics, in: document, catalog: .standard)
        #expect(
            reviewed.map { "\($0.severity) \($0.code) \($0.message)" } == [
                #"error unknown_widget_type unknown widget type "list_rwo" (did you mean list_row?)"#,
                #"error unknown_action_type unknown action type "tosat" (did you mean toast?)"#,
                #"error unknown_action_type unknown effect type "taost" (did you mean toast?)"#,
                "error unknown_action_type unknown effect type \"confetti\"; known: \(ActionType.all.joined(separator: ", ")); "
                    + #"a custom type starts with "x-" or is registered in the configuration (docs/check.md)"#,
                "warning empty_section kept as it is",
            ])
        #expect(reviewed.first?.widgetID == "a")
        #expect(reviewed.first?.path == "/page/sections/0/widgets/0/type")
    }

    @Test func registeredAndPrefixedTypesAreAccepted() {
        let types = AuthoringTypes(customWidgetTypes: ["list_rwo"], customActionTypes: ["tosat", "taost", "confetti"])
        #expect(types.review(decoderDiagnostics, in: document, catalog: .standard).map(\.code) == ["empty_section"])
        #expect(types.isCustom(widgetType: "x-anything"))
        #expect(types.isCustom(actionType: "x-anything"))
        #expect(!types.isCustom(widgetType: "x-"), "the prefix alone is not a type")
        #expect(!types.isCustom(widgetType: "list_row"), "catalog types are known, not custom")
    }

    @Test func theHintAlsoNamesRegisteredCustomTypes() {
        let types = AuthoringTypes(customWidgetTypes: ["map_view"], customActionTypes: ["confetti"])
        let document: JSONValue = ["widget": ["type": "map_veiw"], "effects": [["type": "confeti"]]]
        let reviewed = types.review(
            [
                .warning("unknown_widget_type", "/widget/type", "unknown widget type"),
                .warning("unknown_action_type", "/effects/0/type", "unknown action type"),
            ], in: document, catalog: .standard)
        #expect(
            reviewed.map(\.message) == [
                #"unknown widget type "map_veiw" (did you mean map_view?)"#,
                #"unknown effect type "confeti" (did you mean confetti?)"#,
            ])
    }
}
