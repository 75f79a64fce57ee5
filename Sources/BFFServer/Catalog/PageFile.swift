import PageModel

/// Decodes one page file (`pages/README.md`): a page envelope plus an optional `server` member with the page's
/// settings and the api actions it declares. Everything is checked with PageModel; nothing here throws — every
/// problem is a diagnostic with the JSON path inside the file.
struct PageFile {
    var page: CatalogPage?
    var actions: [CatalogAction] = []
    /// Every action name the file declares, including those whose answer has errors (so references to them
    /// report the answer's error, not a missing action).
    var declaredActionNames: [String] = []
    var diagnostics: [Diagnostic] = []
    /// What the page and its actions' answers name in other files, checked once all files are loaded.
    var references: [PageReference] = []

    /// The data documents the page's templates read (pages/README.md § Pages from data); empty for a literal page.
    /// A page made from data is decoded again whenever the data changes (``SourceFiles``).
    var dataDocuments: Set<String> = []
    /// True when the page's content holds data templates.
    var isGenerated = false
    /// True when the file names data outside its content: `server.item`, or an answer's `data` (valid or not).
    var namesData = false
    /// True when decoding the file read the data: its page is made from data, or it names data (then a change of the
    /// data files, a document appearing included, decodes it again).
    var readsData: Bool { isGenerated || namesData }

    static let settingKeys: Set<String> = [
        "pageSize", "cacheControl", "actions", "strings", "defaultLocale", "variants", "item",
    ]

    /// - Parameter data: the data documents templates read (``PageTemplate``); none by default.
    /// - Parameter item: for one item's page of a page per item (``itemPages(_:bytes:file:expectedID:defaults:catalog:data:diagnostics:)``):
    ///   the variable and its item, and the file already parsed. Its answers are not read (the page itself checks
    ///   them against every item's page).
    init(
        bytes: [UInt8], file: String, expectedID: String, defaults: BFFConfiguration.Pages, catalog: WidgetCatalog,
        data: DataDocuments = DataDocuments(), item: (name: String, value: JSONValue, file: JSONObject)? = nil,
        query: [String: String] = [:]
    ) {
        let decoder = PageDecoder(catalog: catalog)
        let validator = PageValidator(catalog: catalog)
        var root: JSONObject
        if let parsed = item?.file {
            root = parsed
        } else {
            do {
                guard case .object(let object) = try decoder.parse(bytes) else {
                    diagnostics.append(.error("invalid_envelope", .root, "a page file is a JSON object"))
                    return
                }
                root = object
            } catch {
                diagnostics.append(error.diagnostic)
                return
            }
        }
        // The authoring rule for types (docs/check.md) runs last, over every diagnostic of the file: the decoder's
        // unknown-type warnings become typo errors unless the type is custom. It reads the types in the file's JSON
        // tree, parsed again only when there is one to review: the tree is not kept alongside the decoded page.
        defer {
            if diagnostics.contains(where: { AuthoringTypes.reviewedCodes.contains($0.code) }) {
                let document = (try? decoder.parse(bytes)) ?? .null
                diagnostics = defaults.authoringTypes.review(diagnostics, in: document, catalog: catalog)
            }
        }
        // Data templates are expanded first: everything below sees the literal page, and what it finds inside
        // generated content is moved to the template it came from.
        var expansion: PageTemplate.Expansion?
        var bindings: [String: JSONValue] = [:]
        var itemSetting: ItemSetting?
        var itemPages: ItemPages?
        if let item {
            bindings[item.name] = item.value
        } else if let setting = root["server"]?["item"] {
            // The page itself is made with the first item (an empty one when there is none): it is what the page's
            // actions and references are checked against; each item's page is made at the end.
            itemSetting = ItemSetting(setting, at: "/server/item", data: data, diagnostics: &diagnostics)
            if let itemSetting {
                bindings[itemSetting.name] = itemSetting.items.first ?? .object(JSONObject())
                dataDocuments.insert(itemSetting.document)
                itemPages = Self.itemPages(
                    itemSetting, bytes: bytes, file: file, expectedID: expectedID, defaults: defaults,
                    catalog: catalog, data: data, diagnostics: &diagnostics)
            }
        }
        if case .object(let settings)? = root["server"] {
            let answers = settings["actions"]?.objectValue?.members.flatMap { $0.value["responses"]?.arrayValue ?? [] }
            namesData = settings["item"] != nil || (answers ?? []).contains { $0["data"] != nil }
        }
        let baseFrom = diagnostics.count
        // (Runs after the findings below are moved to their template positions: declared before.)
        defer {
            // A page per item: every item's page was checked above, so what the page itself (made with the first
            // item, or an empty one) finds in its content adds nothing — and without items nothing is ever served.
            if itemSetting != nil {
                let kept = diagnostics[baseFrom...].filter { !$0.path.string.hasPrefix("/page") }
                diagnostics.removeSubrange(baseFrom...)
                diagnostics += kept
            }
        }
        if let content = root["page"], !bindings.isEmpty || PageTemplate.isTemplate(content) {
            // Fake values in a template draw from a generator seeded by the page id (and the item's key).
            let seed = expectedID + (item.flatMap { itemSetting in "|" + (itemSetting.value.templateText) } ?? "")
            let expanded = PageTemplate.expand(
                content, at: "/page", data: data, bindings: bindings,
                fake: FakeData(seed: FakeData.seed(seed), imageURL: defaults.fakeImageURL), query: query)
            root["page"] = expanded.value
            diagnostics += expanded.diagnostics
            dataDocuments.formUnion(expanded.documents)
            isGenerated = true
            expansion = expanded
        }
        let expandedFrom = diagnostics.count
        defer {
            if let expansion {
                for index in expandedFrom..<diagnostics.count {
                    diagnostics[index].path = expansion.sourcePath(of: diagnostics[index].path)
                }
                for index in references.indices {
                    references[index].path = expansion.sourcePath(of: references[index].path)
                }
            }
        }
        if let content = root["page"] { diagnostics += Self.placeholdersOutsideAnswers(in: content, at: "/page") }
        let server = root["server"]
        root["server"] = nil
        root["$schema"] = nil
        let decodedPage: PageModel
        do {
            // The tree goes with the decoding: only what the page keeps of it (widget content) stays alive.
            let decoded = try decoder.decodeEnvelope(json: .object(consume root))
            diagnostics.append(contentsOf: decoded.diagnostics)
            guard case .page(let page) = decoded.value else {
                diagnostics.append(.error("unexpected_kind", "/kind", "a page file holds a page envelope"))
                return
            }
            decodedPage = page
        } catch {
            diagnostics.append(error.diagnostic)
            return
        }
        diagnostics.append(contentsOf: validator.validate(decodedPage, at: "/page"))
        if decodedPage.id != expectedID {
            diagnostics.append(
                .error(
                    "page_id_mismatch", "/page/id",
                    "page id \"\(decodedPage.id)\" differs from the file name; name the file \(decodedPage.id).json"))
        }
        if decodedPage.pagination != nil {
            diagnostics.append(
                .error(
                    "unexpected_pagination", "/page/pagination", "page files carry no pagination; the server adds it"))
        }
        var pageSize = defaults.defaultPageSize
        var cacheControl = defaults.cacheControl
        var actionNames: [String] = []
        var strings: LocalizedStrings?  // server.strings (PageFile+Strings.swift)
        var variants: [PageVariant] = []  // server.variants (PageFile+Matching.swift)
        defer { diagnostics.append(contentsOf: Self.checkMarkers(decodedPage, strings: strings)) }
        if let server {
            guard case .object(let settings) = server else {
                diagnostics.append(.error("invalid_setting", "/server", "server must be an object"))
                return
            }
            for member in settings.members where !Self.settingKeys.contains(member.key) {
                let hint =
                    NearMiss.closest(to: member.key, among: Self.settingKeys).map { " (did you mean \($0)?)" } ?? ""
                diagnostics.append(.error("unknown_setting", "/server" / member.key, "unknown setting\(hint)"))
            }
            if let size = settings["pageSize"] {
                if let value = size.intValue, value >= 0 {
                    pageSize = value
                } else {
                    diagnostics.append(.error("invalid_setting", "/server/pageSize", "pageSize is an integer ≥ 0"))
                }
            }
            if let control = settings["cacheControl"] {
                if case .string(let value) = control, !value.contains(where: { $0.isNewline }) {
                    cacheControl = value
                } else {
                    diagnostics.append(.error("invalid_setting", "/server/cacheControl", "cacheControl is a string"))
                }
            }
            strings = Self.strings(settings, diagnostics: &diagnostics)
            variants = Self.variants(settings["variants"], diagnostics: &diagnostics)
            if item == nil, let declared = settings["actions"] {
                if case .object(let object) = declared {
                    for member in object.members {
                        let path = JSONPointer("/server/actions") / member.key
                        declaredActionNames.append(member.key)
                        if let action = Self.action(
                            member.key, member.value, at: path, page: decodedPage,
                            alternatives: itemPages?.orderedPages.map(\.page) ?? [], decoder: decoder,
                            validator: validator, data: data, diagnostics: &diagnostics)
                        {
                            actions.append(action)
                            actionNames.append(member.key)
                        }
                    }
                } else {
                    diagnostics.append(.error("invalid_setting", "/server/actions", "actions is an object"))
                }
            }
        }
        references = PageReference.collect(decodedPage, actions: actions)
        page = CatalogPage(
            page: decodedPage, pageSize: pageSize, cacheControl: cacheControl, actionNames: actionNames, file: file,
            strings: strings)
        page?.variants = variants
        if isGenerated, item == nil {
            let generator = PageGenerator(
                bytes: bytes, file: file, expectedID: expectedID, defaults: defaults, catalog: catalog,
                documents: dataDocuments)
            page?.generator = generator
            // A page per item reads no query parameters: its parameter names the item (pages/README.md).
            if query.isEmpty, itemSetting == nil, let expansion, !expansion.queryParameters.isEmpty {
                page?.queryPages = QueryPages(
                    parameters: expansion.queryParameters, filterValues: expansion.filterValues,
                    sortKeys: expansion.sortKeys, generator: generator)
            }
        }
        if let itemPages, page != nil { page?.items = itemPages }
    }

    /// Each item's page (``ItemPages``): the file made with the item bound. Their findings are added once per
    /// code and path (the same template gives the same finding for many items).
    static func itemPages(
        _ setting: ItemSetting, bytes: [UInt8], file: String, expectedID: String, defaults: BFFConfiguration.Pages,
        catalog: WidgetCatalog, data: DataDocuments, diagnostics: inout [Diagnostic]
    ) -> ItemPages {
        var pages: [String: CatalogPage] = [:]
        var keys: [String] = []
        var seen = Set(diagnostics.map { $0.code + "\u{0}" + $0.path.string })
        func add(_ finding: Diagnostic) {
            if seen.insert(finding.code + "\u{0}" + finding.path.string).inserted { diagnostics.append(finding) }
        }
        let keyPath = JSONPointer("/server/item/key")
        // The file is parsed once for all the items.
        guard case .object(let parsed)? = try? PageDecoder(catalog: catalog).parse(bytes) else {
            return ItemPages(parameter: setting.parameter, pages: [:], byVersion: [:], problem: setting.problem)
        }
        var fieldMisses: [String: (finding: Diagnostic, count: Int)] = [:]
        var madeCount = 0
        for (index, item) in setting.items.enumerated() {
            guard let value = item[setting.key], value.stringValue != nil || value.numberValue != nil else {
                add(
                    .error(
                        "invalid_item_key", keyPath,
                        "item \(index) has no text or number \"\(setting.key)\" to name it by"))
                continue
            }
            let key = value.templateText
            guard pages[key] == nil else {
                add(.error("duplicate_item_key", keyPath, "two items have \(setting.key) \"\(key)\""))
                continue
            }
            let made = PageFile(
                bytes: bytes, file: file, expectedID: expectedID, defaults: defaults, catalog: catalog, data: data,
                item: (setting.name, item, parsed))
            // An answer's fixed mutation targets are checked by the page itself against every item's page (they
            // need only be on some: the cancel button of an order still processing). A member one item lacks is
            // absent for it (it inserts nothing); only one that no item has is the file's error, reported below.
            let findings = made.diagnostics.filter { !$0.path.string.hasPrefix("/server/actions") }
            for finding in findings {
                if finding.code == PageTemplate.unknownField {
                    fieldMisses[finding.path.string, default: (finding, 0)].count += 1
                } else {
                    add(finding)
                }
            }
            madeCount += 1
            if let page = made.page,
                !findings.contains(where: { $0.severity == .error && $0.code != PageTemplate.unknownField })
            {
                pages[key] = page
                keys.append(key)
            }
        }
        for (finding, count) in fieldMisses.values.sorted(by: { $0.finding.path.string < $1.finding.path.string })
        where count == madeCount {
            add(finding)
        }
        return ItemPages(
            parameter: setting.parameter, pages: pages,
            byVersion: Dictionary(pages.values.map { ($0.version, $0) }, uniquingKeysWith: { first, _ in first }),
            problem: setting.problem, keys: keys)
    }

    /// Decodes one declared action response and proves its mutations apply cleanly, in order, to the page. A
    /// response with placeholders is checked as far as its fixed parts go: the templated strings (and mutations
    /// targeting a templated id) are checked per request, when filled (PageFile+Matching.swift).
    static func response(
        _ value: JSONValue, at path: JSONPointer, page: PageModel, alternatives: [PageModel] = [],
        decoder: PageDecoder, validator: PageValidator, diagnostics allDiagnostics: inout [Diagnostic]
    ) -> (response: ActionResponse, template: ResponseTemplate?)? {
        var templateErrors: [MatchingError] = []
        var template = ResponseTemplate.parse(value, errors: &templateErrors)
        template?.widgets = decoder.catalog
        for problem in templateErrors {
            allDiagnostics.append(
                .error(problem.code, JSONPointer(string: path.string + problem.path.string), problem.message))
        }
        guard templateErrors.isEmpty else { return nil }
        let templated = (template?.templatedPaths ?? []).map { path.string + $0.string }
        func isTemplated(_ pointer: JSONPointer) -> Bool {
            templated.contains { pointer.string == $0 || pointer.string.hasPrefix($0 + "/") }
        }
        var diagnostics: [Diagnostic] = []
        defer { allDiagnostics += diagnostics.filter { !isTemplated($0.path) } }
        let response: ActionResponse
        do {
            let decoded = try decoder.decodeEnvelope(json: value)
            diagnostics.append(contentsOf: decoded.diagnostics.map { $0.rebased(onto: path) })
            guard case .actionResponse(let decodedResponse) = decoded.value else {
                diagnostics.append(
                    .error("unexpected_kind", path / "kind", "an action holds an actionResponse envelope"))
                return nil
            }
            response = decodedResponse
        } catch {
            diagnostics.append(error.diagnostic.rebased(onto: path))
            return nil
        }
        diagnostics.append(contentsOf: validator.validate(effects: response.effects, at: path / "effects"))
        for (index, mutation) in response.mutations.enumerated() {
            diagnostics.append(contentsOf: validator.validate(mutation, at: path / "mutations" / index))
        }
        /// What applying the mutations in order to `start` finds.
        func applying(to start: PageModel) -> [Diagnostic] {
            var found: [Diagnostic] = []
            var document = start
            for (index, mutation) in response.mutations.enumerated() {
                let mutationPath = path / "mutations" / index
                if case .replaceWidget = mutation, isTemplated(mutationPath / "id") { continue }
                if case .removeWidget = mutation, isTemplated(mutationPath / "id") { continue }
                var applyDiagnostics: [Diagnostic] = []
                do {
                    document = try document.applying(mutation, diagnostics: &applyDiagnostics)
                    found.append(contentsOf: applyDiagnostics.map { $0.rebased(onto: mutationPath) })
                } catch {
                    found.append(
                        .error(
                            error.code, mutationPath / "id",
                            "\(error.message) of page \"\(page.id)\" (mutations apply in order)"))
                }
            }
            return found
        }
        // A page made per data item: the mutations must apply to some item's page (the cancel button exists only
        // on an order still processing).
        var applied = applying(to: page)
        if applied.containsErrors {
            for alternative in alternatives {
                let found = applying(to: alternative)
                if !found.containsErrors {
                    applied = found
                    break
                }
            }
        }
        diagnostics += applied
        return (response, template)
    }
}

extension Diagnostic {
    /// This diagnostic with its path placed under `prefix` (for documents embedded in a larger file).
    func rebased(onto prefix: JSONPointer) -> Diagnostic {
        var copy = self
        copy.path = JSONPointer(string: prefix.string + path.string)
        return copy
    }
}
