// `flow-bff verify`: the contract test. Parses its options, starts an in-process server for --pages, and runs
// ContractVerifier (PageStore over its HTTP loader) against the URL.
import BFFRedis
import BFFServer
import ContractVerifier
import Foundation
import HTTPCore
import PageModel

let verifyUsage = """
    flow-bff verify — crawl a server like a device and report every contract violation

    USAGE
      flow-bff verify --url URL   [options]     crawl a running server (the mock or your real BFF)
      flow-bff verify --pages DIR [options]     serve DIR in-process on 127.0.0.1 (ephemeral port) and crawl it

    OPTIONS
      --page ID[?name=value&…]   an entry page (repeatable). Default: every page of DIR with --pages, else home.
      --all                      crawl every page the server's index lists.
      --progress auto|lines|off  how progress is shown while crawling.
      --report junit|json|github|markdown FILE
                                 also write a JUnit XML, JSON, GitHub or Markdown (pull-request comment) report
                                 (repeatable).
      --baseline FILE            compare with the JSON report of an earlier run (the base version): list what
                                 changed for apps, and fail on a breaking change (a removed page, section, widget,
                                 event or api action, a changed widget type, a new requirement).
      --max-chunks N             next-page requests per page before pagination counts as endless (10000).
      --max-pages N              page targets (page id + parameters) crawled in all (500).
      --max-variants N           parameter sets crawled per page id (8).
      --timeout SECONDS          per request (30).
      --header 'Name: value'     sent with every request, e.g. Authorization (repeatable).
      --min-coverage PERCENT     fail unless the crawl exercised that share of the standard kinds (widget, action,
                                 effect and mutation types; the summary's exercised line).
      --no-negative-probes       do not send requests a device never sends (a page that does not exist, an action
                                 naming an unknown widget or an undeclared event) to check they are refused.
      --expect-problem NAME=CODE[:STATUS]
                                 a problem answer that is a legal outcome of api action NAME, e.g.
                                 orders.cancel=order_already_shipped:409 (repeatable); with --pages the
                                 problems the page files declare are expected too.
      --config FILE              with --pages: the server configuration (default config/default.json).
      --unchecked                with --pages: serve pages even with lint errors (contract-test corpora only).
      --capabilities PROFILE     crawl as that client (its X-Flow-Client header) and fail on any widget it
                                 cannot render; profiles: current, legacy, minimal, … (config/capability-profiles.json)
      --profiles FILE            the capability profiles file (default config/capability-profiles.json).

    EXIT STATUS
      0 no violation, 1 violations, breaking changes against --baseline, a coverage shortfall or lint errors in
      DIR, 2 usage or connection error (or an unreadable baseline).
    """

/// The options of `flow-bff verify`, parsed by hand: `--page`, `--header` and `--report KIND FILE` repeat.
struct VerifyOptions: Sendable {
    var url: String?
    var pages: String?
    var config: String?
    var entryPages: [PageTarget] = []
    var reports: [(kind: String, file: String)] = []
    var baseline: String?
    var maximumChunks = 10_000
    var maximumPageLoads = 500
    var maximumVariants = 8
    var timeout = 30.0
    var headers: [String: String] = [:]
    var expectedProblems: [String: [ExpectedProblem]] = [:]
    var negativeProbes = true
    var minimumCoverage: Double?
    var unchecked = false
    var capabilities: String?
    var profiles = "config/capability-profiles.json"
    var progress = VerifyProgressRenderer.Mode.auto
    var all = false
    var help = false

    init(_ arguments: [String]) throws {
        var remaining = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let value = remaining.popFirst() else {
                throw CommandLineArguments.UsageError(description: "\(flag) needs a value")
            }
            return value
        }
        func number(_ flag: String) throws -> Int {
            let text = try value(flag)
            guard let number = Int(text), number > 0 else {
                throw CommandLineArguments.UsageError(description: "\(flag) takes a positive integer, not \(text)")
            }
            return number
        }
        while let argument = remaining.popFirst() {
            var flag = argument
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                flag = String(argument[..<equals])
                remaining.insert(String(argument[argument.index(after: equals)...]), at: remaining.startIndex)
            }
            switch flag {
            case "--help", "-h": help = true
            case "--url": url = try value(flag)
            case "--pages": pages = try value(flag)
            case "--config": config = try value(flag)
            case "--unchecked": unchecked = true
            case "--capabilities": capabilities = try value(flag)
            case "--profiles": profiles = try value(flag)
            case "--page":
                let text = try value(flag)
                guard let target = PageTarget(text) else {
                    throw CommandLineArguments.UsageError(description: "--page takes ID or ID?name=value, not \(text)")
                }
                entryPages.append(target)
            case "--report":
                let kind = try value(flag)
                guard ["junit", "json", "github", "markdown"].contains(kind) else {
                    throw CommandLineArguments.UsageError(
                        description: "--report takes junit, json, github or markdown, not \(kind)")
                }
                reports.append((kind, try value(flag)))
            case "--progress":
                let text = try value(flag)
                guard let mode = VerifyProgressRenderer.Mode(rawValue: text) else {
                    throw CommandLineArguments.UsageError(
                        description: "--progress takes auto, lines or off, not \(text)")
                }
                progress = mode
            case "--all": all = true
            case "--baseline": baseline = try value(flag)
            case "--no-negative-probes": negativeProbes = false
            case "--min-coverage":
                let text = try value(flag)
                guard let percent = Double(text.hasSuffix("%") ? String(text.dropLast()) : text),
                    (0...100).contains(percent)
                else {
                    throw CommandLineArguments.UsageError(
                        description: "--min-coverage takes a percentage 0–100, not \(text)")
                }
                minimumCoverage = percent
            case "--max-chunks": maximumChunks = try number(flag)
            case "--max-pages": maximumPageLoads = try number(flag)
            case "--max-variants": maximumVariants = try number(flag)
            case "--timeout":
                let text = try value(flag)
                guard let seconds = Double(text), seconds > 0 else {
                    throw CommandLineArguments.UsageError(description: "--timeout takes seconds, not \(text)")
                }
                timeout = seconds
            case "--expect-problem":
                let text = try value(flag)
                guard let (action, problem) = ExpectedProblem.parse(text) else {
                    throw CommandLineArguments.UsageError(
                        description: "--expect-problem takes NAME=CODE or NAME=CODE:STATUS (400–599), not \(text)")
                }
                expectedProblems[action, default: []].append(problem)
            case "--header":
                let text = try value(flag)
                guard let colon = text.firstIndex(of: ":") else {
                    throw CommandLineArguments.UsageError(description: "--header takes 'Name: value', not \(text)")
                }
                headers[String(text[..<colon])] = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            default:
                throw CommandLineArguments.UsageError(description: "unknown option \(argument) for verify")
            }
        }
        guard help || (url == nil) != (pages == nil) else {
            throw CommandLineArguments.UsageError(description: "verify takes exactly one of --url URL and --pages DIR")
        }
        if url != nil, config != nil || unchecked {
            throw CommandLineArguments.UsageError(description: "--config and --unchecked only apply to --pages")
        }
    }
}

/// `flow-bff verify …`: never returns.
func verify(_ arguments: [String]) -> Never {
    let options: VerifyOptions
    do {
        options = try VerifyOptions(arguments)
    } catch {
        fail("\(error); see flow-bff verify --help")
    }
    if options.help {
        print(verifyUsage)
        exit(0)
    }
    // One allocator arena for the whole process, before any thread starts: the server's event loops and the crawl's
    // tasks then reuse each other's freed memory instead of each growing an arena of its own; and big blocks (a long
    // page's growing section arrays and id sets) in mappings of their own, given back when freed (bench/README.md).
    Platform.limitAllocatorArenas(1)
    Platform.mapAllocations(from: 128 * 1024)
    // The baseline is read before anything starts: a wrong file fails at once, not after minutes of crawling.
    var baseline: (report: VerificationReport, name: String)?
    if let file = options.baseline {
        do {
            guard let bytes = FileManager.default.contents(atPath: file) else {
                throw BaselineError(message: "cannot read it")
            }
            let report = try VerificationReport(jsonData: bytes)
            try ReportDiff.validate(report, name: file)
            baseline = (report, file)
        } catch {
            fail("--baseline \(file): \(error)")
        }
    }
    var entryPages = options.entryPages
    var service: BFFService?
    let baseURL: URL
    var expectedProblems = options.expectedProblems
    if let directory = options.pages {
        let started = startVerifyServer(directory: directory, options: options)
        service = started.service
        baseURL = URL(string: started.service.baseURL)!
        for (name, action) in started.service.application.catalog.actions {
            for problem in action.declaredProblems {
                expectedProblems[name, default: []].append(ExpectedProblem(code: problem.code, status: problem.status))
            }
        }
        let catalog = started.service.application.catalog
        for id in started.pageIDs where !entryPages.contains(where: { $0.pageID == id }) {
            // A page made per data item is entered with a sample of its parameters (it has no page without one).
            for parameters in catalog.sampleParameters(of: id) ?? [[:]] {
                entryPages.append(PageTarget(pageID: id, parameters: parameters))
            }
        }
    } else {
        guard let url = URL(string: options.url ?? ""), url.scheme == "http" || url.scheme == "https" else {
            fail("--url takes an http or https URL, not \(options.url ?? "")")
        }
        baseURL = url
        if entryPages.isEmpty { entryPages = [PageTarget(pageID: "home")] }
    }
    var profile: CapabilityProfile?
    var headers = options.headers
    if let name = options.capabilities {
        do {
            guard let bytes = FileManager.default.contents(atPath: options.profiles) else {
                throw VerifierError(message: "cannot read \(options.profiles)")
            }
            let selected = try CapabilityProfile.named(name, in: try CapabilityProfile.load(Array(bytes)))
            headers[ClientCapabilities.headerName] = selected.header
            profile = selected
        } catch {
            fail("--capabilities \(name): \(error)")
        }
    }
    var configuration = VerifierConfiguration(
        baseURL: baseURL, entryPages: entryPages, maximumChunks: options.maximumChunks,
        maximumPageLoads: options.maximumPageLoads, maximumParameterSetsPerPage: options.maximumVariants,
        timeout: options.timeout, headers: headers, capabilities: profile)
    configuration.crawlAll = options.all
    configuration.expectedProblems = expectedProblems
    configuration.negativeProbes = options.negativeProbes
    configuration.minimumCoverage = options.minimumCoverage
    let server = service
    let pagesDirectory = options.pages
    let progress = options.progress
    let comparison = baseline
    Task { @MainActor in
        let status = await runVerification(
            configuration, reports: options.reports, progress: progress, pagesDirectory: pagesDirectory,
            baseline: comparison)
        server?.shutdown()
        exit(status)
    }
    dispatchMain()
}

/// Loads DIR with the server's rules and starts it on 127.0.0.1, port 0, without access log.
func startVerifyServer(directory: String, options: VerifyOptions) -> (service: BFFService, pageIDs: [String]) {
    var flags = ["serve", "--pages", directory]
    if let config = options.config { flags += ["--config", config] }
    var configuration: BFFConfiguration
    do {
        configuration = loadConfiguration(try CommandLineArguments(flags))
    } catch {
        fail("\(error)")
    }
    configuration.server.host = "127.0.0.1"
    configuration.server.port = 0
    configuration.logging.accessLog = false
    // The crawl asks for each chunk three times in a row (load, replay, POST) and never again: a few cached bodies
    // serve that, where the default would keep every chunk of a long page.
    configuration.server.representationCacheEntries = 64
    let catalog = PageCatalog.load(
        directory: configuration.pages.directory, defaults: configuration.pages, unchecked: options.unchecked)
    // The load's intermediates (file bytes, JSON trees) were freed on this thread; the crawl and the server run on
    // others, whose allocator arenas would not reuse that memory.
    Platform.releaseFreeMemory()
    let errors = catalog.diagnostics.filter { $0.diagnostic.severity == .error }
    if !errors.isEmpty {
        printDiagnostics(errors, in: directory)
        if !options.unchecked {
            // CI still gets its annotations: each lint error at its page file and line.
            for (kind, file) in options.reports where kind == "github" {
                let text = PageFileLocator(directory: directory).annotations(for: errors)
                if (try? Data(text.utf8).write(to: URL(fileURLWithPath: file))) != nil {
                    print("report written: \(file) (\(kind))")
                }
            }
            fail(
                "not verifying: \(counted(errors.count, "error")) in \(directory) (listed above; flow-bff check \(directory))",
                status: 1)
        }
    }
    do {
        let service = try makeServer(
            configuration: configuration, catalog: catalog, log: MemoryLogSink(),
            idempotencyStore: RedisIdempotencyStore.configured(by: configuration))
        try service.start()
        return (service, catalog.pageIDs)
    } catch {
        fail("cannot start the in-process server: \(error)")
    }
}

/// Crawls (rendering progress on standard error), prints the summary, writes the reports and names them;
/// returns the exit status.
///
/// - Parameters:
///   - pagesDirectory: with `--pages DIR`, where the page files are: GitHub annotations then name the page file
///     and line of each violation.
///   - baseline: with `--baseline FILE`, the earlier report and its name: its changes join the report.
@MainActor
func runVerification(
    _ configuration: VerifierConfiguration, reports: [(kind: String, file: String)],
    progress: VerifyProgressRenderer.Mode = .off, pagesDirectory: String? = nil,
    baseline: (report: VerificationReport, name: String)? = nil
) async -> Int32 {
    var report: VerificationReport
    let renderer = VerifyProgressRenderer(mode: progress)
    do {
        let verifier = ContractVerifier(configuration: configuration)
        verifier.onProgress = { renderer.show($0) }
        report = try await verifier.run()
        renderer.finish()
    } catch {
        renderer.finish()
        FileHandle.standardError.write(Data("flow-bff: verify: \(error)\n".utf8))
        return 2
    }
    if let baseline {
        do {
            report.baseline = try ReportDiff(baseline: baseline.report, current: report, name: baseline.name)
        } catch {
            FileHandle.standardError.write(Data("flow-bff: verify: --baseline \(baseline.name): \(error)\n".utf8))
            return 2
        }
    }
    print(report.summary)
    for (kind, file) in reports {
        do {
            let data: Data
            switch kind {
            case "junit": data = Data(report.junitXML.utf8)
            case "github":
                let locator = pagesDirectory.map { PageFileLocator(directory: $0) }
                data = Data(report.githubAnnotations { locator?.locate($0) }.utf8)
            case "markdown": data = Data(report.markdown().utf8)
            default: data = try report.jsonData()
            }
            try data.write(to: URL(fileURLWithPath: file))
            print("report written: \(file) (\(kind))")
        } catch {
            FileHandle.standardError.write(Data("flow-bff: cannot write \(file): \(error)\n".utf8))
            return 2
        }
    }
    return report.passed ? 0 : 1
}
