import PageModel

/// A page made once per item of a data array (`server.item`, pages/README.md § Pages from data): `order?orderID=o-1002`
/// is the page's template filled with the order whose `id` is `o-1002`. Every item's page is made when the file
/// loads, like a variant (its own version, ETag, cursors and cached bytes); a first load without the parameter, or
/// with a value no item has, answers the declared problem (404 `item_not_found` by default).
struct ItemPages: Sendable {
    /// The query parameter that names the item.
    var parameter: String
    /// Each item's page, by its key as text.
    var pages: [String: CatalogPage]
    /// The same pages by content version (for cursors issued on them).
    var byVersion: [String: CatalogPage]
    var problem: ProblemDetails
    /// The keys in the data's order.
    var keys: [String] = []

    /// The pages in the data's order.
    var orderedPages: [CatalogPage] { keys.compactMap { pages[$0] } }

    /// Up to three keys to load the pages with: the first, middle and last item's (the page index lists them).
    var sampleKeys: [String] {
        guard keys.count > 3 else { return keys }
        return [keys[0], keys[keys.count / 2], keys[keys.count - 1]]
    }

    /// The source of a first load with `parameters`.
    func source(_ parameters: [String: String]) -> PageSource {
        guard let key = parameters[parameter], let page = pages[key] else { return .answer(problem.makeResponse()) }
        return .document(page)
    }
}

/// `server.item` as read from a page file, before the items' pages are made.
struct ItemSetting {
    static let keys: Set<String> = ["parameter", "from", "key", "as", "problem"]

    var parameter: String
    /// The member of each item compared with the parameter (as text).
    var key: String
    /// The variable the item is bound to in the page's templates.
    var name: String
    var items: [JSONValue]
    var problem: ProblemDetails
    /// The data document the items are in.
    var document: String

    /// Parses `{"parameter": "orderID", "from": "data.orders", "key": "id", "as": "order", "problem"?: {…}}` at
    /// `path`; `nil` (with errors) when it cannot be used.
    init?(_ value: JSONValue, at path: JSONPointer, data: DataDocuments, diagnostics: inout [Diagnostic]) {
        guard case .object(let object) = value else {
            diagnostics.append(
                .error(
                    "invalid_setting", path,
                    "item is {\"parameter\", \"from\", \"key\", \"as\"?, \"problem\"?}: the page made for each item"))
            return nil
        }
        let errorsBefore = diagnostics.count { $0.severity == .error }
        for member in object.members where !Self.keys.contains(member.key) {
            let hint = NearMiss.closest(to: member.key, among: Self.keys).map { " (did you mean \($0)?)" } ?? ""
            diagnostics.append(.error("unknown_setting", path / member.key, "unknown member\(hint)"))
        }
        func text(_ member: String, _ rule: String) -> String? {
            guard case .string(let text)? = object[member], !text.isEmpty else {
                diagnostics.append(.error("invalid_setting", path / member, rule))
                return nil
            }
            return text
        }
        let parameter = text("parameter", "parameter is the query parameter that names the item")
        let key = text("key", "key is the member of each item the parameter names (e.g. id)")
        let list = text("from", "from names an array: data.<name>[.path]")
        var name = "item"
        if let given = object["as"] {
            if case .string(let text) = given, text != "data", text != "group", PageTemplate.isIdentifier(text) {
                name = text
            } else {
                diagnostics.append(
                    .error(
                        "invalid_setting", path / "as", "as names the item: letters, digits and _ (not data or group)"))
            }
        }
        var items: [JSONValue] = []
        var document = ""
        if let list {
            do {
                let source = try DataPath(parsing: list, variables: [String]())
                document = source.path.first ?? ""
                if case .array(let found)? = source.resolve(in: ["data": data.scopeValue]) {
                    items = found
                } else if let document = source.path.first, data.documents[document] == nil {
                    let hint = NearMiss.closest(to: document, among: data.names).map { " (did you mean \($0)?)" } ?? ""
                    diagnostics.append(
                        .error(
                            "unknown_data", path / "from",
                            "no data document \"\(document)\" (\(DataDocuments.folder)/\(document).json)\(hint)"))
                } else {
                    diagnostics.append(.error("invalid_setting", path / "from", "\(list) is not an array"))
                }
            } catch {
                diagnostics.append(.error(error.code, path / "from", error.message))
            }
        }
        var problem = ProblemDetails(
            .itemNotFound, detail: parameter.map { "No item has this \($0), or it is missing." } ?? "")
        if let declared = object["problem"],
            let parsed = PageFile.declaredProblem(declared, at: path / "problem", diagnostics: &diagnostics)
        {
            problem = parsed
        }
        guard let parameter, let key, diagnostics.count(where: { $0.severity == .error }) == errorsBefore else {
            return nil
        }
        self.parameter = parameter
        self.key = key
        self.name = name
        self.items = items
        self.problem = problem
        self.document = document
    }
}

extension PageCatalog {
    /// The query parameters to load `pageID` with when it answers only with them (a page made per data item):
    /// up to three samples, the first, middle and last item's; `nil` for a page loaded as it is.
    public func sampleParameters(of pageID: String) -> [[String: String]]? {
        guard let items = pages[pageID]?.items else { return nil }
        return items.sampleKeys.map { [items.parameter: $0] }
    }

    /// How each page is loaded first, as `id` or `id?name=value` (a page made per data item, once per sample), in
    /// page id order: what a crawl of every page starts from.
    public var firstLoads: [String] {
        pageIDs.flatMap { id in
            sampleParameters(of: id).map { samples in
                samples.map { sample in
                    id + "?" + sample.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
                }
            } ?? [id]
        }
    }
}
