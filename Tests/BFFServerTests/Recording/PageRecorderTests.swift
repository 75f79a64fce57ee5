import Foundation
import HTTPTesting
import PageModel
import Synchronization
import Testing

@testable import BFFServer

/// PageRecorder without sockets: chunks and answers written by hand, the folder read back with the server's own
/// loader (`PageCatalog.load`, what `flow-bff check` and `serve` run).
@Suite struct PageRecorderTests {
    /// A fresh, not yet existing folder for one test.
    static func folder() -> URL {
        URL(fileURLWithPath: NSTemporaryDirectory() + "flow-bff-recording-\(UUID().uuidString)")
    }

    static func section(_ id: String, widgets: String? = nil) -> String {
        let widgets = widgets ?? #"[{"id": "\#(id).row", "type": "list_row", "content": {"title": "Row \#(id)"}}]"#
        return #"{"id": "\#(id)", "title": "Section \#(id)", "widgets": \#(widgets)}"#
    }

    /// The chunks a server paginating `sections` by `size` sends for page `id`.
    static func chunks(id: String, sections: [String], size: Int, header: String = "[]") -> [[UInt8]] {
        var chunks: [[UInt8]] = []
        var position = 0
        while position < sections.count || chunks.isEmpty {
            let end = min(position + size, sections.count)
            let more = end < sections.count
            let pagination = more ? #", "pagination": {"hasMore": true, "postback": "v1.cursor-\#(end)"}"# : ""
            let body = sections[position..<end].joined(separator: ", ")
            let text =
                chunks.isEmpty
                ? #"{"schemaVersion": 1, "kind": "page", "page": {"id": "\#(id)", "title": "Recorded", "header": \#(header), "sections": [\#(body)]\#(pagination)}, "locale": "en"}"#
                : #"{"schemaVersion": 1, "kind": "nextPage", "sections": [\#(body)]\#(pagination)}"#
            chunks.append(Array(text.utf8))
            position = end
        }
        return chunks
    }

    static func contents(_ folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return files
    }

    static func modificationDates(_ folder: URL) throws -> [String: Date] {
        var dates: [String: Date] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let attributes = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)
            dates[name] = attributes[.modificationDate] as? Date
        }
        return dates
    }

    @Test func aMultiChunkPageMergesIntoOneFileThatServesTheSameChunks() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let ids = (1...7).map { "s\($0)" }
        let recorder = PageRecorder(directory: folder)
        let outcome = try recorder.recordPage(
            pageID: "list", parameters: [:],
            chunks: Self.chunks(id: "list", sections: ids.map { Self.section($0) }, size: 3))
        #expect(outcome.written == ["list.json"])
        #expect(outcome.notes.isEmpty)

        let catalog = PageCatalog.load(directory: folder.path)
        #expect(catalog.diagnostics.filter { $0.diagnostic.severity != .info } == [])
        let page = try #require(catalog.pages["list"])
        #expect(page.page.sections.map(\.id) == ids)
        #expect(page.pageSize == 3)
        #expect(page.page.pagination == nil)
        // Serving the file cuts the chunks that were recorded: 3, 3, 1.
        let first = page.initialDocument { "cursor-\($0)" }
        #expect(first.sections.map(\.id) == ["s1", "s2", "s3"])
        #expect(page.chunk(at: 3) { "cursor-\($0)" }?.sections.map(\.id) == ["s4", "s5", "s6"])
        #expect(page.chunk(at: 6) { "cursor-\($0)" }?.sections.map(\.id) == ["s7"])
        // Response-only members are not part of a page file; it ends with a newline.
        let text = try String(contentsOf: folder.appendingPathComponent("list.json"), encoding: .utf8)
        #expect(!text.contains("\"locale\"") && !text.contains("pagination") && text.hasSuffix("}\n"))
    }

    @Test func aSingleChunkPageIsServedWholeAndAnIncompleteChainIsNoted() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recorder = PageRecorder(directory: folder)
        let sections = (1...25).map { Self.section("s\($0)") }
        try recorder.recordPage(
            pageID: "long", parameters: [:], chunks: Self.chunks(id: "long", sections: sections, size: 25))
        let incomplete = Array(Self.chunks(id: "cut", sections: sections, size: 10).prefix(2))
        let outcome = try recorder.recordPage(pageID: "cut", parameters: [:], chunks: incomplete)
        #expect(outcome.notes.contains { $0.contains("incomplete") && $0.contains("20 sections") })
        let catalog = PageCatalog.load(directory: folder.path)
        #expect(!catalog.diagnostics.containsErrors)
        #expect(catalog.pages["long"]?.pageSize == 0, "one chunk of 25: the default size (20) would cut it")
        #expect(catalog.pages["cut"]?.pageSize == 10)
        #expect(catalog.pages["cut"]?.page.sections.count == 20)
    }

    @Test func recordingTheSameAnswersAgainChangesNoByteAndNoModificationTime() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let button =
            #"[{"id": "go", "type": "button", "content": {"title": "Go"}, "actions": {"tap": {"type": "api", "name": "list.go"}}}]"#
        let chunks = Self.chunks(
            id: "list", sections: [Self.section("a", widgets: button), Self.section("b")], size: 1)
        let answer = Array(
            #"{"schemaVersion": 1, "kind": "actionResponse", "mutations": [{"type": "removeWidget", "id": "b.row"}], "effects": []}"#
                .utf8)
        func record() throws -> [RecordingOutcome] {
            let recorder = PageRecorder(directory: folder)
            return [
                try recorder.recordPage(pageID: "list", parameters: [:], chunks: chunks),
                try recorder.recordPage(pageID: "list", parameters: ["tab": "new"], chunks: chunks),
                try recorder.recordAction(name: "list.go", body: answer, pageHint: nil),
            ]
        }
        _ = try record()
        let bytes = try Self.contents(folder)
        let dates = try Self.modificationDates(folder)
        let again = try record()
        #expect(again.allSatisfy { $0.written.isEmpty && !$0.unchanged.isEmpty })
        #expect(try Self.contents(folder) == bytes)
        #expect(try Self.modificationDates(folder) == dates)
        #expect(Set(bytes.keys) == ["list.json", "list.new.json"], "no temporary file is left behind")
    }

    @Test func anActionAnswerIsStoredInThePageThatFiresIt() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recorder = PageRecorder(directory: folder)
        let button =
            #"[{"id": "remove", "type": "button", "content": {"title": "Remove"}, "actions": {"tap": {"type": "api", "name": "cart.remove.p-1"}}}]"#
        try recorder.recordPage(
            pageID: "cart", parameters: [:],
            chunks: Self.chunks(id: "cart", sections: [Self.section("line", widgets: button)], size: 5))
        try recorder.recordPage(
            pageID: "other", parameters: [:], chunks: Self.chunks(id: "other", sections: [Self.section("x")], size: 5))
        // The page was recorded first: its action has a stand-in until the answer is recorded.
        let before = PageCatalog.load(directory: folder.path)
        #expect(!before.diagnostics.containsErrors)
        #expect(before.actions["cart.remove.p-1"]?.pageID == "cart")

        let answer =
            #"{"schemaVersion": 1, "kind": "actionResponse", "mutations": [{"type": "removeWidget", "id": "remove"}], "effects": [{"type": "toast", "message": "Removed"}], "degradations": []}"#
        let outcome = try recorder.recordAction(name: "cart.remove.p-1", body: Array(answer.utf8), pageHint: "other")
        #expect(outcome.written == ["cart.json"], "the page that fires it wins over the hint")
        let catalog = PageCatalog.load(directory: folder.path)
        #expect(!catalog.diagnostics.containsErrors)
        let action = try #require(catalog.actions["cart.remove.p-1"])
        #expect(action.pageID == "cart")
        #expect(action.response.effects == [.toast(message: "Removed")])

        let unknown = try recorder.recordAction(name: "nobody.fires", body: Array(answer.utf8), pageHint: nil)
        #expect(unknown.skipped?.contains("no recorded page fires action nobody.fires") == true)
        #expect(unknown.files.isEmpty)
        let toast = #"{"schemaVersion": 1, "kind": "actionResponse", "effects": [{"type": "toast", "message": "Hi"}]}"#
        let hinted = try recorder.recordAction(name: "other.hello", body: Array(toast.utf8), pageHint: "other")
        #expect(hinted.written == ["other.json"])
        #expect(PageCatalog.load(directory: folder.path).actions["other.hello"]?.pageID == "other")
    }

    @Test func anAnswerThatDoesNotApplyToItsPageIsRefusedWithTheCheckersCodeAndPath() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recorder = PageRecorder(directory: folder)
        let button =
            #"[{"id": "go", "type": "button", "content": {"title": "Go"}, "actions": {"tap": {"type": "api", "name": "p.go"}}}]"#
        try recorder.recordPage(
            pageID: "p", parameters: [:],
            chunks: Self.chunks(id: "p", sections: [Self.section("a", widgets: button)], size: 5))
        let before = try Self.contents(folder)
        let answer =
            #"{"schemaVersion": 1, "kind": "actionResponse", "mutations": [{"type": "removeWidget", "id": "missing"}]}"#
        let error = #expect(throws: RecordingError.self) {
            try recorder.recordAction(name: "p.go", body: Array(answer.utf8), pageHint: nil)
        }
        #expect(error?.code == .rejectedByCheck)
        #expect(error?.file == "p.json")
        #expect(error?.path == "/server/actions/p.go/mutations/0/id")
        #expect(error?.message.contains("mutation_target_not_found") == true)
        #expect(try Self.contents(folder) == before)
    }

    @Test func anInvalidEnvelopeIsRefusedWithItsCodeAndPathAndNothingIsWritten() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recorder = PageRecorder(directory: folder)
        var chunks = Self.chunks(id: "list", sections: (1...4).map { Self.section("s\($0)") }, size: 1)
        chunks[1] = Array(#"{"schemaVersion": 1, "kind": "nextPage", "sections": {"id": "s3"}}"#.utf8)
        let broken = #expect(throws: RecordingError.self) {
            try recorder.recordPage(pageID: "list", parameters: [:], chunks: chunks)
        }
        #expect(broken?.code == .invalidEnvelope)
        #expect(broken?.path == "/sections")
        #expect(broken?.message.hasPrefix("nextPage chunk 1:") == true)

        let wrongKind = #expect(throws: RecordingError.self) {
            try recorder.recordPage(pageID: "list", parameters: [:], chunks: [chunks[2]])
        }
        #expect(wrongKind?.code == .unexpectedKind)
        #expect(wrongKind?.path == "/kind")

        let otherPage = #expect(throws: RecordingError.self) {
            try recorder.recordPage(pageID: "home", parameters: [:], chunks: [chunks[0]])
        }
        #expect(otherPage?.code == .invalidPageID)
        #expect(otherPage?.path == "/page/id")

        let notJSON = #expect(throws: RecordingError.self) {
            try recorder.recordAction(name: "list.go", body: Array("{\"schemaVersion\": 1,".utf8), pageHint: nil)
        }
        #expect(notJSON?.code == .invalidJSON)
        #expect(!FileManager.default.fileExists(atPath: folder.path), "nothing written, not even the folder")
    }

    @Test func secretsAreRedactedAndVolatileValuesNormalisedButIdsTypesAndActionNamesAreKept() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let widgets = """
            [{"id": "row", "type": "list_row",
              "content": {"title": "Order", "subtitle": "2024-05-01T09:30:00.123+02:00", "Token": "abc",
                          "session": {"accessToken": "xyz", "expiresAt": 1714550000, "refreshToken": 7},
                          "updatedAt": "yesterday", "name": "Ada", "date": "2024-05-01"},
              "actions": {"tap": {"type": "api", "name": "order.open", "payload": {"password": "hunter2", "name": "Ada"}}}}]
            """
        var rules = RecordingRules()
        rules.redactedKeys.append("name")
        let recorder = PageRecorder(directory: folder, rules: rules)
        try recorder.recordPage(
            pageID: "order", parameters: [:],
            chunks: Self.chunks(id: "order", sections: [Self.section("s", widgets: widgets)], size: 5))
        let catalog = PageCatalog.load(directory: folder.path)
        #expect(!catalog.diagnostics.containsErrors)
        let widget = try #require(catalog.pages["order"]?.page.sections.first?.widgets.first)
        #expect(widget.id == "row")
        #expect(widget.type == "list_row")
        let content = widget.content
        #expect(content["subtitle"] == "2000-01-01T00:00:00Z")
        #expect(content["Token"] == "[redacted]", "member names compare case-insensitively")
        #expect(content["session"]?["accessToken"] == "[redacted]")
        #expect(content["session"]?["expiresAt"] == "<normalized>")
        #expect(content["session"]?["refreshToken"] == 7, "only string values are redacted")
        #expect(content["updatedAt"] == "<normalized>")
        #expect(content["name"] == "[redacted]")
        #expect(content["date"] == "2024-05-01", "a date alone is not a date-time")
        #expect(
            widget.actions["tap"]
                == .api(name: "order.open", payload: ["password": "[redacted]", "name": "[redacted]"]))
        #expect(catalog.actions["order.open"] != nil, "a stand-in declares the action until it is recorded")

        let keep = PageRecorder(
            directory: folder, rules: RecordingRules(normalizedKeys: [], normalizesTimestamps: false))
        try keep.recordPage(
            pageID: "order", parameters: [:],
            chunks: Self.chunks(id: "order", sections: [Self.section("s", widgets: widgets)], size: 5))
        let kept = PageCatalog.load(directory: folder.path).pages["order"]?.page.sections.first?.widgets.first?.content
        #expect(kept?["subtitle"] == "2024-05-01T09:30:00.123+02:00")
        #expect(kept?["updatedAt"] == "yesterday")
    }

    @Test(arguments: [
        ("2024-05-01T09:30:00Z", true), ("2024-05-01T09:30Z", true), ("2024-05-01t09:30:00.5-0700", true),
        ("2024-05-01T09:30:00", true), ("2024-05-01T09:30:00+02:00", true), ("2024-05-01", false),
        ("09:30:00Z", false), ("2024-05-01T09:30:00Zed", false), ("2024-05-01T9:30:00Z", false), ("", false),
    ])
    func isoDateTimes(text: String, isDateTime: Bool) {
        let rules = RecordingRules()
        let expected: JSONValue = isDateTime ? "2000-01-01T00:00:00Z" : .string(text)
        #expect(rules.scrubbed(.string(text)) == expected)
    }

    @Test func pageParametersBecomeAScenarioAndAVariantOfTheBasePage() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recorder = PageRecorder(directory: folder)
        func chunks(_ title: String) -> [[UInt8]] {
            [
                Array(
                    #"{"schemaVersion": 1, "kind": "page", "page": {"id": "product", "title": "\#(title)", "sections": [\#(Self.section("s"))]}}"#
                        .utf8)
            ]
        }
        let first = try recorder.recordPage(
            pageID: "product", parameters: ["productID": "p-1042"], chunks: chunks("Cups"))
        #expect(first.written == ["product.json", "product.p-1042.json"], "the first document is the base page too")
        try recorder.recordPage(pageID: "product", parameters: [:], chunks: chunks("Plain"))
        try recorder.recordPage(
            pageID: "product", parameters: ["productID": "p/2210", "ref": "feed"], chunks: chunks("Skillet"))
        let catalog = PageCatalog.load(directory: folder.path)
        #expect(!catalog.diagnostics.containsErrors)
        #expect(catalog.pages["product"]?.page.title == "Plain")
        let scenarios = catalog.scenarios["product"] ?? [:]
        #expect(Set(scenarios.keys) == ["p-1042", "productID-p-2210_ref-feed"])
        let file = try String(contentsOf: folder.appendingPathComponent("product.json"), encoding: .utf8)
        #expect(file.contains(#""when": { "request.query.productID": "p/2210", "request.query.ref": "feed" },"#))
        #expect(file.contains(#""scenario": "productID-p-2210_ref-feed""#))
        #expect(
            file.range(of: "p/2210")!.lowerBound < file.range(of: "p-1042\" }")!.lowerBound, "more parameters first")
    }

    @Test func recordingsFromConcurrentThreadsAreSerialisedAndAllKept() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recorder = PageRecorder(directory: folder)
        let failures = Mutex<[String]>([])
        // Eight threads of Dispatch's own, not the concurrency pool's, each recording a page and then its answer.
        try await BlockingThread.run("concurrent recordings") {
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                let id = "p\(index)"
                let button =
                    #"[{"id": "go", "type": "button", "content": {"title": "Go"}, "actions": {"tap": {"type": "api", "name": "\#(id).go"}}}]"#
                let answer =
                    #"{"schemaVersion": 1, "kind": "actionResponse", "effects": [{"type": "toast", "message": "\#(id)"}]}"#
                do {
                    try recorder.recordPage(
                        pageID: id, parameters: [:],
                        chunks: Self.chunks(id: id, sections: [Self.section("s", widgets: button)], size: 5))
                    try recorder.recordAction(name: "\(id).go", body: Array(answer.utf8), pageHint: nil)
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let catalog = PageCatalog.load(directory: folder.path)
        #expect(!catalog.diagnostics.containsErrors)
        #expect(catalog.pageIDs == (0..<8).map { "p\($0)" })
        for index in 0..<8 {
            #expect(catalog.actions["p\(index).go"]?.response.effects == [.toast(message: "p\(index)")])
        }
    }
}
