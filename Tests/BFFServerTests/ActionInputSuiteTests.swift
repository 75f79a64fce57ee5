import BFFServer
import BFFTesting
import Foundation
import HTTPTesting
import PageModel
import Testing

/// No input to an action is a 5xx (docs/actions.md § What a client can get wrong): every JSONTestSuite document
/// (Fixtures/JSONTestSuite, MIT) is sent as `value`, as `payload` and as `widgetID` to every api action of the
/// bundled pages, through a live server. A refusal is a 4xx problem with a known code that names the request
/// member, never a path inside the answer.
@Suite struct ActionInputSuiteTests {
    /// One api action a bundled page declares on a widget.
    struct Target: Sendable {
        var name: String
        var pageID: String
        var widgetID: String
        var event: String
        var payload: String?
    }

    /// The request members a document is sent as.
    enum Member: String, CaseIterable, Sendable {
        case value, payload, widgetID
    }

    static let fixtures: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/JSONTestSuite")

    /// Every stored document, plus the suite's two large ones built here (see the fixtures' README).
    static func documents() throws -> [(name: String, bytes: [UInt8])] {
        let names = try FileManager.default.contentsOfDirectory(atPath: fixtures.path)
            .filter { $0.hasSuffix(".json") }.sorted()
        var documents = try names.map { name in
            (
                name: String(name.dropLast(5)),
                bytes: [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(name)))
            )
        }
        documents.append(("n_structure_100000_opening_arrays", [UInt8](repeating: UInt8(ascii: "["), count: 100_000)))
        documents.append(
            ("n_structure_open_array_object", Array(String(repeating: #"[{"":"#, count: 50_000).utf8) + [10]))
        return documents
    }

    /// The first widget declaring each api action in the bundled pages (their `page` trees, not the answers).
    static func targets() throws -> [Target] {
        let directory = URL(fileURLWithPath: TestServer.bundledPages)
        var targets: [Target] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        where file.hasSuffix(".json") {
            let document = try JSONParser().parse(try Data(contentsOf: directory.appendingPathComponent(file)))
            guard let page = document["page"], let pageID = page["id"]?.stringValue else { continue }
            collect(page, pageID: pageID, into: &targets)
        }
        return targets
    }

    private static func collect(_ value: JSONValue, pageID: String, into targets: inout [Target]) {
        switch value {
        case .array(let items):
            for item in items { collect(item, pageID: pageID, into: &targets) }
        case .object(let object):
            if let widgetID = object["id"]?.stringValue, let actions = object["actions"]?.objectValue {
                for member in actions.members where member.value["type"] == "api" {
                    guard let name = member.value["name"]?.stringValue,
                        !targets.contains(where: { $0.name == name })
                    else { continue }
                    let payload = member.value["payload"].map {
                        String(decoding: JSONWriter().write($0), as: UTF8.self)
                    }
                    targets.append(
                        Target(name: name, pageID: pageID, widgetID: widgetID, event: member.key, payload: payload))
                }
            }
            for member in object.members where member.key != "actions" {
                collect(member.value, pageID: pageID, into: &targets)
            }
        default:
            break
        }
    }

    /// The action request body with `document` as `member` (its bytes as they are, valid JSON or not).
    static func body(_ target: Target, _ member: Member, _ document: [UInt8]) -> [UInt8] {
        func text(_ string: String) -> [UInt8] { Array(string.utf8) }
        func quoted(_ string: String) -> [UInt8] { JSONWriter().write(.string(string)) }
        var body = text(#"{"pageID": "#) + quoted(target.pageID) + text(#", "event": "#) + quoted(target.event)
        body += text(#", "widgetID": "#) + (member == .widgetID ? document : quoted(target.widgetID))
        if member == .value {
            body += text(#", "value": "#) + document
        } else if target.event == "change" {
            body += text(#", "value": 2"#)
        }
        if member == .payload {
            body += text(#", "payload": "#) + document
        } else if let payload = target.payload {
            body += text(#", "payload": "#) + text(payload)
        }
        return body + text("}")
    }

    /// Codes a refusal may carry: the request checks, the declared answers' own problems, and a value that cannot
    /// be placed in the answer.
    static let refusals: Set<String> = [
        "invalid_json", "invalid_request", "unknown_widget", "undeclared_event", "invalid_action_value",
        "quantity_out_of_range", "body_too_large",
    ]

    struct Outcome: Sendable {
        var status: Int
        var code: String?
        var path: String?
        var body: String
    }

    /// Sends every document as every member to the targets `only` keeps (all by default), pipelined in batches on
    /// keep-alive connections (the last request of a batch asks to close, so one exchange per batch reads every
    /// answer). An `n_` document makes the whole body invalid JSON, refused before the action is looked at, so it
    /// goes to the templated `cart.setQuantity` only.
    static func run(mock: Bool, only: Set<String>? = nil) async throws -> [String: Outcome] {
        let documents = try documents()
        let targets = try targets().filter { only?.contains($0.name) ?? true }
        #expect(targets.count >= (only == nil ? 5 : only!.count), "api actions: \(targets.map(\.name))")
        #expect(targets.contains { $0.name == "cart.setQuantity" && $0.event == "change" })
        var configuration = BFFConfiguration()
        configuration.logging.accessLog = false
        configuration.mock.enabled = mock
        // The suite's two large documents (100,000 and 250,000 bytes) reach the parser instead of the size limit.
        configuration.http.maximumActionBodyBytes = 1 << 20
        var requests: [(key: String, head: String, body: [UInt8])] = []
        for target in targets {
            for member in Member.allCases {
                for document in documents where target.name == "cart.setQuantity" || !document.name.hasPrefix("n_") {
                    let body = body(target, member, document.bytes)
                    let head =
                        "POST /v1/actions/\(target.name) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n"
                    requests.append(("\(target.name) \(member.rawValue) \(document.name)", head, body))
                }
            }
        }
        var batches: [[(key: String, head: String, body: [UInt8])]] = [[]]
        for request in requests {
            if batches[batches.count - 1].count == 64
                || batches[batches.count - 1].reduce(0, { $0 + $1.body.count }) + request.body.count > 1 << 18
            {
                batches.append([])
            }
            batches[batches.count - 1].append(request)
        }
        return try await withTestServer(configuration: configuration) { server in
            var outcomes: [String: Outcome] = [:]
            for batch in batches where !batch.isEmpty {
                var bytes: [UInt8] = []
                for (index, request) in batch.enumerated() {
                    let close = index == batch.count - 1 ? "Connection: close\r\n" : ""
                    bytes += Array((request.head + close + "\r\n").utf8) + request.body
                }
                let exchange = await HTTPTestClient(port: server.port).exchange(raw: bytes)
                let responses = try responses(in: exchange.bytes)
                #expect(responses.count == batch.count, "one answer per request: \(batch.first?.key ?? "")")
                for (request, response) in zip(batch, responses) {
                    let problem = response.status >= 400 ? try? JSONParser().parse(response.body) : nil
                    outcomes[request.key] = Outcome(
                        status: response.status, code: problem?["code"]?.stringValue,
                        path: problem?["path"]?.stringValue, body: String(decoding: response.body, as: UTF8.self))
                }
            }
            return outcomes
        }
    }

    /// Splits the bytes of pipelined responses (each with `Content-Length`) into statuses and bodies.
    static func responses(in bytes: [UInt8]) throws -> [(status: Int, body: [UInt8])] {
        var responses: [(status: Int, body: [UInt8])] = []
        var start = 0
        let separator = Array("\r\n\r\n".utf8)
        while start < bytes.count {
            guard let end = bytes[start...].firstRange(of: separator)?.lowerBound else { break }
            let head = String(decoding: bytes[start..<end], as: UTF8.self).split(separator: "\r\n")
            guard let statusLine = head.first, let status = Int(statusLine.split(separator: " ")[1]) else {
                throw HTTPTestClient.ClientError(description: "not a status line: \(head.first ?? "")")
            }
            let length = head.dropFirst().compactMap { line -> Int? in
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                return Int(parts[1].trimmingCharacters(in: .whitespaces))
            }.first
            guard let length else {
                throw HTTPTestClient.ClientError(description: "an answer without Content-Length: \(head)")
            }
            let bodyStart = end + separator.count
            responses.append((status, Array(bytes[bodyStart..<min(bytes.count, bodyStart + length)])))
            start = bodyStart + length
        }
        return responses
    }

    static func check(_ outcomes: [String: Outcome]) {
        var failures: [String] = []
        for (key, outcome) in outcomes.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: " ")
            let (member, document) = (String(parts[1]), String(parts[2]))
            if outcome.status >= 500 {
                failures.append("\(key): \(outcome.status) \(outcome.body)")
                continue
            }
            guard outcome.status >= 400 else { continue }
            guard let code = outcome.code, refusals.contains(code) else {
                failures.append("\(key): \(outcome.status) with an unexpected body \(outcome.body)")
                continue
            }
            if outcome.body.contains("/mutations") || outcome.body.contains("diagnostics") {
                failures.append("\(key): the problem shows the answer's internals: \(outcome.body)")
            }
            if code == "invalid_action_value", outcome.status != 422 || outcome.path?.hasPrefix("/\(member)") != true {
                failures.append("\(key): invalid_action_value must be 422 naming /\(member): \(outcome.body)")
            }
            if document.hasPrefix("n_"), code != "invalid_json" {
                failures.append("\(key): an invalid document makes the body invalid JSON: \(outcome.body)")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) failures:\n\(failures.prefix(20).joined(separator: "\n"))")
    }

    @Test func noDocumentIsAServerErrorInProduction() async throws {
        let outcomes = try await Self.run(mock: false)
        Self.check(outcomes)
        // The request check refuses a widgetID that is not a string, and no stored widget has a JSON text as id.
        for (key, outcome) in outcomes where key.contains(" widgetID y_") {
            let isString =
                key.contains("y_structure_lonely_string") || key.contains("y_string_space")
                || key.contains("y_structure_string_empty")
            // The parser refuses duplicate member names (docs/contract.md § Problem codes): invalid_json.
            let duplicate = key.contains("y_object_duplicated_key")
            #expect(outcome.status == 400, "\(key): \(outcome.body)")
            if duplicate {
                #expect(outcome.code == "invalid_json", "\(key)")
            } else if !isString {
                #expect(outcome.code == "invalid_request" && outcome.path == "/widgetID", "\(key)")
            }
        }
        // Values the stepper cannot hold are refused naming /value; well-formed quantities are answered.
        let quantity = outcomes["cart.setQuantity value y_structure_lonely_int"]
        #expect(quantity?.status == 422 && quantity?.code == "quantity_out_of_range", "42 is above the limit")
        let text = outcomes["cart.setQuantity value y_structure_lonely_string"]
        #expect(text?.status == 422 && text?.code == "invalid_action_value" && text?.path == "/value")
        let answered = outcomes.values.count { $0.status == 200 }
        #expect(answered > 100, "most documents are accepted by actions that do not read them: \(answered)")
    }

    /// Mock mode adds sessions and the journal around the same answers: the templated action (whose answer also
    /// applies to the session copy) and one fixed answer.
    @Test func noDocumentIsAServerErrorInMockMode() async throws {
        let outcomes = try await Self.run(mock: true, only: ["cart.setQuantity", "home.dismissPromo"])
        Self.check(outcomes)
        let documents = try Self.documents()
        let invalid = documents.count { $0.name.hasPrefix("n_") }
        #expect(outcomes.count == 3 * documents.count + 3 * (documents.count - invalid), "every request answered")
    }
}
