import BFFServer
import BFFTesting
import Foundation
import Testing

/// Runs the built `flow-bff` executable as users do.
@Suite struct CommandLineTests {
    func run(_ arguments: [String], directory: String = repositoryRoot, environment: [String: String] = [:])
        async throws -> FlowBFFProcess.Run
    {
        try await FlowBFFProcess.run(arguments, directory: directory, environment: environment)
    }

    @Test func certMakesTheCAOnceAndServeRefusesHTTPSWithoutFilesInProduction() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "flow-bff-ca-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try await run(["cert", "--ca-dir", directory.path, "--hosts", "mymac.local"])
        #expect(first.status == 0, "\(first.errors)")
        #expect(first.output.contains("development CA: \(directory.path)/ca.pem (new: devices must trust it again)"))
        #expect(first.output.contains("DNS:localhost DNS:mymac.local IP:127.0.0.1 IP:::1 IP:10.0.2.2"))
        #expect(first.output.contains("xcrun simctl keychain booted add-root-cert \(directory.path)/ca.pem"))
        for file in ["ca.pem", "ca.crt", "flow-bff-ca.mobileconfig", "server.pem", "server-key.pem"] {
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent(file).path), "\(file)")
        }
        let again = try await run(["cert", "--ca-dir", directory.path])
        #expect(again.status == 0 && !again.output.contains("(new:"), "the CA is kept: \(again.output)")
        #expect(again.output.contains("DNS:mymac.local"), "names asked for before stay")

        let production = try await run(
            ["serve", "--config", "config/production.json", "--tls-port", "0"],
            environment: ["FLOW_BFF_CURSOR_KEY": String(repeating: "k", count: 32)])
        #expect(production.status == 2)
        #expect(production.errors.contains("tls.certificateFile: invalid_value"), "\(production.errors)")
        #expect(production.errors.contains("serve --dev --tls"))
    }

    @Test func checkPassesOnTheBundledPages() async throws {
        let result = try await run(["check"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("pages: 8 pages, 11 actions, 1 data file, 0 errors"))
        #expect(result.output.contains(", 0 errors"))
    }

    @Test func checkListsEachProblemWithFileAndPathAndExits1() async throws {
        let directory = try temporaryPages([
            "cart.json":
                #"{"schemaVersion": 1, "kind": "page", "page": {"id": "cart", "sections": [{"id": "s", "widgets": [{"id": "q", "type": "stepper", "content": {"value": "three"}}]}]}}"#,
            "home.json": #"{"schemaVersion": 1, "kind": "page", "page": {"id": "home", "sections": [}}"#,
        ])
        let result = try await run(["check", directory])
        #expect(result.status == 1)
        #expect(
            result.errors.contains(
                directory
                    + "/cart.json:1:150: /page/sections/0/widgets/0/content/value: error: invalid_content: stepper.value must be integer, found string"
            ))
        #expect(
            result.errors.contains(
                directory + "/home.json:1:74: /: error: invalid_json: unexpected character '}' at line 1, column 74"))
        #expect(result.output.contains("0 pages, 0 actions, 2 errors, 0 warnings"))
    }

    @Test func serveRefusesToStartOnErrors() async throws {
        let directory = try temporaryPages([
            "bad.json": #"{"schemaVersion": 1, "kind": "page", "page": {"id": "bad", "sections": "none"}}"#
        ])
        let result = try await run(["serve", "--pages", directory, "--port", "0"])
        #expect(result.status == 1)
        #expect(
            result.errors.contains(
                directory + "/bad.json:1:72: /page/sections: error: invalid_envelope: expected array, found string"))
        #expect(result.errors.contains("not serving"))
    }

    @Test func helpVersionAndUsageErrors() async throws {
        let help = try await run(["--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("flow-bff check [DIR | FILE…]"))
        let version = try await run(["--version"])
        #expect(version.output == "flow-bff \(BuildInfo.version) (\(BuildInfo.commit))\n")
        let unknown = try await run(["serve", "--prot", "1"])
        #expect(unknown.status == 2)
        #expect(unknown.errors.contains("unknown option --prot"))
        let badConfig = try await run(["check"], environment: ["FLOW_BFF_SERVER_PROT": "1"])
        #expect(badConfig.status == 2)
        #expect(badConfig.errors.contains("did you mean FLOW_BFF_SERVER_PORT?"))
    }
}
