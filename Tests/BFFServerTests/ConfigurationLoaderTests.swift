import Foundation
import HTTPCore
import PageModel
import Testing

@testable import BFFServer

@Suite struct ConfigurationLoaderTests {
    func temporaryFile(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "flow-bff-config-\(UUID().uuidString).json"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func defaultsWithoutSources() throws {
        let configuration = try ConfigurationLoader().load(files: [], environment: [:])
        #expect(configuration == BFFConfiguration())
        #expect(configuration.server.port == 8080)
    }

    @Test func contentsInMemoryMeanWhatTheSameFileMeans() throws {
        let text = #"{"server": {"port": 9000}, "mock": {"enabled": true, "faults": {"/v1/*": "latency=5ms"}}}"#
        let fromFile = try ConfigurationLoader().load(files: [try temporaryFile(text)], environment: [:])
        let fromContents = try ConfigurationLoader().load(contents: Array(text.utf8))
        #expect(fromContents == fromFile)
        #expect(fromContents.server.port == 9000)
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader().load(contents: Array(#"{"server": {"prot": 1}}"#.utf8), source: "inline")
        }
        #expect(error?.code == "unknown_key")
        #expect(error?.source == "inline")
    }

    @Test func customTypesFromFilesAndEnvironment() throws {
        let file = try temporaryFile(
            #"{"pages": {"customWidgetTypes": ["map_view"], "customActionTypes": ["a", "b"]}}"#)
        let fromFile = try ConfigurationLoader().load(files: [file], environment: [:])
        #expect(fromFile.pages.customWidgetTypes == ["map_view"])
        #expect(
            fromFile.pages.authoringTypes
                == AuthoringTypes(customWidgetTypes: ["map_view"], customActionTypes: ["a", "b"]))
        let fromEnvironment = try ConfigurationLoader().load(
            files: [file], environment: ["FLOW_BFF_PAGES_CUSTOM_WIDGET_TYPES": "video, map_view"])
        #expect(fromEnvironment.pages.customWidgetTypes == ["video", "map_view"])
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader().load(contents: Array(#"{"pages": {"customWidgetTypes": [""]}}"#.utf8))
        }
        #expect(error?.code == "invalid_value")
        #expect(error?.key == "pages.customWidgetTypes")
    }

    @Test func filesThenEnvironmentThenFlags() throws {
        let file = try temporaryFile(#"{"server": {"port": 9000, "host": "::1"}, "pages": {"defaultPageSize": 5}}"#)
        let configuration = try ConfigurationLoader().load(
            files: [file],
            environment: ["FLOW_BFF_SERVER_PORT": "9100", "FLOW_BFF_PAGES_DEFAULT_PAGE_SIZE": "7", "HOME": "/x"],
            flags: ["server.port": "9200"])
        #expect(configuration.server.port == 9200)
        #expect(configuration.server.host == "::1")
        #expect(configuration.pages.defaultPageSize == 7)
    }

    @Test func theEventLoopFromFileEnvironmentOrFlag() throws {
        #expect(try ConfigurationLoader().load(files: [], environment: [:]).server.eventLoop == .platformDefault)
        let file = try temporaryFile(#"{"server": {"eventLoop": "dispatch"}}"#)
        #expect(try ConfigurationLoader().load(files: [file], environment: [:]).server.eventLoop == .dispatch)
        let environment = ["FLOW_BFF_SERVER_EVENT_LOOP": "dispatch"]
        #expect(try ConfigurationLoader().load(files: [], environment: environment).server.eventLoop == .dispatch)
        let flags = ["server.eventLoop": "epoll"]
        #expect(
            try ConfigurationLoader().load(files: [file], environment: environment, flags: flags).server.eventLoop
                == .epoll)
    }

    @Test func theCursorKeyVariable() throws {
        let key = String(repeating: "s", count: 40)
        let configuration = try ConfigurationLoader().load(files: [], environment: ["FLOW_BFF_CURSOR_KEY": key])
        #expect(configuration.cursors.key == key)
        #expect(ConfigurationKey.key("cursors.key")?.environmentVariable == "FLOW_BFF_CURSORS_KEY")
    }

    @Test func unknownKeysAreErrorsWithASuggestion() throws {
        let file = try temporaryFile(#"{"server": {"prot": 1}}"#)
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader().load(files: [file], environment: [:])
        }
        #expect(error?.code == "unknown_key")
        #expect(error?.key == "server.prot")
        #expect(error?.description == "\(file): server.prot: unknown_key: unknown key (did you mean server.port?)")
        let environment = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader().load(files: [], environment: ["FLOW_BFF_SERVER_PROT": "1"])
        }
        #expect(environment?.message == "unknown variable (did you mean FLOW_BFF_SERVER_PORT?)")
    }

    @Test(arguments: [
        (#"{"server": {"port": "80"}}"#, "server.port", "expected integer, found string"),
        (#"{"server": {"port": 70000}}"#, "server.port", "70000 is out of range 0...65535"),
        (#"{"cursors": {"key": "short"}}"#, "cursors.key", "a cursor key needs at least 32 characters"),
        (#"{"logging": {"accessLog": 1}}"#, "logging.accessLog", "expected boolean, found number"),
        (
            #"{"server": {"eventLoop": "kqueue"}}"#, "server.eventLoop",
            #""kqueue" is not an event loop: use epoll or dispatch"#
        ),
    ])
    func badValuesAreErrors(_ text: String, _ key: String, _ message: String) throws {
        let file = try temporaryFile(text)
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader().load(files: [file], environment: [:])
        }
        #expect(error?.key == key)
        #expect(error?.message == message)
    }

    @Test func productionRequiresACursorKey() throws {
        let file = try temporaryFile(#"{"cursors": {"requireKey": true}}"#)
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader().load(files: [file], environment: [:])
        }
        #expect(error?.code == "missing_cursor_key")
    }

    @Test func invalidJSONNamesTheFile() throws {
        let file = try temporaryFile(#"{"server": }"#)
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader().load(files: [file], environment: [:])
        }
        #expect(error?.code == "invalid_json")
        #expect(error?.source == file)
    }

    @Test func recordingNeedsAnUpstreamAndTheUpstreamIsAnHTTPURL() throws {
        let loader = ConfigurationLoader()
        #expect {
            try loader.load(files: [], environment: [:], flags: ["proxy.recordDirectory": "recorded"])
        } throws: { ($0 as? ConfigurationError)?.key == "proxy.recordDirectory" }
        #expect {
            try loader.load(files: [], environment: [:], flags: ["proxy.upstream": "ftp://staging.example.com"])
        } throws: { ($0 as? ConfigurationError)?.key == "proxy.upstream" }
        let proxied = try loader.load(
            files: [], environment: [:],
            flags: ["proxy.upstream": "https://staging.example.com", "proxy.recordDirectory": "recorded"])
        #expect(proxied.proxy.isEnabled && proxied.pages.referencesMayBeRemote)
    }

    @Test func bundledConfigFilesLoad() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let development = try ConfigurationLoader().load(files: [root + "/config/default.json"], environment: [:])
        #expect(development.server.host == "127.0.0.1")
        let production = try ConfigurationLoader().load(
            files: [root + "/config/production.json"],
            environment: ["FLOW_BFF_CURSOR_KEY": String(repeating: "p", count: 32)])
        #expect(production.cursors.requireKey)
    }
}

@Suite struct ConfigurationDocumentationTests {
    @Test func everyKeyIsDocumentedWithItsDefault() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        let readme = try String(contentsOfFile: root + "/config/README.md", encoding: .utf8)
        for key in ConfigurationKey.all {
            let row = readme.split(separator: "\n").first { $0.hasPrefix("| `\(key.path)` |") }
            #expect(row != nil, "config/README.md lists \(key.path)")
            if let row, !key.defaultValue.hasPrefix("(") {
                let value = key.defaultValue.hasSuffix(".0") ? String(key.defaultValue.dropLast(2)) : key.defaultValue
                #expect(row.contains("`\(value)`"), "\(key.path) default")
            }
        }
    }
}
