import BFFServer
import BFFTesting
import Foundation
import Testing

/// `flow-bff check` and the command-line papercuts of issue 17, run through the built executable.
@Suite struct CheckCommandTests {
    func run(_ arguments: [String], directory: String = repositoryRoot, environment: [String: String] = [:])
        async throws -> FlowBFFProcess.Run
    {
        try await FlowBFFProcess.run(arguments, directory: directory, environment: environment)
    }

    /// A page file whose one widget has `widgetType`, fires `actionType` on tap and declares an api action
    /// `typed.go` whose answer has one effect of `effectType`. Pretty-printed: the widget's type is on line 8.
    static func page(
        id: String = "typed", widgetType: String = "list_row", actionType: String = "api", effectType: String = "toast"
    ) -> String {
        """
        {
          "schemaVersion": 1,
          "kind": "page",
          "page": {
            "id": "\(id)",
            "sections": [{
              "id": "s", "widgets": [{
                "id": "row", "type": "\(widgetType)", "content": {"title": "Row"},
                "actions": {"tap": {"type": "\(actionType)", "name": "\(id).go", "message": "hi"}}
              }]
            }]
          },
          "server": {
            "actions": {
              "\(id).go": {"schemaVersion": 1, "kind": "actionResponse", "effects": [{"type": "\(effectType)", "message": "done"}]}
            }
          }
        }
        """
    }

    @Test func aTypoInAWidgetTypeFailsWithTheClosestTypeAndItsPosition() async throws {
        let directory = try temporaryPages(["typed.json": Self.page(widgetType: "list_rwo")])
        let result = try await run(["check", directory])
        #expect(result.status == 1)
        #expect(
            result.errors.contains(
                directory
                    + "/typed.json:8:30: /page/sections/0/widgets/0/type: error: unknown_widget_type: unknown widget type \"list_rwo\" (did you mean list_row?)"
            ), "\(result.errors)")
        #expect(result.output.contains("\(directory): 0 pages, 0 actions, 1 error, 0 warnings"))
    }

    @Test func typosInActionAndEffectTypesFail() async throws {
        let directory = try temporaryPages(["typed.json": Self.page(actionType: "tosat", effectType: "taost")])
        let result = try await run(["check", directory])
        #expect(result.status == 1)
        #expect(
            result.errors.contains(
                "/page/sections/0/widgets/0/actions/tap/type: error: unknown_action_type: unknown action type \"tosat\" (did you mean toast?)"
            ), "\(result.errors)")
        #expect(
            result.errors.contains(
                "/server/actions/typed.go/effects/0/type: error: unknown_action_type: unknown effect type \"taost\" (did you mean toast?)"
            ), "\(result.errors)")
        #expect(result.output.contains("2 errors"))
    }

    /// `unsafe_url`: a `javascript:` deeplink and image URL are errors with the file, position and JSON path.
    @Test func scriptURLsFailWithTheirPath() async throws {
        let page = Self.page(widgetType: "banner", actionType: "deeplink")
            .replacingOccurrences(
                of: #""content": {"title": "Row"}"#,
                with: #""content": {"title": "Row", "imageURL": "javascript:alert(1)"}"#
            )
            .replacingOccurrences(of: #""name": "typed.go""#, with: #""url": "javascript:alert(document.cookie)""#)
        let directory = try temporaryPages(["typed.json": page])
        let result = try await run(["check", directory])
        #expect(result.status == 1)
        #expect(
            result.errors.contains(
                "/typed.json:8:80: /page/sections/0/widgets/0/content/imageURL: error: unsafe_url: "
            ), "\(result.errors)")
        #expect(
            result.errors.contains(
                "/typed.json:9:56: /page/sections/0/widgets/0/actions/tap/url: error: unsafe_url: a javascript: URL"),
            "\(result.errors)")
    }

    /// A fixed answer's `deeplink` effect is checked when the page file loads, like a widget's action.
    @Test func scriptURLInAFixedAnswersEffectFails() async throws {
        let page = Self.page().replacingOccurrences(
            of: #"{"type": "toast", "message": "done"}"#, with: #"{"type": "deeplink", "url": "javascript:alert(1)"}"#)
        let directory = try temporaryPages(["typed.json": page])
        let result = try await run(["check", directory])
        #expect(result.status == 1)
        #expect(
            result.errors.contains("/server/actions/typed.go/effects/0/url: error: unsafe_url: a javascript: URL"),
            "\(result.errors)")
    }

    @Test func registeredAndExtensionTypesPass() async throws {
        let directory = try temporaryPages([
            "typed.json": Self.page(widgetType: "map_view", actionType: "x-share", effectType: "confetti")
        ])
        let unregistered = try await run(["check", directory])
        #expect(unregistered.status == 1)
        #expect(unregistered.errors.contains("unknown widget type \"map_view\""))
        #expect(unregistered.errors.contains("unknown effect type \"confetti\""))
        #expect(!unregistered.errors.contains("x-share"), "x- types are custom")
        let registered = try await run(
            ["check", directory],
            environment: [
                "FLOW_BFF_PAGES_CUSTOM_WIDGET_TYPES": "map_view", "FLOW_BFF_PAGES_CUSTOM_ACTION_TYPES": "confetti",
            ])
        #expect(registered.status == 0, "\(registered.errors)")
        #expect(registered.output.contains("1 page, 1 action, 0 errors, 0 warnings"))
        let config = try temporaryPages([
            "flow-bff.json": #"{"pages": {"customWidgetTypes": ["map_view"], "customActionTypes": ["confetti"]}}"#
        ])
        let configured = try await run(["check", directory, "--config", config + "/flow-bff.json"])
        #expect(configured.status == 0, "\(configured.errors)")
    }

    @Test func strictMakesWarningsErrors() async throws {
        // A button never fires "change": an unsupported_event warning.
        let page = Self.page().replacingOccurrences(of: #""tap": {"type": "api""#, with: #""change": {"type": "api""#)
        let directory = try temporaryPages(["typed.json": page])
        let lenient = try await run(["check", directory])
        #expect(lenient.status == 0, "\(lenient.errors)")
        #expect(lenient.output.contains("typed.json:9:"), "a warning has its position too: \(lenient.output)")
        #expect(lenient.output.contains("warning: unsupported_event"))
        #expect(lenient.output.contains("0 errors, 1 warning"))
        let strict = try await run(["check", "--strict", directory])
        #expect(strict.status == 1)
        #expect(strict.errors.contains("error: unsupported_event"))
        #expect(strict.output.contains("1 error, 0 warnings"))
    }

    @Test func checkTakesSinglePageFiles() async throws {
        let directory = try temporaryPages([
            "typed.json": Self.page(), "broken.json": Self.page(id: "broken", widgetType: "list_rwo"),
        ])
        let good = try await run(["check", "typed.json"], directory: directory)
        #expect(good.status == 0, "\(good.errors)")
        #expect(good.output == "typed.json: 0 errors, 0 warnings\n")
        let both = try await run(["check", directory + "/typed.json", directory + "/broken.json"])
        #expect(both.status == 1)
        #expect(both.errors.contains(directory + "/broken.json:8:30: "))
        #expect(both.output.contains("broken.json: 1 error, 0 warnings"))
        let missing = try await run(["check", directory + "/nope.json"])
        #expect(missing.status == 2)
        #expect(missing.errors.contains("no such file or directory"))
    }

    @Test func backupFilesAndSubfoldersAreSkippedWithANotice() async throws {
        let directory = try temporaryPages([
            "typed.json": Self.page(), "typed.json~": "{", ".#typed.json": "{", "#typed.json#": "{",
            ".typed.json.swp": "{", ".DS_Store": "",
        ])
        try FileManager.default.createDirectory(atPath: directory + "/drafts", withIntermediateDirectories: true)
        try Data(Self.page().utf8).write(to: URL(fileURLWithPath: directory + "/drafts/typed.json"))
        let result = try await run(["check", directory])
        #expect(result.status == 0, "\(result.errors)")
        for name in ["typed.json~", ".#typed.json", "#typed.json#", ".typed.json.swp", ".DS_Store"] {
            #expect(result.output.contains("\(directory)/\(name): /: info: skipped_file"), "\(name)")
        }
        #expect(result.output.contains("drafts/: /: info: ignored_subfolder"))
        #expect(result.output.contains("(drafts/typed.json)"))
        #expect(result.output.contains("1 page, 1 action, 0 errors, 0 warnings, 6 notices"))
    }

    @Test func eachCommandHasItsOwnHelp() async throws {
        let serve = try await run(["serve", "--help"])
        #expect(serve.status == 0)
        #expect(serve.output.contains("flow-bff serve [DIR] [options]"))
        #expect(serve.output.contains("--port PORT"))
        #expect(serve.output.contains("--event-loop epoll|dispatch"))
        #expect(!serve.output.contains("--strict"))
        let check = try await run(["check", "--help"])
        #expect(check.status == 0)
        #expect(check.output.contains("--strict"))
        #expect(check.output.contains("FILE:LINE:COLUMN"))
        #expect(!check.output.contains("--port"))
        let verify = try await run(["verify", "--help"])
        #expect(verify.status == 0)
        for option in [
            "--all", "--progress auto|lines|off", "--report junit|json|github|markdown FILE", "--baseline",
            "--capabilities",
        ] {
            #expect(verify.output.contains(option), "\(option)")
        }
    }

    @Test func extraArgumentsAreUsageErrors() async throws {
        let serve = try await run(["serve", "pages", "extra"])
        #expect(serve.status == 2)
        #expect(serve.errors.contains("serve takes at most 1 argument, found also extra"))
        let verify = try await run(["verify", "--pages", "pages", "extra"])
        #expect(verify.status == 2)
        let help = try await run(["check", "--port", "1"])
        #expect(help.status == 2)
        #expect(help.errors.contains("unknown option --port for check; see flow-bff check --help"))
    }

    @Test func aPortClashNamesTheAddress() async throws {
        try await withTestServer { server in
            let result = try await run(["serve", "--port", String(server.port)])
            #expect(result.status == 2)
            #expect(result.errors.contains("127.0.0.1:\(server.port) is already in use"), "\(result.errors)")
        }
    }
}
