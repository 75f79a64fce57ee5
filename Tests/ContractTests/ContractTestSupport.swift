import BFFServer
import BFFTesting
import ContractVerifier
import Foundation
import HTTPCore
import PageModel

/// The repository root, found from this file.
let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()

/// `Tests/ContractTests/BrokenServers`.
let brokenServersDirectory = repositoryRoot + "/Tests/ContractTests/BrokenServers"

/// Crawls `url` with limits small enough for tests.
@MainActor
func crawl(_ url: URL, entry: [String], maximumChunks: Int = 50, as profile: CapabilityProfile? = nil) async throws
    -> VerificationReport
{
    var configuration = VerifierConfiguration(
        baseURL: url, entryPages: entry.map { PageTarget($0) ?? PageTarget(pageID: $0) }, maximumChunks: maximumChunks,
        timeout: 30)
    if let profile {
        configuration.capabilities = profile
        configuration.headers[ClientCapabilities.headerName] = profile.header
    }
    return try await ContractVerifier(configuration: configuration).run()
}

/// Serves a page directory on 127.0.0.1, port 0 — `unchecked`, so deliberately broken pages are served — and
/// runs `body` with the base URL and how each page is loaded first (``PageCatalog/firstLoads``: the page ids, a page
/// made per data item with its sample parameters).
func withPagesServer<Result>(
    _ directory: String, unchecked: Bool = true, _ body: (URL, [String]) async throws -> Result
) async throws -> Result {
    var configuration = BFFConfiguration()
    configuration.server.workers = 1
    configuration.logging.accessLog = false
    let catalog = PageCatalog.load(directory: directory, defaults: configuration.pages, unchecked: unchecked)
    return try await withTestServer(pages: directory, configuration: configuration, catalog: catalog) { server in
        try await body(URL(string: server.baseURL)!, catalog.firstLoads)
    }
}

/// One directory of the broken-server corpus: the rule it breaks and the codes `verify` must report.
struct BrokenServer: Sendable, CustomStringConvertible {
    var name: String
    var directory: String
    var expectedCodes: Set<String>
    var rule: String
    /// The capability profile to crawl as (`profile=NAME` in `expected-codes.txt`: `verify --capabilities NAME`).
    var profile: String?

    var description: String { name }

    /// ``profile`` read from `config/capability-profiles.json`; nil without one (or when the name is unknown, which
    /// ``BrokenServerTests`` reports).
    var capabilityProfile: CapabilityProfile? {
        guard let profile else { return nil }
        let bytes = FileManager.default.contents(atPath: repositoryRoot + "/config/capability-profiles.json")
        return ((try? CapabilityProfile.load(Array(bytes ?? Data()))) ?? []).first { $0.name == profile }
    }

    static let all: [BrokenServer] = corpus(in: brokenServersDirectory)

    /// Servers that bend the contract only where it allows (`Tests/ContractTests/LegalServers`): each must pass.
    static let legal: [BrokenServer] = corpus(in: repositoryRoot + "/Tests/ContractTests/LegalServers")

    /// Every directory of `root` that has an `expected-codes.txt`.
    static func corpus(in root: String) -> [BrokenServer] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return names.sorted().compactMap { name in
            let directory = root + "/" + name
            guard let text = try? String(contentsOfFile: directory + "/expected-codes.txt", encoding: .utf8) else {
                return nil
            }
            let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            let profile = lines.first { $0.hasPrefix("profile=") }.map { String($0.dropFirst("profile=".count)) }
            return BrokenServer(
                name: name, directory: directory,
                expectedCodes: Set(lines.filter { !$0.isEmpty && !$0.hasPrefix("#") && !$0.hasPrefix("profile=") }),
                rule: lines.first { $0.hasPrefix("#") }.map { String($0.dropFirst(2)) } ?? "", profile: profile)
        }
    }

    /// Starts this broken server (flow-bff over `pages/` unchecked, or a ``RawServer`` over `routes.json`) and
    /// runs `body` with its URL and entry pages.
    func run<Result>(_ body: (URL, [String]) async throws -> Result) async throws -> Result {
        if FileManager.default.fileExists(atPath: directory + "/pages") {
            return try await withPagesServer(directory + "/pages", body)
        }
        let raw = try RawServer(routesFile: directory + "/routes.json")
        try raw.server.start()
        do {
            let result = try await body(raw.baseURL, raw.table.entry)
            raw.server.shutdown()
            await raw.server.stoppedAsync()
            return result
        } catch {
            raw.server.shutdown()
            await raw.server.stoppedAsync()
            throw error
        }
    }
}
