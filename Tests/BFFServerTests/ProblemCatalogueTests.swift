import BFFTesting
import Foundation
import PageModel
import Testing

/// The problem catalogue (`ProblemCode.all`) is the one list of the codes a server sends: the sources build their
/// problems from it, and every document that lists codes lists exactly what it holds. A code added in the sources,
/// the OpenAPI document or a doc without the catalogue (or the other way round) fails here.
@Suite struct ProblemCatalogueTests {
    static let root: String = {
        var url = URL(fileURLWithPath: TestServer.bundledPages)
        url.deleteLastPathComponent()
        return url.path
    }()

    static func read(_ path: String) throws -> String {
        try String(contentsOfFile: root + "/" + path, encoding: .utf8)
    }

    /// Matches of `pattern`'s first group in `text`.
    static func matches(_ pattern: String, in text: String) throws -> [String] {
        let regex = try NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    /// Code → status of the rows of the first table after `heading` (rows like "| `code` | 404 | …", where a cell
    /// may name several codes).
    static func table(after heading: String, in text: String) throws -> [String: String] {
        let start = try #require(text.range(of: heading)).upperBound
        var rows: [String: String] = [:]
        var inTable = false
        for line in text[start...].split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.hasPrefix("|") else {
                if inTable { break }
                continue
            }
            inTable = true
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2 else { continue }
            for code in try matches(#"`([a-z][a-z0-9_]*)`"#, in: cells[0]) { rows[code] = cells[1] }
        }
        return rows
    }

    static func status(_ code: ProblemCode) -> String { code.status.map(String.init) ?? "5xx or 429, as asked" }

    @Test func theCatalogueIsConsistent() throws {
        let names = ProblemCode.all.map(\.rawValue)
        #expect(Set(names).count == names.count, "a code is listed twice")
        for code in ProblemCode.all {
            #expect(try Self.matches(#"^([a-z][a-z0-9]*(?:_[a-z0-9]+)*)$"#, in: code.rawValue).count == 1, "\(code)")
            #expect(code.status.map { (400...599).contains($0) } ?? (code == .simulatedFault), "\(code)")
            #expect(!code.title.isEmpty && !code.meaning.isEmpty)
            #expect(ProblemCode.named(code.rawValue) == code)
        }
        // Every member declared in the catalogue's file is in `all`.
        let declared = try Self.matches(
            #"public static let \w+ = ProblemCode\(\s*"([a-z0-9_]+)""#,
            in: Self.read("Sources/PageModel/Contract/ProblemCode+Catalogue.swift"))
        #expect(Set(declared) == Set(names))
        #expect(declared.count == names.count)
    }

    /// No problem in the sources is built from a code literal: every one names a catalogue member (a page file's
    /// declared answers and a provider's own `PageProviderError` carry their authors' codes, passed through).
    @Test func theSourcesBuildProblemsFromTheCatalogue() throws {
        let enumerator = try #require(FileManager.default.enumerator(atPath: Self.root + "/Sources/BFFServer"))
        var literals: [String] = []
        while let file = enumerator.nextObject() as? String {
            guard file.hasSuffix(".swift") else { continue }
            let text = try Self.read("Sources/BFFServer/" + file)
            for code in try Self.matches(
                #"(?:ProblemDetails|HTTPError|PageProviderError)\((?:[^()]|\([^()]*\))*?code: "([a-z_0-9]+)""#, in: text
            ) {
                literals.append("\(file): \(code)")
            }
        }
        #expect(literals.isEmpty, "problem codes written as literals: \(literals)")
    }

    /// HTTPCore knows nothing of the catalogue (it is a general HTTP server), so its codes are read from its
    /// sources: each one flow-bff can send is catalogued. Two never reach a client of flow-bff: the router's
    /// `route_not_found` is answered as `not_found`, and `bad_request` is only `HTTPError.badRequest`'s default.
    @Test func everyCodeOfTheHTTPLayerIsCatalogued() throws {
        let enumerator = try #require(FileManager.default.enumerator(atPath: Self.root + "/Sources/HTTPCore"))
        var codes = Set<String>()
        while let file = enumerator.nextObject() as? String {
            guard file.hasSuffix(".swift") else { continue }
            let text = try Self.read("Sources/HTTPCore/" + file)
            codes.formUnion(try Self.matches(#"\bbad\(\s*"([a-z_0-9]+)""#, in: text))
            codes.formUnion(try Self.matches(#"HTTPParseError\(\s*\.\w+,\s*"([a-z_0-9]+)""#, in: text))
            codes.formUnion(try Self.matches(#"code: "([a-z_0-9]+)""#, in: text))
        }
        #expect(codes.count > 30, "the HTTP layer's codes were found (\(codes.count))")
        let uncatalogued = codes.subtracting(ProblemCode.all.map(\.rawValue)).subtracting([
            "route_not_found", "bad_request",
        ])
        #expect(uncatalogued.isEmpty, "HTTPCore codes missing from the catalogue: \(uncatalogued.sorted())")
    }

    /// docs/contract.md § 13 lists every code of the contract with its status (it may name mock-only ones too).
    @Test func theContractListsTheContractsCodes() throws {
        let rows = try Self.table(after: "Codes (statuses are the contract", in: Self.read("docs/contract.md"))
        let expected = ProblemCode.all.filter { $0.scope == .contract }
        for code in expected { #expect(rows[code.rawValue] == Self.status(code), "\(code) in contract.md § 13") }
        for (code, status) in rows {
            let catalogued = try #require(ProblemCode.named(code), "\(code) in contract.md is not catalogued")
            #expect(status == Self.status(catalogued), "\(code)")
        }
    }

    @Test(arguments: [
        ("docs/mock.md", "## Problem codes of mock mode", ProblemCode.Scope.mock),
        ("docs/http.md", "The codes the HTTP layer answers with", ProblemCode.Scope.http),
    ])
    func theDocsListTheirScopeExactly(file: String, heading: String, scope: ProblemCode.Scope) throws {
        let rows = try Self.table(after: heading, in: Self.read(file))
        let expected = ProblemCode.all.filter { $0.scope == scope }
        #expect(Set(rows.keys) == Set(expected.map(\.rawValue)), "\(file) and the catalogue disagree")
        for code in expected { #expect(rows[code.rawValue] == Self.status(code), "\(code) in \(file)") }
    }

    /// The OpenAPI document's Problem schema lists every code with its status (`x-flow-problem-codes`), and the
    /// codes its descriptions name are catalogued (or are action types, degradation codes, cookie names, or codes
    /// the bundled pages declare for their own answers).
    @Test func theOpenAPIDocumentListsTheCatalogue() throws {
        let document = try JSONParser().parse(Array(Self.read("docs/openapi.json").utf8))
        let listed = try #require(
            document["components"]?["schemas"]?["Problem"]?["properties"]?["code"]?["x-flow-problem-codes"]?
                .objectValue)
        var fromDocument: [String: Int?] = [:]
        for member in listed.members { fromDocument[member.key] = member.value.intValue }
        var fromCatalogue: [String: Int?] = [:]
        for code in ProblemCode.all { fromCatalogue[code.rawValue] = code.status }
        #expect(fromDocument == fromCatalogue)

        var named = Set<String>()
        func walk(_ value: JSONValue) throws {
            switch value {
            case .object(let object):
                for member in object.members {
                    if member.key == "description", let text = member.value.stringValue {
                        named.formUnion(try Self.matches(#"\b([a-z]+(?:_[a-z0-9]+)+)\b"#, in: text))
                    }
                    try walk(member.value)
                }
            case .array(let items): for item in items { try walk(item) }
            default: break
            }
        }
        try walk(document)
        let authored = try Self.declaredPageCodes()
        let degradations = [
            Degradation.Code.widgetReplaced, Degradation.Code.widgetGeneralized, Degradation.Code.widgetDropped,
            Degradation.Code.sectionReplaced, Degradation.Code.sectionDropped, Degradation.Code.upstreamFallback,
        ]
        let known = Set(ProblemCode.all.map(\.rawValue)).union(ActionType.all).union(degradations).union(authored)
            .union(["flow_session"])
        #expect(named.subtracting(known).isEmpty, "uncatalogued codes in openapi.json: \(named.subtracting(known))")
    }

    /// Codes the bundled page files declare for their own answers.
    static func declaredPageCodes() throws -> Set<String> {
        let files = try FileManager.default.contentsOfDirectory(atPath: TestServer.bundledPages)
        var codes = Set<String>()
        for file in files where file.hasSuffix(".json") {
            let text = try String(contentsOfFile: TestServer.bundledPages + "/" + file, encoding: .utf8)
            codes.formUnion(try matches(#""code":\s*"([a-z_0-9]+)""#, in: text))
        }
        return codes
    }
}
