import HTTPCore
import PageModel

/// A document served instead of a page for first loads whose query parameters match (`server.variants`,
/// pages/README.md): `product?productID=p-1042` gets the `product.p-1042.json` scenario file, an unknown id a
/// 404 problem. Variants are a page source decision, served in production and mock mode alike.
struct PageVariant: Sendable {
    enum Content: Sendable {
        /// The page itself (ends the search: "these ids are the page as written").
        case page
        /// The scenario file `<pageID>.<name>.json` (a page document or a problem).
        case scenario(String)
        /// A problem+json answer.
        case problem(ProblemDetails)
    }

    var when: RequestCondition
    var content: Content
    /// Where it is declared in the page file, for diagnostics.
    var path: JSONPointer
}

extension CatalogSnapshot {
    /// The source of a first load of `page` with `parameters`: the first variant whose condition they meet, else
    /// the page itself.
    /// A page made per item (`server.item`) is found by its parameter after the variants.
    func variant(of page: CatalogPage, parameters: [String: String]) -> PageSource? {
        let facts = RequestFacts(action: nil, query: parameters, headers: [:], sessionID: nil, scenario: nil)
        guard let variant = page.variants.first(where: { $0.when.matches(facts) }) else {
            return page.items?.source(parameters)
        }
        switch variant.content {
        case .page: return nil
        case .problem(let problem): return .answer(problem.makeResponse())
        case .scenario(let name):
            switch catalog.scenarios[page.page.id]?[name]?.content {
            case .page(let document): return .document(document)
            case .problem(let problem): return .answer(problem.makeResponse())
            case nil: return nil  // checked at load; a reload that removed it serves the page
            }
        }
    }

    /// The variant documents of `page` (for action checks and cursors issued on a variant).
    func variantDocuments(of page: CatalogPage) -> [CatalogPage] {
        let items = page.items.map { Array($0.pages.values) } ?? []
        return items
            + page.variants.compactMap { variant in
                guard case .scenario(let name) = variant.content,
                    case .page(let document)? = catalog.scenarios[page.page.id]?[name]?.content
                else { return nil }
                return document
            }
    }
}

extension PageCatalog {
    /// Every variant's scenario must be a scenario file of its page (run after the scenarios are loaded).
    mutating func checkVariants() {
        for page in pages.values.sorted(by: { $0.page.id < $1.page.id }) {
            for variant in page.variants {
                guard case .scenario(let name) = variant.content, scenarios[page.page.id]?[name] == nil else {
                    continue
                }
                let hint =
                    NearMiss.closest(to: name, among: scenarios[page.page.id]?.keys.map { $0 } ?? []).map {
                        " (did you mean \($0)?)"
                    } ?? ""
                diagnostics.append(
                    FileDiagnostic(
                        file: page.file,
                        diagnostic: .error(
                            "unknown_scenario", variant.path / "scenario",
                            "there is no scenario file \(page.page.id).\(name).json\(hint)")))
            }
        }
    }
}
