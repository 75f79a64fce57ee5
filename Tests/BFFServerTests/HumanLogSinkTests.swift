import BFFServer
import BFFTesting
import Foundation
import HTTPTesting
import PageModel
import Testing

/// The terminal form of the server's lines (`logging.format` `human`, issue 33): what a developer reads while
/// editing pages and running an app against the mock.
@Suite struct HumanLogSinkTests {
    @Test func accessLinesAreCompactAndColouredByStatus() {
        let memory = MemoryLogSink()
        let plain = HumanLogSink(base: memory, color: false)
        let line =
            #"{"time":"2026-12-03T15:04:05.123Z","requestID":"r1","method":"GET","path":"/v1/pages/home","route":"page","status":200,"bytes":3210,"gzip":true,"durationMs":1.44}"#
        plain.write(line)
        let coloured = HumanLogSink(base: memory, color: true)
        coloured.write(line.replacingOccurrences(of: #""status":200"#, with: #""status":503"#))
        coloured.write(line.replacingOccurrences(of: #""status":200"#, with: #""status":404"#))
        #expect(memory.lines[0] == "15:04:05 200 GET /v1/pages/home 1.4 ms 3.2 kB gzip")
        #expect(memory.lines[1].contains("\u{1B}[1;31m503\u{1B}[0m"), "5xx in red: \(memory.lines[1])")
        #expect(memory.lines[2].contains("\u{1B}[33m404\u{1B}[0m"), "4xx in yellow: \(memory.lines[2])")
    }

    @Test func eventsAndPlainTextStayReadable() {
        let memory = MemoryLogSink()
        let sink = HumanLogSink(base: memory, color: false)
        sink.write("flow-bff serving pages on http://127.0.0.1:8080")
        Logger(sink: sink).warning("fault rule matches no route", ["key": "mock.faults", "count": 2])
        #expect(memory.lines[0] == "flow-bff serving pages on http://127.0.0.1:8080", "text passes unchanged")
        #expect(memory.lines[1].hasSuffix(" warning fault rule matches no route key=mock.faults count=2"))
    }

    /// A broken edit reaches the terminal as `file:line:column: severity: code: message`, like `flow-bff check`
    /// prints it — not as a JSON line without a position among access lines.
    @Test func aReloadFindingIsPrintedWhereItIs() async throws {
        let memory = MemoryLogSink()
        let directory = try await Self.reloadATypo { HumanLogSink(base: memory, color: false, directory: $0) }
        let finding = try #require(memory.lines.first { $0.contains("unknown_widget_type") }, "\(memory.lines)")
        #expect(
            finding
                == directory
                + #"/live.json:1:133: error: unknown_widget_type: unknown widget type "list_rwo" (did you mean list_row?) (serving the last good version)"#
        )
    }

    @Test func theJSONFormKeepsThePosition() async throws {
        let memory = MemoryLogSink()
        _ = try await Self.reloadATypo { _ in memory }
        let line = try #require(memory.lines.first { $0.contains("unknown_widget_type") })
        let object = try JSONParser().parse(Array(line.utf8))
        #expect(object["level"] == "error")
        #expect(object["file"] == "live.json")
        #expect(object["line"] == 1)
        #expect(object["column"] == 133, "where \"list_rwo\" starts")
    }

    /// Serves a page, saves it with a widget type typo and reloads, logging to the sink `log` makes for the pages
    /// directory; returns the directory.
    static func reloadATypo(log: (String) -> any BFFLogSink) async throws -> String {
        let directory = try temporaryPages(["live.json": AuthoringCheckTests.page(title: "v1", widgetType: "list_row")])
        var configuration = BFFConfiguration()
        configuration.mock.enabled = true
        configuration.mock.watch = .off
        configuration.logging.accessLog = false
        try await withTestServer(pages: directory, configuration: configuration, log: log(directory)) { server in
            try Data(AuthoringCheckTests.page(title: "v2", widgetType: "list_rwo").utf8).write(
                to: URL(fileURLWithPath: directory + "/live.json"))
            server.service.application.reloadPages()
        }
        return directory
    }
}
