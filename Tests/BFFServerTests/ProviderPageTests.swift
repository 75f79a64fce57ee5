import BFFServer
import BFFTesting
import HTTPTesting
import PageModel
import Synchronization
import Testing

/// Swift page providers through the live pipeline: what a provider returns is checked like a page file on every
/// call — an unchanged page reuses the check it passed (and its version), a changed one is checked again, and a
/// page the decoder has to normalise is served normalised every time.
@Suite struct ProviderPageTests {
    static let pageID = "provided"

    static func page(id: String = pageID, rowID: String = "row", duplicate: Bool = false) -> PageModel {
        var widgets: [Widget] = [.text(id: rowID, "First")]
        if duplicate { widgets.append(.text(id: rowID, "Second")) }
        return PageModel(
            id: id, title: "Provided", sections: [Section(id: "main", widgets: widgets)])
    }

    final class Calls: Sendable {
        let count = Atomic<Int>(0)
    }

    /// Registers a provider that returns `pages` in turn, one per request (the last one from then on), and runs
    /// `body`.
    func withProvider(
        _ pages: [PageModel], _ body: (HTTPTestClient, Calls) async throws -> Void
    ) async throws {
        let calls = Calls()
        try await withTestServer { server in
            server.service.application.providers.register(Self.pageID) { _ in
                ProvidedPage(pages[min(calls.count.add(1, ordering: .relaxed).oldValue, pages.count - 1)])
            }
            try await body(HTTPTestClient(port: server.port), calls)
        }
    }

    @Test func anUnchangedPageKeepsItsVersion() async throws {
        try await withProvider([Self.page()]) { http, calls in
            let first = try await http.get("/v1/pages/\(Self.pageID)")
            let second = try await http.get("/v1/pages/\(Self.pageID)")
            #expect(first.status == 200 && second.status == 200)
            #expect(first.header("ETag") != nil && first.header("ETag") == second.header("ETag"))
            #expect(first.body == second.body)
            #expect(calls.count.load(ordering: .relaxed) == 2, "the provider runs for every request")
        }
    }

    /// A page that was fine once and is broken the next time is refused the next time: the reuse compares the
    /// whole document, not the page id.
    @Test func aPageThatTurnsInvalidIsRefused() async throws {
        try await withProvider([Self.page(), Self.page(id: "other"), Self.page()]) { http, _ in
            #expect(try await http.get("/v1/pages/\(Self.pageID)").status == 200)
            let broken = try await http.get("/v1/pages/\(Self.pageID)")
            #expect(broken.status == 500)
            #expect(broken.text.contains("invalid_provider_page"), "\(broken.text)")
            #expect(try await http.get("/v1/pages/\(Self.pageID)").status == 200)
        }
    }

    @Test func aChangedPageGetsANewVersion() async throws {
        try await withProvider([Self.page(rowID: "row-0"), Self.page(rowID: "row-1")]) { http, _ in
            let first = try await http.get("/v1/pages/\(Self.pageID)")
            let second = try await http.get("/v1/pages/\(Self.pageID)")
            #expect(first.status == 200 && second.status == 200)
            #expect(first.header("ETag") != second.header("ETag"))
            #expect(second.text.contains("row-1"))
        }
    }

    /// An empty widget id is replaced by the decoder with one generated from the widget's place (a warning, not an
    /// error); the normalised page differs from what the provider returned, so it is never mistaken for an unchanged
    /// one and served raw.
    @Test func aNormalisedPageIsServedNormalisedEveryTime() async throws {
        try await withProvider([Self.page(rowID: "")]) { http, _ in
            for _ in 0..<3 {
                let response = try await http.get("/v1/pages/\(Self.pageID)")
                #expect(response.status == 200, "\(response.text)")
                let page = try PageDecoder().decodePage(response.body).value
                #expect(page.sections.first?.widgets.map(\.id) == ["text@sections.0.widgets.0"])
            }
        }
    }

    /// Duplicate ids are an error (`duplicate_id`): a provider page that has them is refused, every time.
    @Test func duplicateIDsAreRefused() async throws {
        try await withProvider([Self.page(duplicate: true)]) { http, _ in
            for _ in 0..<2 {
                let response = try await http.get("/v1/pages/\(Self.pageID)")
                #expect(response.status == 500)
                #expect(response.text.contains("invalid_provider_page"))
            }
        }
    }
}
