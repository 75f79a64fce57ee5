import BFFServer
import BFFTesting
import ContractVerifier
import Foundation
import PageModel
import Testing

/// The report says what kinds of things the crawl exercised (issue 32): widget, action, effect and mutation types.
@Suite struct ExercisedKindsTests {
    @Test func theBundledPagesExerciseTheirTypes() async throws {
        let catalog = PageCatalog.load(directory: TestServer.bundledPages)
        let report = try await withTestServer { server in
            try await crawl(URL(string: server.baseURL)!, entry: catalog.pageIDs)
        }
        let exercised = report.coverage.exercised
        #expect(exercised.widgetTypes.isSuperset(of: ["button", "stepper", "list_row", "carousel", "text"]))
        #expect(exercised.actionTypes.isSuperset(of: ["api", "open_bottom_sheet"]))
        #expect(exercised.effectTypes.contains("toast"))
        #expect(exercised.mutationTypes.isSuperset(of: ["replaceWidget", "removeWidget"]))
        #expect(report.summary.contains("exercised: \(exercised.widgetTypes.count) widget types (accordion, banner, "))
        let json = String(decoding: try report.jsonData(), as: UTF8.self)
        #expect(json.contains(#""mutationTypes""#))
    }
}
