import Foundation
import Testing

@testable import PageModel

/// The broken-document corpus: each fixture in `Fixtures/broken/` must produce exactly the error or diagnostic
/// its `expectations.json` entry names.
@Suite struct FixtureCorpusTests {
    struct Expectation: Decodable, Sendable, CustomTestStringConvertible {
        var file: String
        var decode: String
        var expect: String
        var code: String
        var path: String
        var severity: String?
        var widgetID: String?

        var testDescription: String { "\(file) → \(code) at \(path.isEmpty ? "/" : path)" }
    }

    static let directory = "Tests/PageModelTests/Fixtures/broken"

    static let expectations: [Expectation] = {
        guard let bytes = try? readBytes(directory + "/expectations.json") else { return [] }
        return (try? JSONDecoder().decode([Expectation].self, from: Data(bytes))) ?? []
    }()

    @Test func theManifestIsReadable() {
        #expect(Self.expectations.count >= 50)
    }

    @Test func everyFixtureHasAnExpectation() throws {
        let files = Set(try listFiles(Self.directory).map { String($0.split(separator: "/").last!) })
        let listed = Set(Self.expectations.map(\.file))
        #expect(files.subtracting(["expectations.json"]) == listed)
    }

    /// Decodes per the entry's `decode` kind; returns diagnostics from decoding plus, for pages, the lint.
    func run(_ expectation: Expectation, bytes: [UInt8]) throws -> [Diagnostic] {
        let decoder = PageDecoder()
        switch expectation.decode {
        case "page":
            let decoded = try decoder.decodePage(bytes)
            return decoded.diagnostics + PageValidator().validate(decoded.value, at: "/page")
        case "nextPage":
            return try decoder.decodeNextPage(bytes).diagnostics
        case "actionResponse":
            return try decoder.decodeActionResponse(bytes).diagnostics
        default:
            let decoded = try decoder.decodeEnvelope(bytes)
            if case .page(let page) = decoded.value { return decoded.diagnostics + PageValidator().validate(page) }
            return decoded.diagnostics
        }
    }

    @Test(arguments: expectations)
    func fixtureYieldsItsExpectedResult(_ expectation: Expectation) throws {
        let bytes = try readBytes(Self.directory + "/" + expectation.file)
        if expectation.expect == "throws" {
            #expect {
                _ = try run(expectation, bytes: bytes)
            } throws: { error in
                guard let error = error as? ContractError else { return false }
                return error.code == expectation.code && error.path.string == expectation.path
            }
        } else {
            let diagnostics = try run(expectation, bytes: bytes)
            let match = diagnostics.first { $0.code == expectation.code && $0.path.string == expectation.path }
            #expect(match != nil, "got \(diagnostics)")
            if let severity = expectation.severity { #expect(match?.severity.rawValue == severity) }
            if let widgetID = expectation.widgetID { #expect(match?.widgetID == widgetID) }
        }
    }

    /// Documents that are invalid by schema must fail decoding too (Tests/schema/validate.py checks the schema side).
    @Test(arguments: (try? listFiles("Tests/PageModelTests/Fixtures/schema-invalid")) ?? [])
    func schemaInvalidFixturesFailDecoding(_ file: String) throws {
        #expect(throws: ContractError.self) { try PageDecoder().decodeEnvelope(try readBytes(file)) }
    }
}

/// Golden examples pin the exact wire shape: decoding then re-encoding reproduces each file byte for byte
/// (compact), and the examples are the ones docs/contract.md shows.
@Suite struct GoldenTests {
    func compact(_ file: String) throws -> [UInt8] {
        JSONWriter().write(try JSONParser().parse(try readBytes(file)))
    }

    @Test(arguments: ["page", "next-page", "action-response"])
    func examplesRoundTripExactly(_ name: String) throws {
        let file = "docs/examples/\(name).json"
        let decoded = try PageDecoder().decodeEnvelope(try readBytes(file))
        #expect(decoded.diagnostics.isEmpty)
        let golden = try compact(file)
        #expect(decoded.value.encoded() == golden, "\(file) re-encodes to its own compact form")
        #expect(try PageDecoder().decodeEnvelope(decoded.value.encoded()).value == decoded.value)
    }

    @Test func theProblemExampleMatchesTheType() throws {
        let file = "docs/examples/problem.json"
        let problem = try JSONDecoder().decode(ProblemDetails.self, from: Data(try readBytes(file)))
        let golden = try compact(file)
        #expect(problem.encoded() == golden)
    }

    @Test func exactShapeOfEachKind() {
        let widget = Widget(
            id: "qty", type: "stepper", content: ["value": 1], actions: ["change": .api(name: "cart.set")])
        let page = Envelope.page(
            PageModel(
                id: "cart", title: "Cart", sections: [Section(id: "items", widgets: [widget])],
                pagination: Pagination(hasMore: true, postback: "c")))
        #expect(
            String(decoding: page.encoded(), as: UTF8.self)
                == #"{"schemaVersion":1,"kind":"page","page":{"id":"cart","title":"Cart","sections":[{"id":"items","widgets":[{"id":"qty","type":"stepper","content":{"value":1},"actions":{"change":{"type":"api","name":"cart.set"}}}]}],"pagination":{"hasMore":true,"postback":"c"}}}"#
        )
        let next = Envelope.nextPage(NextPage(sections: [], pagination: .end))
        #expect(
            String(decoding: next.encoded(), as: UTF8.self)
                == #"{"schemaVersion":1,"kind":"nextPage","sections":[],"pagination":{"hasMore":false}}"#)
        let response = Envelope.actionResponse(
            ActionResponse(mutations: [.removeWidget(id: "qty")], effects: [.toast(message: "Removed")]))
        #expect(
            String(decoding: response.encoded(), as: UTF8.self)
                == #"{"schemaVersion":1,"kind":"actionResponse","mutations":[{"type":"removeWidget","id":"qty"}],"effects":[{"type":"toast","message":"Removed"}]}"#
        )
        let problem = ProblemDetails(
            status: 404, code: "page_not_found", title: "Page not found", detail: "No page \"x\".")
        #expect(
            String(decoding: problem.encoded(), as: UTF8.self)
                == #"{"type":"https://flow-bff.dev/problems/page_not_found","title":"Page not found","status":404,"detail":"No page \"x\".","code":"page_not_found"}"#
        )
    }
}
