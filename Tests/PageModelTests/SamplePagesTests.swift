import Testing

@testable import PageModel

@Suite struct SamplePagesTests {
    /// A page file is a page envelope plus a `server` member the codec ignores (pages/README.md). A page made from
    /// data (`"$schema": "../schema/page-template.schema.json"`, pages/README.md § Pages from data) is a template the
    /// server expands first: the catalog's tests check what it makes (PagesFromDataTests, PageCatalogTests).
    static let pageFiles = ((try? listFiles("pages")) ?? []).filter { file in
        let bytes = (try? readBytes(file)) ?? []
        return !String(decoding: bytes, as: UTF8.self).contains("\"../schema/page-template.schema.json\"")
    }

    @Test func theSampleAppIsComplete() {
        let names = Set(Self.pageFiles.map { String($0.dropFirst("pages/".count).dropLast(".json".count)) })
        #expect(names.isSuperset(of: ["home", "feed", "cart", "product", "empty"]))
    }

    @Test(arguments: pageFiles)
    func everySamplePageDecodesWithoutErrorDiagnostics(_ file: String) throws {
        guard case .object(var root) = try PageDecoder().parse(try readBytes(file)) else {
            Issue.record("\(file) is not a JSON object")
            return
        }
        let server = root["server"]
        root["server"] = nil
        root["$schema"] = nil
        let decoded = try PageDecoder().decodeEnvelope(json: .object(root))
        guard case .page(let page) = decoded.value else {
            Issue.record("\(file) is not a page envelope")
            return
        }
        let findings = decoded.diagnostics + PageValidator().validate(page)
        #expect(findings.filter { $0.severity == .error } == [], "\(file)")
        // `<pageID>.json`, or a scenario file `<pageID>.<scenario>.json` (pages/README.md § Scenarios).
        #expect(file.hasSuffix("/\(page.id).json") || file.contains("/\(page.id)."))
        // Each declared action response decodes too: the envelope, or each `response` of `{"responses": […]}`.
        // A templated response (`{{…}}` placeholders) may hold a placeholder where the contract wants a number;
        // the server checks it when it fills it, so only its kind is checked here.
        if case .object(let actions)? = server?["actions"] {
            for member in actions.members {
                let responses =
                    member.value["responses"]?.arrayValue.map { $0.compactMap { $0["response"] } } ?? [member.value]
                for json in responses {
                    let response = try PageDecoder().decodeEnvelope(json: json)
                    #expect(response.value.kind == .actionResponse)
                    let templated = String(decoding: JSONWriter().write(json), as: UTF8.self).contains("{{")
                    #expect(
                        templated || !response.diagnostics.containsErrors,
                        "\(file) action \(member.key): \(response.diagnostics)")
                }
            }
        }
    }

    @Test func theFeedIsLongEnoughToPaginate() throws {
        let decoded = try PageDecoder().decodePage(try readBytes("pages/feed.json"))
        let items = decoded.value.sections.reduce(0) { $0 + $1.widgets.count }
        #expect(items >= 200)
        #expect(decoded.value.sections.count >= 40)
    }

    @Test func theEmptyPageIsEmpty() throws {
        let decoded = try PageDecoder().decodePage(try readBytes("pages/empty.json"))
        #expect(decoded.value.isEmpty)
        #expect(decoded.value.pagination == nil)
    }
}

@Suite struct SchemaCatalogSyncTests {
    /// The JSON Schema's per-type widget rules must name exactly the catalog's types and fields.
    @Test func theSchemaMirrorsTheWidgetCatalog() throws {
        let schema = try PageDecoder().parse(try readBytes("schema/common.schema.json"))
        let definitions = try #require(schema["$defs"]?.objectValue)
        let rules = try #require(definitions["Widget"]?["allOf"]?.arrayValue)
        var types: [String] = []
        for rule in rules {
            guard let type = rule["if"]?["properties"]?["type"]?["const"]?.stringValue else { continue }
            types.append(type)
            let spec = try #require(WidgetCatalog.standard[type], "schema type \(type) is not in the catalog")
            let reference = try #require(rule["then"]?["properties"]?["content"]?["$ref"]?.stringValue)
            let name = try #require(reference.split(separator: "/").last.map(String.init))
            let content = try #require(definitions[name])
            let required = Set((content["required"]?.arrayValue ?? []).compactMap(\.stringValue))
            let properties = Set(content["properties"]?.objectValue?.keys ?? [])
            #expect(required == Set(spec.fields.filter(\.isRequired).map(\.name)), "\(type) required fields")
            #expect(properties == Set(spec.fields.map(\.name)), "\(type) fields")
        }
        #expect(types.sorted() == WidgetCatalog.standard.types)
    }

    /// The schema's type enumerations are the catalog's widget types and the built-in action types; custom types go
    /// through the `x-` extension point (docs/check.md).
    @Test func theSchemaEnumeratesTheKnownTypes() throws {
        let schema = try PageDecoder().parse(try readBytes("schema/common.schema.json"))
        let definitions = try #require(schema["$defs"]?.objectValue)
        func enumerated(_ name: String) -> [String] {
            (definitions[name]?["anyOf"]?[0]?["enum"]?.arrayValue ?? []).compactMap(\.stringValue)
        }
        #expect(enumerated("WidgetType").sorted() == WidgetCatalog.standard.types)
        #expect(enumerated("ActionType").sorted() == ActionType.all.sorted())
        #expect(definitions["CustomWidgetType"]?["pattern"] == .string("^\(AuthoringTypes.extensionPrefix)."))
        #expect(definitions["CustomActionType"]?["pattern"] == .string("^\(AuthoringTypes.extensionPrefix)."))
    }
}
