import BFFTesting
import ContractVerifier
import Foundation
import PageModel
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `verify --baseline REPORT` (issue 32): page shapes in the JSON report, ``ReportDiff`` classifying what changed
/// for apps, and the CLI failing on breaking changes with a Markdown summary.
@Suite struct BaselineDiffTests {
    /// A report of one page target per `(target, shape)`.
    static func report(_ pages: [(String, PageShape?)], skipped: [String] = []) -> VerificationReport {
        var report = VerificationReport(target: "http://127.0.0.1:1")
        for (target, shape) in pages {
            var page = PageReport(page: target)
            page.shape = shape
            report.pages.append(page)
        }
        report.coverage.skippedTargets = skipped.map {
            SkippedTarget(target: $0, linkedFrom: "home", reason: "maximumPageLoads (2)")
        }
        return report
    }

    static func shape(
        sections: [String] = ["s"], widgets: [String: WidgetShape] = [:],
        sectionRequirements: [String: CapabilityRequirements] = [:]
    ) -> PageShape {
        var shape = PageShape()
        shape.sections = sections
        shape.widgets = widgets
        shape.sectionRequirements = sectionRequirements
        return shape
    }

    static func diff(_ before: PageShape, _ after: PageShape) throws -> ReportDiff {
        try ReportDiff(
            baseline: report([("home", before)]), current: report([("home", after)]), name: "base.json")
    }

    /// `kind id` of each change, in order.
    static func summary(_ diff: ReportDiff) -> [String] {
        diff.changes.map { "\($0.severity.rawValue) \($0.kind) \($0.id)" }
    }

    // MARK: PageShape

    @Test func theShapeKeepsBackendIdsTypesActionsAndRequirements() throws {
        let json = #"""
            {"schemaVersion": 1, "kind": "page", "page": {"id": "home",
              "header": [{"id": "top", "type": "banner", "content": {"title": "Hi"}, "requires": ["haptics", "banner@2"]}],
              "sections": [
                {"widgets": [{"type": "text", "content": {"text": "no ids here"}}]},
                {"id": "deals", "minAppVersion": {"ios": "3.2", "*": "3.0"}, "widgets": [
                  {"id": "buy", "type": "button", "content": {"title": "Buy"},
                   "actions": {"tap": {"type": "api", "name": "cart.add"}}},
                  {"id": "recs", "type": "carousel", "children": [
                    {"id": "card", "type": "product_card", "content": {"title": "Mug", "price": "€9"},
                     "actions": {"tap": {"type": "deeplink", "url": "shop://pages/product?productID=p-1"}}}]},
                  {"type": "carousel", "children": [
                    {"id": "loose", "type": "product_card", "content": {"title": "Jug", "price": "€19"}}]}]}],
              "footer": [{"id": "bye", "type": "text", "content": {"text": "Bye"}, "minAppVersion": "2.1"}]}}
            """#
        let page = try PageDecoder().decodePage(Array(json.utf8)).value
        let shape = PageShape(page)
        #expect(shape.sections == ["deals"], "the generated section@sections.0 is left out")
        #expect(shape.header == ["top"])
        #expect(shape.footer == ["bye"])
        #expect(Set(shape.widgets.keys) == ["top", "buy", "recs", "recs/card", "loose", "bye"])
        #expect(shape.widgets["buy"]?.actions == ["tap": "api cart.add"])
        #expect(shape.widgets["recs/card"]?.actions == ["tap": "deeplink"])
        #expect(shape.widgets["recs/card"]?.type == "product_card")
        #expect(shape.widgets["top"]?.requirements.requires == ["banner@2", "haptics"])
        #expect(shape.widgets["bye"]?.requirements.minAppVersion == ["*": "2.1"])
        #expect(shape.sectionRequirements["deals"]?.minAppVersion == ["ios": "3.2", "*": "3.0"])
        #expect(shape.widgets["buy"]?.requirements.isEmpty == true)
    }

    @Test func reportsRoundTripWithShapesAndOldReportsDecodeWithout() throws {
        var report = Self.report([
            (
                "home",
                Self.shape(widgets: [
                    "a": WidgetShape(type: "text"), "b": WidgetShape(type: "button", actions: ["tap": "api x"]),
                ])
            )
        ])
        report.pages[0].state = "loaded"
        let data = try report.jsonData()
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""a" : {"#) && text.contains(#""type" : "text""#))
        #expect(!text.contains(#""requirements""#), "empty members are left out: \(text)")
        let decoded = try VerificationReport(jsonData: data)
        #expect(decoded.pages == report.pages)
        // A report written before shapes: the same JSON without them.
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var pages = try #require(object["pages"] as? [[String: Any]])
        pages[0]["shape"] = nil
        object["pages"] = pages
        let old = try VerificationReport(jsonData: try JSONSerialization.data(withJSONObject: object))
        #expect(old.pages.first?.shape == nil)
        #expect(old.pages.first?.state == "loaded")
        #expect(throws: BaselineError.self) { try ReportDiff(baseline: old, current: report, name: "old.json") }
        let error = #expect(throws: BaselineError.self) { try VerificationReport(jsonData: Data("[1]".utf8)) }
        #expect(error?.message.hasPrefix("not a flow-bff verify JSON report") == true)
    }

    // MARK: ReportDiff

    @Test func aRemovedWidgetAndAChangedTypeAreBreakingANewSectionAdditive() throws {
        let before = Self.shape(
            sections: ["hero", "items"],
            widgets: [
                "promo": WidgetShape(type: "banner"), "offer": WidgetShape(type: "banner"),
                "row.1": WidgetShape(type: "list_row"),
            ])
        let after = Self.shape(
            sections: ["items", "hero", "more"],
            widgets: [
                "offer": WidgetShape(type: "list_row"), "row.1": WidgetShape(type: "list_row"),
                "row.2": WidgetShape(type: "list_row"),
            ])
        let diff = try Self.diff(before, after)
        #expect(
            Self.summary(diff) == [
                "breaking widget_type_changed offer", "breaking widget_removed promo", "additive section_added more",
                "additive widget_added row.2",
            ])
        #expect(diff.line == "baseline: 2 breaking, 2 additive changes against base.json")
        #expect(diff.failure == "2 breaking changes against base.json (widget_removed, widget_type_changed)")
        let changed = try #require(diff.changes.first)
        #expect(changed.detail == "widget offer changed its type (banner → list_row)")
        #expect(changed.page == "home")
        // Order alone is no change; the reverse diff is the mirror image.
        #expect(
            try Self.diff(before, Self.shape(sections: ["items", "hero"], widgets: before.widgets)).changes.isEmpty)
        #expect(
            Self.summary(try Self.diff(after, before)) == [
                "breaking section_removed more", "breaking widget_type_changed offer",
                "breaking widget_removed row.2", "additive widget_added promo",
            ])
    }

    @Test func eventsAndActionsOfAWidgetPresentInBoth() throws {
        let before = Self.shape(widgets: [
            "w": WidgetShape(
                type: "button",
                actions: ["tap": "api cart.add", "change": "toast", "long": "deeplink", "swipe": "api cart.remove"])
        ])
        let after = Self.shape(widgets: [
            "w": WidgetShape(
                type: "button",
                actions: ["tap": "api cart.put", "change": "dismiss", "long": "api cart.save", "double": "toast"])
        ])
        let diff = try Self.diff(before, after)
        #expect(
            Self.summary(diff) == [
                "breaking event_removed w swipe", "breaking action_removed w tap", "additive action_changed w change",
                "additive event_added w double", "additive action_added w long",
            ])
        #expect(diff.changes.first?.detail == "widget w no longer declares swipe (api cart.remove → none)")
        let renamed = try #require(diff.changes.first { $0.kind == "action_removed" })
        #expect(renamed.before == "api cart.add" && renamed.after == "api cart.put")
    }

    @Test func newRequirementsAndRaisedMinimumsOfExistingElementsAreBreaking() throws {
        func widget(_ requires: [String] = [], _ minimum: [String: String] = [:]) -> [String: WidgetShape] {
            [
                "w": WidgetShape(
                    type: "text", requirements: CapabilityRequirements(requires: requires, minAppVersion: minimum))
            ]
        }
        #expect(
            Self.summary(try Self.diff(Self.shape(widgets: widget()), Self.shape(widgets: widget(["haptics"]))))
                == ["breaking requirement_added w"])
        #expect(
            Self.summary(
                try Self.diff(Self.shape(widgets: widget(["button"])), Self.shape(widgets: widget(["button@2"]))))
                == ["breaking requirement_added w", "additive requirement_removed w"])
        let raised = try Self.diff(
            Self.shape(widgets: widget([], ["*": "3.0"])), Self.shape(widgets: widget([], ["ios": "3.1", "*": "3.0"])))
        #expect(Self.summary(raised) == ["breaking requirement_added w"])
        #expect(raised.changes.first?.detail == "widget w raised its minAppVersion (3.0 → ios 3.1, * 3.0)")
        // 3.0 and 3.0.0 are the same version; a lower one (or none) lets more apps in.
        #expect(
            try Self.diff(
                Self.shape(widgets: widget([], ["*": "3.0"])), Self.shape(widgets: widget([], ["*": "3.0.0"]))
            ).changes.isEmpty)
        #expect(
            Self.summary(try Self.diff(Self.shape(widgets: widget([], ["*": "3.0"])), Self.shape(widgets: widget())))
                == ["additive requirement_removed w"])
        let section = CapabilityRequirements(minAppVersion: ["android": "5"])
        #expect(
            Self.summary(try Self.diff(Self.shape(), Self.shape(sectionRequirements: ["s": section])))
                == ["breaking requirement_added s"])
        // A new widget may require anything: old apps never had it.
        #expect(
            Self.summary(try Self.diff(Self.shape(), Self.shape(widgets: widget(["haptics"])))) == [
                "additive widget_added w"
            ])
    }

    @Test func missingPagesAreRemovedUnlessLimitsKeptThemOutOrTheirPageIDWasCrawled() throws {
        let shape = Self.shape()
        let baseline = Self.report([
            ("home", shape), ("cart", shape), ("product?productID=p-1", shape), ("feed", shape), ("broken", nil),
            ("search", shape),
        ])
        var current = Self.report(
            [("home", shape), ("product?productID=p-2", shape), ("new", shape)], skipped: ["feed"])
        current.pages.append(PageReport(page: "search"))
        let diff = try ReportDiff(baseline: baseline, current: current, name: "base.json")
        #expect(
            Self.summary(diff) == [
                "breaking page_removed cart", "additive page_added product?productID=p-2", "additive page_added new",
            ])
        #expect(diff.notCompared.map(\.page) == ["product?productID=p-1", "feed", "search"])
        #expect(diff.notCompared[1].reason == "kept out of this crawl by maximumPageLoads (2)")
        #expect(diff.line.hasSuffix("; 3 baseline pages not compared"))
    }

    @Test func theRunFailsOnBreakingChangesInEveryReport() throws {
        var current = Self.report([("home", Self.shape(sections: []))])
        current.baseline = try ReportDiff(
            baseline: Self.report([("home", Self.shape(sections: ["a"]))]), current: current, name: "base.json")
        #expect(current.violationCount == 0)
        #expect(!current.passed)
        #expect(current.summary.hasSuffix("FAILED: 1 breaking change against base.json (section_removed)"))
        #expect(current.summary.contains("  breaking:\n    section_removed  page home  a: section a is gone"))
        #expect(!current.summary.contains("PASSED"))
        let github = current.githubAnnotations()
        #expect(
            github.hasPrefix("::error title=verify section_removed (page home)::a: section a is gone\n"), "\(github)")
        #expect(github.contains("FAILED: 1 breaking change against base.json"))
        let json = try #require(try JSONSerialization.jsonObject(with: current.jsonData()) as? [String: Any])
        #expect(json["passed"] as? Bool == false)
        let changes = (json["baseline"] as? [String: Any])?["changes"] as? [[String: Any]]
        #expect(changes?.first?["kind"] as? String == "section_removed")
        #expect(changes?.first?["severity"] as? String == "breaking")
        // JUnit: a failing `baseline` suite, so a CI system that reads only JUnit is red too.
        let junit = try XMLDocument(data: Data(current.junitXML.utf8))
        let root = try #require(junit.rootElement())
        #expect(root.attribute(forName: "failures")?.stringValue == "1")
        let suite = try #require(root.elements(forName: "testsuite").last)
        #expect(suite.attribute(forName: "name")?.stringValue == "baseline")
        let failure = try #require(suite.elements(forName: "testcase").first?.elements(forName: "failure").first)
        #expect(failure.attribute(forName: "type")?.stringValue == "section_removed")
        #expect(failure.stringValue?.contains("section_removed home a: section a is gone") == true)
    }

    @Test func theMarkdownCommentCapsLongTables() throws {
        let before = Self.shape(
            widgets: Dictionary(uniqueKeysWithValues: (0..<30).map { ("w\($0)", WidgetShape(type: "text")) }))
        var current = Self.report([("home", Self.shape(sections: ["s", "t|u"]))])
        current.baseline = try ReportDiff(
            baseline: Self.report([("home", before)]), current: current, name: "base.json")
        let markdown = current.markdown(limit: 10)
        #expect(markdown.hasPrefix("### ❌ flow-bff verify: FAILED\n"))
        #expect(markdown.contains("#### Breaking changes against `base.json` (30)"))
        #expect(markdown.components(separatedBy: "| `widget_removed` |").count - 1 == 10)
        #expect(markdown.contains("… and 20 more (the JSON report lists all)"))
        #expect(markdown.contains(#"| `section_added` | `home` | `t\|u` | new section t\|u |"#), "\(markdown)")
        #expect(markdown.contains("- `coverage: 0 pages (0 loads)"))
        let passing = Self.report([("home", Self.shape())]).markdown()
        #expect(passing.hasPrefix("### ✅ flow-bff verify: passed\n"))
        #expect(!passing.contains("####"))
    }

    // MARK: The command

    /// `shop`: sections `hero` (banners `promo`, `offer`) and `items` (a row and a stepper firing an api action),
    /// then `extra` sections.
    static func shop(hero: String, extra: String = "") -> [String: String] {
        [
            "shop.json": #"""
            {"schemaVersion": 1, "kind": "page", "page": {"id": "shop", "sections": [
              {"id": "hero", "widgets": [\#(hero)]},
              {"id": "items", "widgets": [
                {"id": "row.1", "type": "list_row", "content": {"title": "Mug"}},
                {"id": "qty.1", "type": "stepper", "content": {"value": 1},
                 "actions": {"change": {"type": "api", "name": "shop.setQuantity"}}}]}\#(extra)]},
             "server": {"actions": {"shop.setQuantity":
               {"schemaVersion": 1, "kind": "actionResponse", "mutations": [], "effects": []}}}}
            """#
        ]
    }

    static let promo = #"{"id": "promo", "type": "banner", "content": {"title": "Autumn sale"}}"#
    static let offer = #"{"id": "offer", "type": "banner", "content": {"title": "2 for 1"}}"#

    func verify(_ arguments: [String]) async throws -> FlowBFFProcess.Run {
        try await FlowBFFProcess.run(["verify", "--progress", "off"] + arguments, directory: repositoryRoot)
    }

    @Test func verifyBaselineFailsOnBreakingChangesAndWritesAPullRequestComment() async throws {
        let base = try temporaryPages(Self.shop(hero: Self.promo + ", " + Self.offer))
        let breaking = try temporaryPages(
            Self.shop(hero: Self.offer.replacingOccurrences(of: "banner", with: "list_row")))
        let additive = try temporaryPages(
            Self.shop(
                hero: Self.promo + ", " + Self.offer,
                extra:
                    #", {"id": "more", "widgets": [{"id": "row.2", "type": "list_row", "content": {"title": "Jug"}}]}"#
            ))
        let baseJSON = VerifyCommandTests.temporaryFile("base.json")
        let markdown = VerifyCommandTests.temporaryFile("pr.md")
        let json = VerifyCommandTests.temporaryFile("current.json")
        defer {
            for path in [base, breaking, additive, baseJSON, markdown, json] {
                try? FileManager.default.removeItem(atPath: path)
            }
        }
        let first = try await verify(["--pages", base, "--report", "json", baseJSON])
        #expect(first.status == 0, "\(first.output)\n\(first.errors)")

        let broken = try await verify([
            "--pages", breaking, "--baseline", baseJSON, "--report", "markdown", markdown, "--report", "json", json,
        ])
        #expect(broken.status == 1, "\(broken.output)\n\(broken.errors)")
        #expect(broken.output.contains("baseline: 2 breaking, 0 additive changes against \(baseJSON)"))
        #expect(
            broken.output.contains(
                "    widget_type_changed  page shop  offer: widget offer changed its type (banner → list_row)"))
        #expect(broken.output.contains("    widget_removed  page shop  promo: banner widget promo is gone"))
        #expect(
            broken.output.contains(
                "FAILED: 2 breaking changes against \(baseJSON) (widget_removed, widget_type_changed)"))
        #expect(!broken.output.contains("PASSED"))
        #expect(broken.output.contains("report written: \(markdown) (markdown)"))
        let comment = try String(contentsOfFile: markdown, encoding: .utf8)
        #expect(comment.hasPrefix("### ❌ flow-bff verify: FAILED\n"), "\(comment)")
        #expect(comment.contains("#### Breaking changes against `\(baseJSON)` (2)"))
        #expect(
            comment.contains("| `widget_removed` | `shop` | `promo` | banner widget promo is gone |"))
        #expect(comment.contains("| `widget_type_changed` | `shop` | `offer` |"))
        #expect(comment.contains("- `coverage: 1 pages (1 loads)"))
        let report = try VerificationReport(jsonData: Data(contentsOf: URL(fileURLWithPath: json)))
        #expect(report.baseline?.breaking.map(\.id) == ["offer", "promo"])
        #expect(report.pages.first?.shape?.widgets["offer"]?.type == "list_row")

        let grown = try await verify(["--pages", additive, "--baseline", baseJSON, "--report", "markdown", markdown])
        #expect(grown.status == 0, "\(grown.output)\n\(grown.errors)")
        #expect(grown.output.contains("baseline: 0 breaking, 2 additive changes against \(baseJSON)"))
        #expect(grown.output.contains("  additive:\n    section_added  page shop  more: new section more"))
        #expect(grown.output.contains("    widget_added  page shop  row.2: new list_row widget row.2"))
        #expect(grown.output.contains("PASSED: no contract violations"))
        let additiveComment = try String(contentsOfFile: markdown, encoding: .utf8)
        #expect(additiveComment.hasPrefix("### ✅ flow-bff verify: passed\n"))
        #expect(additiveComment.contains("#### Additive changes against `\(baseJSON)` (2)"))
        #expect(!additiveComment.contains("Breaking changes"))
    }

    @Test func aBaselineThatCannotBeComparedIsAUsageError() async throws {
        let missing = try await verify(["--pages", "pages", "--baseline", "/nonexistent/base.json"])
        #expect(missing.status == 2)
        #expect(missing.errors.contains("--baseline /nonexistent/base.json: cannot read it"), "\(missing.errors)")
        let old = VerifyCommandTests.temporaryFile("old.json")
        defer { try? FileManager.default.removeItem(atPath: old) }
        var report = VerificationReport(target: "http://127.0.0.1:1")
        report.pages = [PageReport(page: "home")]
        try report.jsonData().write(to: URL(fileURLWithPath: old))
        let shapeless = try await verify(["--pages", "pages", "--baseline", old])
        #expect(shapeless.status == 2)
        #expect(shapeless.errors.contains("records no page shapes"), "\(shapeless.errors)")
        #expect(!shapeless.output.contains("coverage:"), "it stops before crawling")
    }
}
