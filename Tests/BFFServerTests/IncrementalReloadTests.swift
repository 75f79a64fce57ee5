import BFFTesting
import Foundation
import HTTPCore
import PageModel
import Synchronization
import Testing

@testable import BFFServer

/// A reload decodes and checks only the files whose bytes changed (``SourceFiles``), still runs every cross-file
/// check, and gives exactly what a full load gives.
@Suite struct IncrementalReloadTests {
    func page(_ id: String, widgets: String = #"{"id": "t", "type": "text", "content": {"text": "x"}}"#) -> String {
        #"{"schemaVersion": 1, "kind": "page", "page": {"id": ""# + id + #"", "sections": [{"id": "s", "widgets": ["#
            + widgets + "]}]}}"
    }

    func button(_ id: String, _ action: String) -> String {
        #"{"id": ""# + id + #"", "type": "button", "content": {"title": "x"}, "actions": {"tap": "# + action + "}}"
    }

    func opener(_ pageID: String) -> String {
        page("home", widgets: button("open", #"{"type": "open_bottom_sheet", "pageID": ""# + pageID + #""}"#))
    }

    func caller(_ action: String) -> String {
        page("home", widgets: button("call", #"{"type": "api", "name": ""# + action + #""}"#))
    }

    /// A page declaring the api action `action` (answering `answer`).
    func declaring(
        _ id: String, action: String, answer: String = #"{"schemaVersion": 1, "kind": "actionResponse"}"#
    ) -> String {
        #"{"schemaVersion": 1, "kind": "page", "page": {"id": ""# + id
            + #"", "sections": [{"id": "s", "widgets": [{"id": "t", "type": "divider"}]}]}, "server": {"actions": {""#
            + action + #"": "# + answer + "}}}"
    }

    func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// Loads `directory` reusing `previous` and checks the result against a full load of the same files.
    func reload(_ directory: String, reusing previous: PageCatalog) -> PageCatalog {
        let incremental = PageCatalog.load(directory: directory, reusing: previous)
        let full = PageCatalog.load(directory: directory)
        #expect(incremental.diagnostics.map(\.description) == full.diagnostics.map(\.description))
        #expect(incremental.pages.mapValues(\.version) == full.pages.mapValues(\.version))
        #expect(incremental.actions.keys.sorted() == full.actions.keys.sorted())
        #expect(incremental.scenarios.mapValues { $0.keys.sorted() } == full.scenarios.mapValues { $0.keys.sorted() })
        #expect(incremental.version == full.version)
        return incremental
    }

    @Test func onlyChangedAddedFilesAreDecoded() throws {
        let directory = try temporaryPages([
            "home.json": page("home"), "cart.json": page("cart"), "cart.empty.json": page("cart"),
        ])
        let first = PageCatalog.load(directory: directory)
        #expect(first.sources.decoded == ["cart.json", "home.json", "cart.empty.json"])
        let same = reload(directory, reusing: first)
        #expect(same.sources.decoded.isEmpty)

        try write(
            page("home", widgets: #"{"id": "t", "type": "text", "content": {"text": "edited"}}"#),
            to: directory + "/home.json")
        let edited = reload(directory, reusing: same)
        #expect(edited.sources.decoded == ["home.json"])
        #expect(edited.pages["home"]?.version != same.pages["home"]?.version)
        #expect(edited.pages["cart"]?.version == same.pages["cart"]?.version)

        try write(page("extra"), to: directory + "/extra.json")
        try write(#"{"status": 503, "code": "down"}"#, to: directory + "/cart.empty.json")
        let added = reload(directory, reusing: edited)
        #expect(added.sources.decoded == ["extra.json", "cart.empty.json"])
        #expect(added.pageIDs == ["cart", "extra", "home"])

        try FileManager.default.removeItem(atPath: directory + "/extra.json")
        let removed = reload(directory, reusing: added)
        #expect(removed.sources.decoded.isEmpty)
        #expect(removed.pageIDs == ["cart", "home"])
        #expect(removed.sources.entries.keys.sorted() == ["cart.empty.json", "cart.json", "home.json"])
    }

    @Test func aFileWhoseSettledStampIsUnchangedIsNotReadAgain() throws {
        let directory = try temporaryPages([
            "home.json": page("home"), "cart.json": page("cart"), "cart.empty.json": page("cart"),
        ])
        var first = PageCatalog.load(directory: directory)
        #expect(first.sources.read == ["cart.json", "home.json", "cart.empty.json"])
        // As if read an hour after the files last changed: their stamps have settled.
        for name in first.sources.entries.keys { first.sources.entries[name]?.readAt += 3_600 }
        var same = reload(directory, reusing: first)
        #expect(same.sources.read.isEmpty)
        #expect(same.sources.decoded.isEmpty)

        for name in same.sources.entries.keys { same.sources.entries[name]?.readAt += 3_600 }
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: directory + "/cart.empty.json")
        try write(
            page("home", widgets: #"{"id": "t", "type": "text", "content": {"text": "longer"}}"#),
            to: directory + "/home.json")
        let edited = reload(directory, reusing: same)
        #expect(edited.sources.read == ["home.json", "cart.empty.json"], "a new stamp: read again")
        #expect(edited.sources.decoded == ["home.json"], "same bytes: not decoded again")
    }

    @Test func aFileChangedJustAfterItWasReadIsReadAgainEvenWithTheSameStamp() throws {
        let directory = try temporaryPages(["home.json": page("home"), "cart.json": page("cart")])
        let first = PageCatalog.load(directory: directory)
        // Same size, possibly the same timestamp tick: the stamp may not change, but it has not settled.
        try write(
            page("home", widgets: #"{"id": "t", "type": "text", "content": {"text": "y"}}"#),
            to: directory + "/home.json")
        let edited = reload(directory, reusing: first)
        #expect(edited.sources.read.contains("home.json"))
        #expect(edited.sources.decoded == ["home.json"])
    }

    @Test func otherPageSettingsDecodeEverythingAgain() throws {
        let directory = try temporaryPages(["home.json": page("home")])
        let first = PageCatalog.load(directory: directory)
        var defaults = BFFConfiguration.Pages()
        defaults.defaultPageSize = 5
        let other = PageCatalog.load(directory: directory, defaults: defaults, reusing: first)
        #expect(other.sources.decoded == ["home.json"])
        #expect(other.pages["home"]?.pageSize == 5)
    }

    @Test func aLinkIsCheckedWhenOnlyTheLinkingPageChanged() throws {
        let directory = try temporaryPages(["home.json": opener("sheet"), "sheet.json": page("sheet")])
        let first = PageCatalog.load(directory: directory)
        #expect(first.diagnostics.isEmpty)
        try write(opener("shet"), to: directory + "/home.json")
        let broken = reload(directory, reusing: first)
        #expect(broken.sources.decoded == ["home.json"])
        #expect(
            broken.diagnostics.map(\.description) == [
                "home.json: /page/sections/0/widgets/0/actions/tap/pageID: error: unknown_page_reference: there is no page \"shet\" in the catalog"
            ])
        #expect(broken.pageIDs == ["sheet"])
    }

    @Test func aLinkIsCheckedWhenOnlyTheLinkedPageWasRemoved() throws {
        let directory = try temporaryPages(["home.json": opener("sheet"), "sheet.json": page("sheet")])
        let first = PageCatalog.load(directory: directory)
        try FileManager.default.removeItem(atPath: directory + "/sheet.json")
        let removed = reload(directory, reusing: first)
        #expect(removed.sources.decoded.isEmpty)
        #expect(removed.diagnostics.map(\.diagnostic.code) == ["unknown_page_reference"])
        #expect(removed.diagnostics.map(\.file) == ["home.json"])
        try write(page("sheet"), to: directory + "/sheet.json")
        let restored = reload(directory, reusing: removed)
        #expect(restored.sources.decoded == ["sheet.json"])
        #expect(restored.diagnostics.isEmpty)
        #expect(restored.pageIDs == ["home", "sheet"])
    }

    @Test func actionReferencesAndDuplicatesAreCheckedAcrossUnchangedFiles() throws {
        let directory = try temporaryPages([
            "home.json": caller("cart.add"), "cart.json": declaring("cart", action: "cart.add"),
        ])
        let first = PageCatalog.load(directory: directory)
        #expect(first.diagnostics.isEmpty)
        try write(declaring("cart", action: "cart.ad"), to: directory + "/cart.json")
        let renamed = reload(directory, reusing: first)
        #expect(renamed.sources.decoded == ["cart.json"])
        #expect(
            renamed.diagnostics.map(\.description) == [
                "home.json: /page/sections/0/widgets/0/actions/tap/name: error: unknown_action_reference: no page declares action \"cart.add\" (did you mean cart.ad?)"
            ])
        try write(declaring("basket", action: "cart.ad"), to: directory + "/basket.json")
        let duplicate = reload(directory, reusing: renamed)
        #expect(duplicate.sources.decoded == ["basket.json"])
        #expect(
            duplicate.diagnostics.map(\.diagnostic.code).sorted() == ["duplicate_action", "unknown_action_reference"])
    }

    @Test func theBundledPagesReloadUnchangedWithoutDecoding() throws {
        let first = PageCatalog.load(directory: repositoryRoot + "/pages")
        let again = reload(repositoryRoot + "/pages", reusing: first)
        #expect(again.sources.decoded.isEmpty)
        #expect(!again.scenarios.isEmpty)
    }

    @Test func editsToTheBundledPagesGiveWhatAFullLoadGives() throws {
        let directory = try copyOfBundledPages()
        let cart = try String(contentsOfFile: directory + "/cart.json", encoding: .utf8)
        let product = try String(contentsOfFile: directory + "/product.json", encoding: .utf8)
        var catalog = PageCatalog.load(directory: directory)
        try write("{ broken", to: directory + "/cart.json")
        catalog = reload(directory, reusing: catalog)
        #expect(catalog.sources.decoded == ["cart.json"])
        #expect(catalog.diagnostics.map(\.file) == ["cart.json"])
        try write(cart, to: directory + "/cart.json")
        try FileManager.default.removeItem(atPath: directory + "/product.json")
        catalog = reload(directory, reusing: catalog)
        #expect(catalog.sources.decoded == ["cart.json"])
        #expect(catalog.diagnostics.contains { $0.diagnostic.code == "scenario_without_page" })
        try write(product, to: directory + "/product.json")
        catalog = reload(directory, reusing: catalog)
        // A scenario whose page file is missing is not read, so it is decoded again when the page returns.
        #expect(catalog.sources.decoded == ["product.json", "product.p-1042.json"])
        #expect(catalog.diagnostics.filter { $0.diagnostic.severity == .error }.isEmpty)
    }

    @Test func anUnchangedPageKeepsItsPreparedBodyAndAChangedOneGetsANewOne() throws {
        let directory = try temporaryPages(["home.json": page("home"), "cart.json": page("cart")])
        var configuration = BFFConfiguration()
        configuration.pages.directory = directory
        let application = BFFApplication(
            configuration: configuration, catalog: PageCatalog.load(directory: directory), log: MemoryLogSink())
        let before = application.snapshot
        let cart = try #require(before.catalog.pages["cart"])
        let home = try #require(before.catalog.pages["home"])

        try write(
            page("home", widgets: #"{"id": "t", "type": "text", "content": {"text": "y"}}"#),
            to: directory + "/home.json")
        let reloaded = application.reloadPages()
        #expect(reloaded.sources.decoded == ["home.json"])
        let after = application.snapshot
        #expect(after.catalog.pages["cart"]?.version == cart.version)
        let cartBody = try #require(after.firstLoads[cart.version])
        #expect(cartBody === before.firstLoads[cart.version])
        let newHome = try #require(after.catalog.pages["home"])
        #expect(newHome.version != home.version)
        let homeBody = try #require(after.firstLoads[newHome.version])
        #expect(homeBody.etag != before.firstLoads[home.version]?.etag)
        #expect(after.firstLoads[home.version] == nil)
    }

    @Test func aBrokenEditKeepsTheLastGoodVersionAndItsFixIsServed() throws {
        let directory = try temporaryPages(["home.json": page("home"), "cart.json": page("cart")])
        var configuration = BFFConfiguration()
        configuration.pages.directory = directory
        let application = BFFApplication(
            configuration: configuration, catalog: PageCatalog.load(directory: directory), log: MemoryLogSink())
        let good = try #require(application.catalog.pages["home"]?.version)
        try write("{ broken", to: directory + "/home.json")
        let kept = application.reloadPages()
        #expect(kept.pages["home"]?.version == good)
        #expect(application.reload.status.withLock { $0.kept } == ["home.json"])
        let again = application.reloadPages()
        #expect(again.sources.decoded.isEmpty)
        #expect(again.pages["home"]?.version == good)
        #expect(application.reload.status.withLock { $0.diagnostics.map(\.file) } == ["home.json"])
        try write(
            page("home", widgets: #"{"id": "t", "type": "text", "content": {"text": "fixed"}}"#),
            to: directory + "/home.json")
        let fixed = application.reloadPages()
        #expect(fixed.sources.decoded == ["home.json"])
        #expect(fixed.pages["home"]?.version != good)
        #expect(application.reload.status.withLock { $0.kept }.isEmpty)
    }

    @Test func actionTargetsAreKeptUnlessAnActionTheyFollowChanged() throws {
        func cart(bringing widget: String) -> String {
            declaring(
                "cart", action: "cart.add",
                answer:
                    #"{"schemaVersion": 1, "kind": "actionResponse", "mutations": [{"type": "replaceWidget", "id": "t", "widget": "#
                    + widget + "}]}")
        }
        let tappable =
            #"{"id": "t", "type": "button", "content": {"title": "x"}, "actions": {"tap": {"type": "deeplink", "url": "x://y"}}}"#
        let directory = try temporaryPages([
            "home.json": caller("cart.add"), "cart.json": cart(bringing: tappable), "other.json": page("other"),
        ])
        var configuration = BFFConfiguration()
        configuration.pages.directory = directory
        let application = BFFApplication(
            configuration: configuration, catalog: PageCatalog.load(directory: directory), log: MemoryLogSink())
        #expect(application.catalog.diagnostics.isEmpty, "\(application.catalog.diagnostics.map(\.description))")
        let home = try #require(application.catalog.pages["home"])
        #expect(application.snapshot.actionTargets(of: home).events["t"] == ["tap"])

        try write(page("other", widgets: #"{"id": "t", "type": "divider"}"#), to: directory + "/other.json")
        application.reloadPages()
        #expect(application.snapshot.targets[home.version] != nil, "kept: no action home follows changed")

        try write(cart(bringing: #"{"id": "t", "type": "divider"}"#), to: directory + "/cart.json")
        application.reloadPages()
        #expect(application.catalog.pages["home"]?.version == home.version)
        #expect(application.snapshot.targets[home.version] == nil, "dropped: cart.add answers differently")
        #expect(application.snapshot.actionTargets(of: home).events["t"] == [])
    }
}
